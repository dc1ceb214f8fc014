"""What a front door shows of a report: numbered citations, a per-file summary, words a user knows.

Reads the report's JSON-dict form (`agent/graph/report.py`, the CLI's `--format json`) and adds
nothing the report does not hold. Front doors (web chat, Discord) format these records; they do
not re-derive them. The rule every citation keeps: its URL is the URL of the evidence it names,
with the member anchor the evidence id carries, never a link borrowed from another record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

TABLE_WORDS = {
    "api_mapping": "Godot 3 → 4 renames",
    "docs_chunks": "Godot docs",
    "label_prototypes": "known code patterns",
}
"""The retriever's three tables, as users read them."""


def source_words(table: str | None, doc_version: str | None = None) -> str:
    """Where a piece of evidence comes from, as users read it: docs say which version they quote."""
    if table == "docs_chunks":
        return "Godot 3.4 docs" if doc_version == "3.4" else "Godot 4 docs"
    return TABLE_WORDS.get(table or "", table or "")

TABLE_ORDER = ("api_mapping", "docs_chunks", "label_prototypes")

SCORE_SCALE = "relevance: rank fusion of the searches (about 0.01–0.1), plus 1 when the exact API name matched"
"""What a candidate's score means; the same scale for every table, comparable only within one chunk."""

MATCH_WORDS = {
    "exact": "exact name", "symbol": "API name", "linked": "linked from a rename", "keyword": "keywords",
    "trigram": "similar spelling", "vector": "meaning",
}

KIND_WORDS = {
    "class_extends": "extends line",
    "class_name": "class name",
    "tool": "tool line",
    "signal": "signal",
    "declaration_group": "variables and constants",
    "enum": "enum",
    "function": "function",
    "inner_class": "inner class",
    "unparsed": "unparsed code",
    "config_preamble": "config header",
    "config_section": "config section",
    "scene_header": "scene header",
    "resource_header": "resource header",
    "ext_resource": "external resource",
    "sub_resource": "sub-resource",
    "node": "node",
    "connection": "signal connection",
    "resource_block": "resource block",
    "import_section": "import section",
    "text_block": "text",
}
"""Chunk kinds (the parser's names) as users read them."""

_DOCS_ANCHOR = re.compile(r"#([^#:\s]+)(?::\d+)?$")


def replacement_words(new: str | None, change_type: str | None) -> str:
    """What replaces `old` in Godot 4: the new code, or why there is no one-line replacement.

    Only a change the evidence calls `removed` is shown as removed; an item without `new` may also be a
    behaviour or call-form change that a person rewrites from the cited docs.
    """
    if new:
        return new
    return "(removed in Godot 4)" if change_type == "removed" else "(no one-line replacement: see the docs)"


def kind_words(kind: str | None) -> str:
    """`declaration_group` -> `variables and constants`; unknown kinds with spaces for underscores."""
    return KIND_WORDS.get(kind or "", (kind or "").replace("_", " "))


def anchor_url(record_id: str | None, source_url: str | None) -> str | None:
    """The evidence's own URL, at the member anchor its id carries (`...:class_node2d.md#class-node2d-property-position:0000`)."""
    if not source_url:
        return None
    if "#" in source_url:
        return source_url
    m = _DOCS_ANCHOR.search(record_id or "")
    return f"{source_url}#{m.group(1)}" if m else source_url


def _page(url: str | None) -> str:
    return (url or "").split("#", 1)[0].rstrip("/")


@dataclass
class Citation:
    """One numbered source: the evidence record it names and that record's own link."""

    number: int
    record_id: str
    title: str
    table: str
    url: str | None
    doc_version: str | None = None

    @property
    def source_words(self) -> str:
        return source_words(self.table, self.doc_version)


@dataclass
class Citations:
    """Numbers sources in the order they are first cited (kapa-style `[1]`, `[2]`), one numbering per reply.

    `after(answer)` continues the answer's numbering, so the table under an answer calls the same
    evidence by the same number. Iterating gives what this message cited; label prototypes are not
    sources (they are how the product decides) and are kept apart in `patterns()`.
    """

    entries: dict[str, Citation] = field(default_factory=dict)
    used: dict[str, None] = field(default_factory=dict)

    @classmethod
    def after(cls, answer: Mapping[str, Any] | None) -> Citations:
        out = cls()
        for c in (answer or {}).get("citations") or []:
            rid = str(c.get("evidence_id") or "")
            out.entries[rid] = Citation(number=int(c["number"]), record_id=rid, title=str(c.get("title") or rid),
                                        table=str(c.get("table") or ""), url=anchor_url(rid, c.get("url")),
                                        doc_version=c.get("doc_version"))
        return out

    def cite(self, evidence: Mapping[str, Any]) -> Citation:
        """The citation of an evidence entry (a report chunk's `evidence` item), numbered on first use."""
        rid = str(evidence.get("record_id") or "")
        if rid not in self.entries:
            title = evidence.get("title") or rid
            if evidence.get("source_api") and evidence.get("target_api"):
                title = f"{evidence['source_api']} → {evidence['target_api']}"
            number = max((c.number for c in self.entries.values()), default=0) + 1
            self.entries[rid] = Citation(
                number=number, record_id=rid, title=str(title), table=str(evidence.get("table") or ""),
                url=anchor_url(rid, evidence.get("source_url")), doc_version=evidence.get("doc_version"),
            )
        self.used.setdefault(rid)
        return self.entries[rid]

    def __iter__(self):
        """The sources this message cited, in number order (label prototypes are not sources)."""
        cited = [self.entries[r] for r in self.used if self.entries[r].table != "label_prototypes"]
        return iter(sorted(cited, key=lambda c: c.number))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def patterns(self) -> list[Citation]:
        """The label prototypes this message cited: how the product decided, shown apart from the sources."""
        return [self.entries[r] for r in self.used if self.entries[r].table == "label_prototypes"]


