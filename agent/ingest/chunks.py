"""Page -> docs_chunks records (the rows of docs_chunks.jsonl)."""

from __future__ import annotations

from dataclasses import dataclass

from agent.ingest.doctypes import chunk_version_tags, classify, url_path, version_tags
from agent.ingest.sections import Draft, class_drafts, text_drafts
from agent.ingest.symbols import SymbolIndex
from agent.ingest.windows import TokenCounter, pack

CONVERTER_VERSION = "godot-rag-ingest/2"
"""Bump when chunking changes: pages ingested by another version are re-chunked."""


@dataclass(frozen=True)
class Page:
    """One manifest row with its decoded text."""

    url: str
    source_file: str
    sha256: str
    bytes: int
    text: str

    @property
    def doc_type(self) -> str:
        return classify(self.url, self.source_file)


def chunk_prefix(section_path: list[str]) -> str:
    """The section path that heads every window, so each embedded window knows where it is."""
    return " > ".join(section_path)


def _search_text(symbol: str | None, heading: str, title: str, api_symbols: list[str]) -> str:
    parts = [p for p in (symbol, heading, title) if p]
    parts += api_symbols[:12]
    return " ".join(dict.fromkeys(parts))[:400]


def page_chunks(
    page: Page,
    *,
    symbols: SymbolIndex,
    count_tokens: TokenCounter,
    max_tokens: int | None,
    doc_version: str,
    godot_version: str,
) -> list[dict]:
    """All chunk records of a page, in document order, with deterministic ids.

    `max_tokens=None` asks the counter for the model's limit (so a page with no text never loads the model).
    """
    doc_type = page.doc_type
    fallback = page.source_file.rsplit("/", 1)[-1].removesuffix(".md")
    if doc_type == "class_reference":
        title, drafts = class_drafts(page.text, fallback)
    else:
        title, drafts = text_drafts(page.text, fallback, migration=doc_type == "migration")
    page_tags = version_tags(doc_type, page.url, godot_version, doc_version)
    path = url_path(page.url)
    seen: dict[str, int] = {}
    records: list[dict] = []
    prime = getattr(count_tokens, "prime", None)
    if prime is not None:  # one batched tokenizer call for the whole page
        prime([u.text for d in drafts for u in d.units] + [chunk_prefix(d.section_path) + "\n" for d in drafts])
    for d in drafts:
        anchor = _unique_anchor(d, seen)
        prefix = chunk_prefix(d.section_path)
        limit = max_tokens if max_tokens is not None else count_tokens.max_seq_length  # type: ignore[attr-defined]
        windows = pack(prefix, d.units, limit, count_tokens)
        for i, w in enumerate(windows, start=1):
            languages = sorted({c.language for c in w.code})
            api = symbols.detect(w.text, seed=[*d.seed_symbols] + ([d.symbol] if d.symbol else []))
            records.append(
                {
                    "chunk_id": f"godot-{doc_version}:{path}#{anchor}:{i:04d}",
                    "doc_version": doc_version,
                    "source_url": page.url,
                    "source_file": page.source_file,
                    "source_sha256": page.sha256,
                    "doc_type": doc_type,
                    "symbol": d.symbol,
                    "section_path": d.section_path,
                    "heading": d.heading,
                    "content": w.text,
                    "code_blocks": [c.as_json() for c in w.code],
                    "language_tags": languages,
                    "godot_version_tags": chunk_version_tags(page_tags, w.text),
                    "api_symbols": api,
                    "token_count": w.tokens,
                    "search_text": _search_text(d.symbol, d.heading, title, api),
                    "metadata": {
                        "page_title": title,
                        "anchor": anchor,
                        "window": i,
                        "windows": len(windows),
                        "member_kind": d.member_kind,
                        "bytes": page.bytes,
                        "converter_version": CONVERTER_VERSION,
                    },
                }
            )
    return records


def _unique_anchor(d: Draft, seen: dict[str, int]) -> str:
    n = seen.get(d.anchor, 0)
    seen[d.anchor] = n + 1
    return d.anchor if n == 0 else f"{d.anchor}-{n}"
