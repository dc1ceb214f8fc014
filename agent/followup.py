"""Follow-up questions about a finished run, answered from the stored report plus retrieval.

A thread that already holds a run gets questions like "why is mob.gd flagged?", "explain chunk 4"
or "show me the Godot 4 version of _physics_process". They are answered from the stored per-chunk
results (never by re-running the analysis); retrieval only adds docs for the names involved.
Front doors (web UI, Discord) call `is_followup` and `answer_followup` and render the markdown.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.models import EvidenceBundle, RetrieverQuery

ChunkDict = Mapping[str, Any]
RetrieveFn = Callable[[RetrieverQuery], EvidenceBundle]

_CODE_LINE = re.compile(
    r"^\s*(extends|func|var|const|signal|class_name|onready|export|@export|@onready|tool\b|enum|\[gd_scene|"
    r"\[node|\[ext_resource|config_version)|^\t|```"
)
_URL = re.compile(r"https?://|www\.", re.I)
_CHUNK_NO = re.compile(r"(?:chunk|청크|块|片段|фрагмент\w*|кусок)\s*#?\s*(\d+)|#(\d+)|第\s*(\d+)\s*(?:块|个|段)", re.I)
_FILE = re.compile(r"[\w./-]+\.(?:gd|tscn|tres|godot|cfg|import)\b")
_IDENT = re.compile(r"\b_?[A-Za-z_][A-Za-z0-9_]{2,}\b")
_WANTS_CODE = re.compile(
    r"godot\s*4\s*(version|code|equivalent)|convert|rewrite|port\b|migrate|변환|바꿔|转换|改写|迁移|перепиш|конверт",
    re.I,
)
_WHY = re.compile(r"\bwhy\b|flag|explain|왜|설명|为什么|解释|почему|объясн", re.I)


@dataclass
class FollowupAnswer:
    """A markdown answer plus the chunks it is about (so a UI can link their traces)."""

    text: str
    chunk_ids: list[str] = field(default_factory=list)
    code: str | None = None
    """A Godot 4 version of the chunk, when asked for and a migration applies."""


def is_followup(text: str, *, has_run: bool) -> bool:
    """A question about the current run rather than new code, a link or an empty message."""
    text = text.strip()
    if not has_run or not text or _URL.search(text):
        return False
    if any(_CODE_LINE.match(line) for line in text.splitlines()):
        return False
    return len(text) <= 600


def chunk_number_of(chunk: ChunkDict) -> int:
    """The number users see (`#5`): chunk_order + 1."""
    return int(chunk.get("chunk_order", 0)) + 1


def _where(chunk: ChunkDict) -> str:
    start, end = chunk.get("start_line"), chunk.get("end_line")
    lines = f"L{start}" if start == end else f"L{start}-L{end}"
    path = chunk.get("source_file", "")
    path = "snippet.gd" if str(path).startswith("pasted://") else path
    return f"#{chunk_number_of(chunk)} {path} {lines}"


def _name(chunk: ChunkDict) -> str:
    return str(chunk.get("chunk_id", "")).rsplit(":", 1)[-1]


def _is_flagged(chunk: ChunkDict) -> bool:
    j = chunk.get("judgment") or {}
    return j.get("version_signal") == "godot3" or bool(j.get("migration_required"))


def find_chunks(question: str, report: Mapping[str, Any]) -> tuple[list[ChunkDict], str]:
    """The chunks a question is about, and how they were found (number, file, name or none)."""
    chunks: Sequence[ChunkDict] = report.get("chunks") or []
    m = _CHUNK_NO.search(question)
    if m:
        number = int(next(g for g in m.groups() if g))
        return [c for c in chunks if chunk_number_of(c) == number], "number"
    files = {str(c.get("source_file")) for c in chunks}
    for token in _FILE.findall(question):
        hit = [f for f in files if f == token or f.endswith("/" + token)]
        if hit:
            return [c for c in chunks if c.get("source_file") in hit], "file"
    names = {_name(c): c for c in chunks if c.get("chunk_kind") in {"function", "inner_class", "signal", "enum"}}
    for ident in _IDENT.findall(question):
        if ident in names:
            return [names[ident]], "name"
    return [], "none"


def _items_for(report: Mapping[str, Any], chunk: ChunkDict) -> list[Mapping[str, Any]]:
    out = []
    for item in report.get("migration_items") or []:
        same_id = item.get("chunk_id") == chunk.get("chunk_id")
        same_place = item.get("source_file") == chunk.get("source_file") and item.get("start_line") is not None and (
            chunk.get("start_line", 0) <= item["start_line"] <= chunk.get("end_line", 0)
        )
        if same_id or same_place:
            out.append(item)
    return out


def godot4_version(code: str, items: Sequence[Mapping[str, Any]]) -> str | None:
    """Apply the run's one-to-one renames (old → new) to a chunk's code, whole identifiers only.

    Items without a one-to-one replacement are left for the reader (their notes are shown).
    Comment lines are left untouched so we never rewrite prose.
    """
    renames = [(str(i["old"]), str(i["new"])) for i in items if i.get("old") and i.get("new")]
    if not renames:
        return None
    out = []
    for line in code.splitlines():
        if line.lstrip().startswith("#"):
            out.append(line)
            continue
        for old, new in renames:
            if re.fullmatch(r"[\w.]+", old):
                line = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, line)
        out.append(line)
    result = "\n".join(out)
    return result if result != code else None


def _evidence_lines(chunk: ChunkDict, limit: int = 4) -> list[str]:
    lines = []
    for e in (chunk.get("evidence") or [])[:limit]:
        title = e.get("title") or e.get("record_id")
        if e.get("source_api") and e.get("target_api"):
            title = f"{e['source_api']} → {e['target_api']}"
        link = f" ([docs]({e['source_url']}))" if e.get("source_url") else ""
        lines.append(f"  - {e.get('table')}: {title}{link}")
    return lines


def explain_chunk(chunk: ChunkDict, report: Mapping[str, Any], code: str | None = None) -> str:
    """Why a chunk was judged the way it was: signal, label, rationale, evidence, changes."""
    j = chunk.get("judgment") or {}
    status = chunk.get("status")
    if not j:
        return f"**{_where(chunk)}** is not judged yet (status: {status})."
    migration = "needs migration" if j.get("migration_required") else "needs no migration"
    out = [
        f"**{_where(chunk)}** (`{chunk.get('name') or chunk.get('chunk_kind')}`): signal **{j.get('version_signal')}**, label "
        f"`{j.get('label')}`, {migration} (confidence {j.get('confidence', 0):.2f}).",
        f"- rationale: {j.get('rationale', '')}",
    ]
    if chunk.get("query_terms"):
        out.append("- search cues: " + ", ".join(f"`{t}`" for t in chunk["query_terms"][:12]))
    ev = _evidence_lines(chunk)
    if ev:
        out += ["- evidence:", *ev]
    for item in _items_for(report, chunk):
        note = f" — {item['note']}" if item.get("note") else ""
        new = item.get("new") or "(no one-to-one replacement)"
        out.append(f"- change: `{item.get('old')}` → `{new}`{note}")
    if code:
        out += ["", "```gdscript", code.rstrip(), "```"]
    return "\n".join(out)


def _docs_from_bundle(bundle: EvidenceBundle, limit: int = 5) -> list[str]:
    out = []
    for hit in bundle.all_hits()[:limit]:
        url = hit.metadata.get("source_url") or hit.metadata.get("docs_url")
        link = f" ([docs]({url}))" if url else ""
        out.append(f"- {hit.table}: {hit.title}{link}")
    return out


def _query(text: str, terms: list[str], prompt: str) -> RetrieverQuery:
    return RetrieverQuery(query_text=text, query_terms=terms, raw_chunk_text=text, task_type="explain",
                          prompt_terms=[t for t in ("Godot 4",) if prompt])


async def answer_followup(
    question: str,
    report: Mapping[str, Any],
    *,
    chunk_texts: Mapping[str, str] | None = None,
    retrieve: RetrieveFn | None = None,
) -> FollowupAnswer:
    """Answer from the stored run; `retrieve` (a sync Retriever.retrieve) only adds docs.

    `chunk_texts` maps chunk_id -> code text (from the run's stored chunks), needed to show a
    Godot 4 version of a function.
    """
    chunk_texts = chunk_texts or {}
    chunks, how = find_chunks(question, report)
    if how == "number" and not chunks:
        total = len(report.get("chunks") or [])
        return FollowupAnswer(f"This run has chunks #1 to #{total}; which one do you mean?")
    if how == "file":
        flagged = [c for c in chunks if _is_flagged(c)]
        path = chunks[0].get("source_file")
        if not flagged:
            signals = sorted({(c.get("judgment") or {}).get("version_signal", "?") for c in chunks})
            return FollowupAnswer(
                f"`{path}` is not flagged: its {len(chunks)} chunks were judged {', '.join(signals)}, "
                "with no Godot 3 API found.",
                [c["chunk_id"] for c in chunks],
            )
        head = f"`{path}` is flagged because {len(flagged)} of its {len(chunks)} chunks use Godot 3 API:"
        body = [explain_chunk(c, report) for c in flagged[:6]]
        return FollowupAnswer("\n\n".join([head, *body]), [c["chunk_id"] for c in flagged])
    if chunks:
        chunk = chunks[0]
        code = None
        if _WANTS_CODE.search(question):
            original = chunk_texts.get(chunk["chunk_id"])
            code = (chunk.get("judgment") or {}).get("suggested_code")
            if not code and original:
                code = godot4_version(original, _items_for(report, chunk))
            if code is None and original and not _is_flagged(chunk):
                text = explain_chunk(chunk, report) + "\n\nThis code is already valid Godot 4; nothing to convert."
                return FollowupAnswer(text, [chunk["chunk_id"]])
        text = explain_chunk(chunk, report, code)
        if retrieve is not None and chunk.get("judgment", {}).get("migration_required"):
            targets = [str(i["new"]) for i in _items_for(report, chunk) if i.get("new")]
            if targets:
                bundle = await asyncio.to_thread(retrieve, _query(" ".join(targets), targets, question))
                docs = _docs_from_bundle(bundle, 3)
                if docs:
                    text += "\n\nGodot 4 docs for the replacements:\n" + "\n".join(docs)
        return FollowupAnswer(text, [chunk["chunk_id"]], code)
    return await _general(question, report, retrieve)


async def _general(question: str, report: Mapping[str, Any], retrieve: RetrieveFn | None) -> FollowupAnswer:
    """No chunk named: summarise the run and search the docs for the question."""
    verdict = report.get("verdict") or {}
    flagged = [c for c in report.get("chunks") or [] if _is_flagged(c)]
    out = [f"This thread's run is **{verdict.get('label', report.get('status'))}**."]
    if flagged:
        out.append("Flagged chunks: " + ", ".join(
            f"{_where(c)} (`{c.get('name') or c.get('chunk_kind')}`)" for c in flagged[:8]) + ".")
    out.append('Ask about one of them, e.g. "explain chunk 2" or "why is player.gd flagged?".')
    if retrieve is not None:
        terms = [t for t in _IDENT.findall(question) if any(ch.isupper() for ch in t) or "_" in t][:8]
        bundle = await asyncio.to_thread(retrieve, _query(question, terms, question))
        docs = _docs_from_bundle(bundle)
        if docs:
            out += ["", "From the Godot docs:", *docs]
    return FollowupAnswer("\n".join(out), [c["chunk_id"] for c in flagged[:8]])


async def answer_for_run(service: Any, run_id: str, question: str) -> FollowupAnswer:
    """Answer a follow-up about a stored run through an `AnalysisService` (report, chunk texts, retriever)."""
    report = await service.report(run_id)
    chunks, _ = find_chunks(question, report)
    texts: dict[str, str] = {}
    if chunks:
        loaded = await service.store.load_chunks(run_id, [c["chunk_id"] for c in chunks])
        texts = {c.chunk_id: c.code_text for c in loaded}
    retriever = getattr(service, "retriever", None)
    return await answer_followup(
        question, report, chunk_texts=texts, retrieve=retriever.retrieve if retriever is not None else None
    )
