"""Follow-up questions about a finished run, answered from the stored run in the question's language.

A thread that already holds a run gets questions like "why is mob.gd flagged?", "explain chunk 4"
or "show me the Godot 4 version". They are answered from the stored per-chunk results (never by
re-running the analysis): reasons come from the validated judgments and cite the evidence that was
retrieved for them; explanations are built from the docs of the APIs the code calls; a Godot 4
version is one code block that passed the answer validator (re-parsed, re-judged, no inherited
member redeclared). A question that names no chunk may refer to the one the conversation was
about (the thread's memory). Front doors (web UI, Discord) call `is_followup` and `answer_for_run`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.answer.check import InheritedProperties, Retrieve, drop_inherited_zero_vars, code_failures
from agent.answer.inputs import AnswerInput, evidence_pool
from agent.answer.phrases import answer_language, phrase
from agent.answer.template import Citations, add_api_docs, change_lines, explain_chunk_lines, sources_lines, where, \
    why_lines
from agent.judge.project import ProjectContext, knowledge_context
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
    r"godot\s*4\s*(version|code|equivalent)|convert|rewrite|port\b|migrate|변환|바꿔|转换|改写|迁移|перепиш|конверт"
    r"|godot\s*4\s*\S{0,3}\s*(버전|코드|版本|代码|верси|код)",
    re.I,
)


@dataclass
class FollowupAnswer:
    """A markdown answer plus the chunks it is about (so a UI can link their traces)."""

    text: str
    chunk_ids: list[str] = field(default_factory=list)
    code: str | None = None
    """A validated Godot 4 version of the chunk or file, when asked for and a migration applies."""
    validation_failures: list[str] = field(default_factory=list)
    """Why a Godot 4 version was withheld (the answer validator's rules), if it was."""


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


def _head(chunk: ChunkDict) -> str:
    return f"**#{chunk_number_of(chunk)} {where(chunk)}** (`{chunk.get('name') or chunk.get('chunk_kind')}`)"


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


@dataclass
class FollowupContext:
    """What a follow-up may read: the stored run and, optionally, retrieval and the API index."""

    report: Mapping[str, Any]
    chunk_texts: Mapping[str, str] = field(default_factory=dict)
    contents: Mapping[str, str] = field(default_factory=dict)
    """docs_chunks id -> docs text of the run's evidence (for explanations)."""
    file_texts: Mapping[str, str] = field(default_factory=dict)
    """path -> file text, for a whole-file Godot 4 version."""
    retrieve: Retrieve | None = None
    props: InheritedProperties | None = None
    kb: ProjectContext | None = None
    """The knowledge base as a context (`project.knowledge_context`): suggested code is judged on its model."""
    dimension: str = "unknown"
    history: list[tuple[str, str]] = field(default_factory=list)


def _language(question: str, report: Mapping[str, Any]) -> str:
    from agent.intent import detect_language

    lang = detect_language(question)
    return answer_language(lang if lang != "unknown" else (report.get("intent") or {}).get("language"))


def _input(ctx: FollowupContext, question: str, language: str) -> AnswerInput:
    chunks = list(ctx.report.get("chunks") or [])
    return AnswerInput(prompt=question, task_type="explain", language=language,
                       verdict=dict(ctx.report.get("verdict") or {}), chunks=chunks, codes=dict(ctx.chunk_texts),
                       evidence=evidence_pool(chunks, ctx.contents), dimension=ctx.dimension)


def checked_code(code: str | None, ctx: FollowupContext) -> tuple[str | None, list[str]]:
    """Suggested code validated like any answer's: fixed where mechanical, else withheld with the reasons."""
    if not code:
        return None, []
    fixed = drop_inherited_zero_vars(code, ctx.props)
    failures = code_failures(fixed if fixed is not None else code, retrieve=ctx.retrieve, dimension=ctx.dimension,
                             props=ctx.props, kb=ctx.kb)
    return (None, failures) if failures or fixed is None else (fixed, [])


def _with_sources(lines: list[str], cites: Citations, language: str) -> str:
    src = sources_lines(cites.records())
    return "\n".join([*lines, *(["", phrase("sources", language), *src] if src else [])])


def explain(chunk: ChunkDict, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """The chunk's code, what it does (from the docs of what it calls), and why it was judged so."""
    inp = _input(ctx, question, language)
    add_api_docs(inp, ctx.retrieve, [chunk["chunk_id"]])
    cites = Citations(inp.evidence)
    code = ctx.chunk_texts.get(chunk["chunk_id"], "")
    lines = [_head(chunk)]
    if code:
        lines += ["", "```gdscript", code.rstrip("\n"), "```"]
    lines += ["", phrase("what_it_does", language), *explain_chunk_lines(chunk, code, inp, cites)]
    why = why_lines([chunk], inp, cites)
    if why:
        lines += ["", phrase("why", language), *why]
    if _is_flagged(chunk):
        lines += ["", phrase("steps", language), *change_lines([chunk], inp, cites)]
    return FollowupAnswer(_with_sources(lines, cites, language), [chunk["chunk_id"]])


def why_flagged(chunks: list[ChunkDict], ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """Evidence-backed reasons, in plain words, for a file or chunks."""
    path = str(chunks[0].get("source_file"))
    flagged = [c for c in chunks if _is_flagged(c)]
    if not flagged:
        signals = ", ".join(sorted({(c.get("judgment") or {}).get("version_signal") or "?" for c in chunks}))
        return FollowupAnswer(phrase("not_flagged", language, where=path, signals=signals),
                              [c["chunk_id"] for c in chunks])
    inp = _input(ctx, question, language)
    cites = Citations(inp.evidence)
    lines = [f"`{path}` is flagged because {len(flagged)} of its {len(chunks)} chunks use Godot 3 API."
             if language == "en" else phrase("reason_godot3", language, where=path)]
    lines += why_lines(flagged, inp, cites, limit=8)
    changes = change_lines(flagged, inp, cites)
    if changes:
        lines += ["", phrase("steps", language), *changes]
    return FollowupAnswer(_with_sources(lines, cites, language), [c["chunk_id"] for c in flagged])


def godot4_code(chunks: list[ChunkDict], ctx: FollowupContext, language: str) -> FollowupAnswer:
    """One code block: the Godot 4 version of a chunk, or of a whole file when several chunks are asked."""
    from agent.graph.verdict import suggested_snippet

    ids = [c["chunk_id"] for c in chunks]
    if not any(_is_flagged(c) for c in chunks):
        return FollowupAnswer(_head(chunks[0]) + "\n\n" + phrase("already_godot4", language) if len(chunks) == 1
                              else phrase("already_godot4", language), ids)
    path = str(chunks[0].get("source_file"))
    candidate = None
    migrated = _migrated_file(ctx.report, path)
    if migrated is not None and len(chunks) > 1:  # the whole file: the migration engine's validated code
        head = f"**{where({**chunks[0], 'end_line': chunks[-1].get('end_line')})}**"
        if migrated.get("status") == "migrated":
            code = migrated["migrated"]
            return FollowupAnswer(f"{head}\n\n```gdscript\n{code.rstrip()}\n```", ids, code)
        if migrated.get("migrated"):  # written where sure, TODOs where not: say which parts, show it whole
            todos = [f"- {phrase('line', language)} {t['line']}: {t['reason']}" for t in migrated.get("todos") or []]
            lines = [head, "", phrase("partial_code", language), *todos[:12], "", "```gdscript",
                     migrated["migrated"].rstrip(), "```"]
            return FollowupAnswer("\n".join(lines), ids, None, [f"todo: {len(todos)} part(s) left for a person"])
    if len(chunks) > 1 and path in ctx.file_texts:
        rows = [{**c, "status": "done", "code_text": ctx.chunk_texts.get(c["chunk_id"], "")} for c in chunks]
        candidate = suggested_snippet(ctx.file_texts[path], rows)
    elif len(chunks) == 1:
        chunk = chunks[0]
        candidate = (chunk.get("judgment") or {}).get("suggested_code") or godot4_version(
            ctx.chunk_texts.get(chunk["chunk_id"], ""), _items_for(ctx.report, chunk))
    code, failures = checked_code(candidate, ctx)
    head = _head(chunks[0]) if len(chunks) == 1 else f"**{where({**chunks[0], 'end_line': chunks[-1].get('end_line')})}**"
    if code is None:
        inp = _input(ctx, "", language)
        cites = Citations(inp.evidence)
        lines = [head, "", phrase("no_code", language), "", phrase("steps", language),
                 *change_lines([c for c in chunks if _is_flagged(c)], inp, cites)]
        return FollowupAnswer(_with_sources(lines, cites, language), ids, None, failures)
    return FollowupAnswer(f"{head}\n\n```gdscript\n{code.rstrip()}\n```", ids, code)


def _migrated_file(report: Mapping[str, Any], path: str) -> dict[str, Any] | None:
    """The migration engine's record of one script of the run (`report["migration"]`), if it has one."""
    files = (report.get("migration") or {}).get("files") or []
    return next((f for f in files if f.get("path") == path and f.get("kind") == "gdscript"), None)


def _chunks_from_history(ctx: FollowupContext) -> list[ChunkDict]:
    """The chunk(s) the conversation was last about, if the user named one earlier in the thread."""
    for role, text in reversed(ctx.history):
        if role == "user":
            chunks, how = find_chunks(text, ctx.report)
            if chunks and how != "none":
                return chunks
    return []


async def answer_followup(question: str, report: Mapping[str, Any], *, chunk_texts: Mapping[str, str] | None = None,
                          retrieve: RetrieveFn | None = None, ctx: FollowupContext | None = None) -> FollowupAnswer:
    """Answer from the stored run (see module docstring); `retrieve` is a sync Retriever.retrieve."""
    ctx = ctx or FollowupContext(report=report, chunk_texts=chunk_texts or {}, retrieve=retrieve)
    language = _language(question, report)
    chunks, how = find_chunks(question, report)
    wants_code = bool(_WANTS_CODE.search(question))
    if how == "number" and not chunks:
        return FollowupAnswer(phrase("which_chunk", language, total=len(report.get("chunks") or [])))
    if how == "none":
        chunks = _chunks_from_history(ctx) if wants_code or re.search(r"\bit\b|그거|这个|это", question, re.I) else []
        if not chunks and wants_code:
            chunks = _whole_source(report)
        how = "history" if chunks else "none"
    if chunks and wants_code:
        return await asyncio.to_thread(godot4_code, chunks, ctx, language)
    if how == "file":
        return why_flagged(chunks, ctx, question, language)
    if chunks:
        return await asyncio.to_thread(explain, chunks[0], ctx, question, language)
    return general(report, language)


def _whole_source(report: Mapping[str, Any]) -> list[ChunkDict]:
    """"Show me the Godot 4 version" with nothing named: the one file of the run, or the one flagged file."""
    chunks = list(report.get("chunks") or [])
    files = {c.get("source_file") for c in chunks if str(c.get("source_file", "")).endswith(".gd")}
    flagged = {c.get("source_file") for c in chunks if _is_flagged(c)}
    target = next(iter(files)) if len(files) == 1 else (next(iter(flagged)) if len(flagged) == 1 else None)
    return [c for c in chunks if c.get("source_file") == target] if target else []


def general(report: Mapping[str, Any], language: str) -> FollowupAnswer:
    """No chunk named: the verdict, the flagged chunks, and how to ask about one."""
    verdict = report.get("verdict") or {}
    label = verdict.get("label") or "ambiguous"
    flagged = [c for c in report.get("chunks") or [] if _is_flagged(c)]
    key = f"verdict_{label}" if label in ("godot3", "godot4", "mixed") else "verdict_ambiguous"
    out = [phrase(key, language)]
    if flagged:
        out.append(phrase("flagged_list", language, items=", ".join(
            f"#{chunk_number_of(c)} {where(c)} (`{c.get('name') or c.get('chunk_kind')}`)" for c in flagged[:8])))
    out.append(phrase("ask_more", language))
    return FollowupAnswer("\n".join(out), [c["chunk_id"] for c in flagged[:8]])


async def followup_context(service: Any, run_id: str, question: str,
                           history: list[tuple[str, str]] | None = None) -> FollowupContext:
    """Everything a follow-up reads, from an `AnalysisService`'s store and retriever."""
    from agent.answer.inputs import docs_ids, load_docs_contents
    from agent.judge.dimension import detect_project_dimension

    report = await service.report(run_id)
    store = service.store
    rows = await store.chunk_rows(run_id)
    texts = {r["chunk_id"]: r.get("code_text") or "" for r in rows}
    chunks = await store.load_chunks(run_id, list(texts))
    files = {f["path"] for f in await store.files(run_id) if f.get("included") and str(f["path"]).endswith(".gd")}
    file_texts = {p: t for p in files if (t := await store.file_text(run_id, p)) is not None}
    retriever = getattr(service, "retriever", None)
    return FollowupContext(
        report=report, chunk_texts=texts, contents=await load_docs_contents(store.pool, docs_ids(report["chunks"])),
        file_texts=file_texts, retrieve=retriever.retrieve if retriever is not None else None,
        props=InheritedProperties(retriever.pool) if retriever is not None else None,
        kb=await asyncio.to_thread(knowledge_context, retriever) if retriever is not None else None,
        dimension=detect_project_dimension(chunks), history=list(history or []),
    )


async def answer_for_run(service: Any, run_id: str, question: str, history: list[tuple[str, str]] | None = None,
                         on_token: Callable[[str], Any] | None = None) -> FollowupAnswer:
    """Answer a follow-up about a stored run through an `AnalysisService`; `history` is the thread's memory.

    A question about no chunk in particular goes to the answer organiser when an LLM is configured
    (it sees the conversation and streams through `on_token`); everything else is answered here.
    """
    ctx = await followup_context(service, run_id, question, history)
    chunks, how = find_chunks(question, ctx.report)
    settings = service.settings
    if how == "none" and settings.llm_base_url and not _WANTS_CODE.search(question):
        from agent.answer import answer_run

        answer = await answer_run(service.store, ctx.report, settings=settings, retriever=service.retriever,
                                  prompt=question, history=ctx.history, dimension=ctx.dimension, on_token=on_token)
        return FollowupAnswer(answer.markdown, [], answer.suggested_code, answer.validation_failures)
    return await answer_followup(question, ctx.report, ctx=ctx)