def evidence_by_id(chunk: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The chunk's retrieved evidence, by record id."""
    return {str(e.get("record_id")): e for e in chunk.get("evidence") or [] if e.get("record_id")}


def cited_ids(chunk: Mapping[str, Any]) -> list[str]:
    """The evidence ids the chunk's judgment used (validate guarantees they were retrieved)."""
    return [str(i) for i in ((chunk.get("judgment") or {}).get("evidence_ids") or [])]


def chunk_citations(chunk: Mapping[str, Any], citations: Citations) -> list[Citation]:
    """The chunk's cited evidence, numbered in `citations`; ids not among its evidence are skipped."""
    found = evidence_by_id(chunk)
    return [citations.cite(found[i]) for i in cited_ids(chunk) if i in found]


def item_citation(item: Mapping[str, Any], chunk: Mapping[str, Any] | None, citations: Citations) -> Citation | None:
    """The source of a migration item: the evidence it names, with that evidence's own URL.

    A `docs_url` on the item that points to another page than its evidence (e.g. `config_version`
    linking `class_node2d.html`) is not shown; neither is an evidence id the chunk never retrieved.
    """
    rid = item.get("evidence_id")
    evidence = evidence_by_id(chunk or {}).get(str(rid)) if rid else None
    if evidence is None:
        return None
    citation = citations.cite(evidence)
    docs = item.get("docs_url")
    if citation.url is None and docs and _fits(docs, evidence):
        citation.url = docs
    return citation


def _fits(url: str, evidence: Mapping[str, Any]) -> bool:
    """A link for a rename row that has no page of its own: a docs page about the change (a tutorial
    such as the migration guide), or the class page of one of its two APIs; never another class page."""
    page = _page(url)
    return "/classes/" not in page or page.endswith(_api_pages(evidence))


def _api_pages(evidence: Mapping[str, Any]) -> tuple[str, ...]:
    """`/class_characterbody2d.html` for a rename's source and target APIs (`CharacterBody2D.move_and_slide`)."""
    apis = [evidence.get("source_api"), evidence.get("target_api")]
    return tuple(f"/class_{str(a).split('.')[0].lower()}.html" for a in apis if a) or ("\0",)


def cite_rationale(rationale: str, chunk: Mapping[str, Any], citations: Citations) -> str:
    """The rationale with `[evidence-id]` replaced by its number `[n]` and other ids shown as code.

    Evidence ids (`godot3-to-4:class:kinematicbody2d-to-characterbody2d`) would otherwise be read as
    Markdown link references or emoji codes and come out mangled.
    """
    found = evidence_by_id(chunk)

    def number(m: re.Match[str]) -> str:
        rid = m.group(1)
        if rid in found:
            c = citations.cite(found[rid])
            return f"[{c.number}]"
        return f"`{rid}`"

    out = re.sub(r"\[([^\[\]\s]+)\]", number, rationale or "")
    for rid in sorted(found, key=len, reverse=True):  # bare ids left in the text
        out = re.sub(rf"(?<![`\w]){re.escape(rid)}(?![`\w])", f"`{rid}`", out)
    return out


@dataclass
class FileSummary:
    """One row of a project's per-file table."""

    path: str
    verdict: str
    """godot3 | godot4 | mixed | neutral | pending (not every chunk judged yet)"""
    migration_items: int
    chunk_numbers: list[int]
    """the `#n` numbers users see on task rows and traces"""
    flagged_numbers: list[int]
    """chunks with a Godot 3 signal or a migration"""


def _signal(chunk: Mapping[str, Any]) -> str | None:
    return (chunk.get("judgment") or {}).get("version_signal") if chunk.get("status") == "done" else None


def file_summaries(report: Mapping[str, Any]) -> list[FileSummary]:
    """One summary per analysed file, in the report's file order."""
    chunks_of: dict[str, list[Mapping[str, Any]]] = {}
    for c in report.get("chunks") or []:
        chunks_of.setdefault(str(c.get("source_file")), []).append(c)
    items: dict[str, int] = {}
    for it in report.get("migration_items") or []:
        items[str(it.get("source_file"))] = items.get(str(it.get("source_file")), 0) + 1
    paths = [str(f.get("path")) for f in report.get("files") or []]
    paths += [p for p in chunks_of if p not in paths]
    out = []
    for path in paths:
        chunks = chunks_of.get(path, [])
        signals = {_signal(c) for c in chunks}
        if None in signals and chunks:
            verdict = "pending"
        elif {"godot3", "godot4"} <= signals:
            verdict = "mixed"
        elif "godot3" in signals:
            verdict = "godot3"
        elif "godot4" in signals:
            verdict = "godot4"
        else:
            verdict = "neutral"
        numbers = [int(c.get("chunk_order", 0)) + 1 for c in chunks]
        flagged = [
            int(c.get("chunk_order", 0)) + 1 for c in chunks
            if _signal(c) == "godot3" or (c.get("judgment") or {}).get("migration_required")
        ]
        out.append(FileSummary(path, verdict, items.get(path, 0), numbers, flagged))
    return out


def is_neutral(chunk: Mapping[str, Any]) -> bool:
    """A judged chunk with no version signal and nothing to change: folded away by default."""
    j = chunk.get("judgment") or {}
    return chunk.get("status") == "done" and j.get("version_signal") == "neutral" and not j.get("migration_required")


def number_ranges(numbers: Iterable[int]) -> str:
    """`#1–#4, #7` for chunk numbers."""
    nums = sorted(set(numbers))
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append(f"#{nums[i]}" if i == j else f"#{nums[i]}–#{nums[j]}")
        i = j + 1
    return ", ".join(parts)
