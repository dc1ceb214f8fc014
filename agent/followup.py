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
from agent.answer.inputs import AnswerInput, EvidenceRef, evidence_pool
from agent.answer.phrases import answer_language, phrase
from agent.answer.template import Citations, add_api_docs, change_lines, explain_chunk_lines, sources_block, where, \
    why_lines
from agent.followup_query import FollowupQuery, chunk_number_of, is_flagged, resolve, wants_code
from agent.judge.project import ProjectContext, knowledge_context, mapping_table_for
from agent.models import EvidenceBundle, RetrieverQuery
from agent.retrieve.mapping_table import MappingTable

ChunkDict = Mapping[str, Any]
RetrieveFn = Callable[[RetrieverQuery], EvidenceBundle]

_CODE_LINE = re.compile(
    r"^\s*(extends|func|var|const|signal|class_name|onready|export|@export|@onready|tool\b|enum|\[gd_scene|"
    r"\[node|\[ext_resource|config_version)|^\t|```"
)
_URL = re.compile(r"https?://|www\.", re.I)
_RATIONALE_IDS = re.compile(r"\[([^\[\]]+)\]")


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


def _head(chunk: ChunkDict) -> str:
    return f"**#{chunk_number_of(chunk)} {where(chunk)}** (`{chunk.get('name') or chunk.get('chunk_kind')}`)"


def _name(chunk: ChunkDict) -> str:
    return str(chunk.get("chunk_id", "")).rsplit(":", 1)[-1]


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
    mappings: MappingTable | None = None
    """Every api_mapping row, for a construct the run does not use ("what replaces yield?")."""
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
    return "\n".join([*lines, *sources_block(cites, language)])


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
    if is_flagged(chunk):
        lines += ["", phrase("steps", language), *change_lines([chunk], inp, cites)]
    return FollowupAnswer(_with_sources(lines, cites, language), [chunk["chunk_id"]])


def why_flagged(chunks: list[ChunkDict], ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """Evidence-backed reasons, in plain words, for a file or chunks."""
    path = str(chunks[0].get("source_file"))
    path = "snippet.gd" if path.startswith("pasted://") else path
    flagged = [c for c in chunks if is_flagged(c)]
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
    if not any(is_flagged(c) for c in chunks):
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
                 *change_lines([c for c in chunks if is_flagged(c)], inp, cites)]
        return FollowupAnswer(_with_sources(lines, cites, language), ids, None, failures)
    return FollowupAnswer(f"{head}\n\n```gdscript\n{code.rstrip()}\n```", ids, code)


def _migrated_file(report: Mapping[str, Any], path: str) -> dict[str, Any] | None:
    """The migration engine's record of one script of the run (`report["migration"]`), if it has one."""
    files = (report.get("migration") or {}).get("files") or []
    return next((f for f in files if f.get("path") == path and f.get("kind") == "gdscript"), None)


def _change_place(change: Mapping[str, Any], language: str) -> str:
    chunk = change["chunk"]
    path = str(chunk.get("source_file") or "")
    path = "snippet.gd" if path.startswith("pasted://") else path
    name = chunk.get("name") or chunk.get("chunk_kind")
    return (f"**{phrase('at_line', language, path=path, line=change['line'])}** — "
            + phrase("in_chunk", language, n=chunk_number_of(chunk), name=name))


def _note(change: Mapping[str, Any]) -> str:
    """The judge's note without its `line N:` prefix and rule key (`move_and_slide_args; ...`)."""
    note = re.sub(r"^line \d+:\s*", "", str(change.get("note") or "").strip())
    head, sep, rest = note.partition(";")
    if " " not in head.strip():
        return rest.strip() if sep else ""
    return note


def _docs_of_line(chunk: ChunkDict, line: int) -> list[str]:
    """The ids the chunk's rationale cites for one line (`... (line 8) -> ... [ids]`)."""
    rationale = str((chunk.get("judgment") or {}).get("rationale") or "")
    for part in re.split(r";\s+(?=Godot|`|[A-Z])", rationale):
        if f"(line {line})" in part:
            return [i.strip() for m in _RATIONALE_IDS.finditer(part) for i in m.group(1).split(",")]
    return []


def changes_answer(query: FollowupQuery, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """Each change the question points at: where, the Godot 3 code, the Godot 4 code (or why there is none),
    why, and the docs it rests on (quoted whole, in English), all cited."""
    from agent.answer.template import docs_gist

    inp = _input(ctx, question, language)
    cites = Citations(inp.evidence)
    lines: list[str] = []
    for change in sorted(query.changes, key=lambda c: (str(c["chunk"].get("source_file")), c["line"]))[:6]:
        old = str(change.get("old") or "").strip()
        note = _note(change) if language == "en" else ""  # the judge's notes are English prose
        lines += ["", _change_place(change, language), "",
                  f"{phrase('godot3_form', language)} `{' '.join(old.split())}`" if "\n" not in old
                  else f"{phrase('godot3_form', language)}\n```gdscript\n{old}\n```"]
        new, cited = change.get("new"), cites.cite(change.get("evidence_id"))
        if new:
            code = "\n".join(part.strip() for part in str(new).split(";")) if "; " in str(new) else str(new)
            lines += [f"{phrase('godot4_form', language)}{cited}", "```gdscript", code.rstrip(), "```"]
            if note:
                lines.append(f"{phrase('why_inline', language)} {note}")
        else:
            key = "removed_in_4" if change.get("change_type") == "removed" else "no_one_line"
            lines.append(phrase(key, language, note=f" ({note})" if note else "") + cited)
        quotes = [(rid, docs_gist(ref, limit=400)) for rid in _docs_of_line(change["chunk"], change["line"])
                  if (ref := inp.evidence.get(rid)) is not None and ref.table == "docs_chunks" and ref.content]
        for rid, gist in quotes[:2]:
            if gist:
                lines += [phrase("docs_say", language), f"> {gist}{cites.cite(rid)}"]
    if len(query.changes) > 6:
        lines += ["", phrase("more_changes", language, n=len(query.changes) - 6)]
    return FollowupAnswer(_with_sources(lines[1:], cites, language),
                          list(dict.fromkeys(str(c["chunk"]["chunk_id"]) for c in query.changes)))


def line_answer(query: FollowupQuery, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """A line with no change: say so, then explain the chunk it belongs to."""
    chunk = query.chunks[0]
    path = str(chunk.get("source_file") or "")
    path = "snippet.gd" if path.startswith("pasted://") else path
    head = phrase("line_no_change", language, line=query.line, path=path,
                  chunk=phrase("in_chunk", language, n=chunk_number_of(chunk), name=chunk.get("name") or "?"))
    inner = explain(chunk, ctx, question, language)
    return FollowupAnswer(head + "\n\n" + inner.text, inner.chunk_ids)


def knowledge_answer(query: FollowupQuery, ctx: FollowupContext, language: str) -> FollowupAnswer | None:
    """A construct the run does not use ("what replaces yield?"): the knowledge base's change rows for it."""
    table = ctx.mappings
    if table is None:
        return None
    for word in query.words:
        rows = [r for r in table.named([word, word.lstrip("@")]) if r.documents_a_change and not r.derived]
        rows = rows or [r for r in table.named([word]) if r.status != "rejected"]
        if not rows:
            continue
        pool = dict(_input(ctx, "", language).evidence)
        for r in rows[:4]:
            pool.setdefault(r.mapping_id, EvidenceRef(
                evidence_id=r.mapping_id, table="api_mapping", title=r.hit.title or r.mapping_id,
                url=r.hit.metadata.get("docs_url") or r.hit.metadata.get("source_url"),
                source_api=r.source_api, target_api=r.target_api))
        cites = Citations(pool)
        lines = [phrase("kb_not_in_run", language, name=word), ""]
        for r in rows[:4]:
            key = "kb_renamed" if r.target_api else "kb_gone"
            lines.append("- " + phrase(key, language, old=r.source_api, new=r.target_api or "",
                                       kind=r.change_type.replace("_", " ")) + cites.cite(r.mapping_id))
        return FollowupAnswer(_with_sources(lines, cites, language))
    return None


async def answer_followup(question: str, report: Mapping[str, Any], *, chunk_texts: Mapping[str, str] | None = None,
                          retrieve: RetrieveFn | None = None, ctx: FollowupContext | None = None) -> FollowupAnswer:
    """Answer from the stored run (see module docstring); `retrieve` is a sync Retriever.retrieve."""
    ctx = ctx or FollowupContext(report=report, chunk_texts=chunk_texts or {}, retrieve=retrieve)
    language = _language(question, report)
    query = resolve(question, report, ctx.chunk_texts, ctx.history)
    return await asyncio.to_thread(answer_query, query, ctx, question, language)


def answer_query(query: FollowupQuery, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """The reply for a resolved follow-up: specific whenever the question named something the run holds."""
    report = ctx.report
    if query.number is not None:
        return FollowupAnswer(phrase("which_chunk", language, total=len(report.get("chunks") or [])))
    if query.target == "kb":
        return knowledge_answer(query, ctx, language) or general(report, language)
    chunks = query.chunks
    if query.changes and (query.target in ("construct", "line") or query.want == "replace"):
        return changes_answer(query, ctx, question, language)
    if query.target == "line" and chunks:
        return line_answer(query, ctx, question, language)
    if query.target == "construct" and not query.changes:
        head = phrase("name_no_change", language, name=query.construct)
        if not chunks:
            return FollowupAnswer(head)
        inner = explain(chunks[0], ctx, question, language)
        return FollowupAnswer(head + "\n\n" + inner.text, inner.chunk_ids)
    if chunks and query.want == "code":
        return godot4_code(chunks, ctx, language)
    if chunks and (query.target in ("file", "whole") or query.want == "why" and len(chunks) > 1):
        return why_flagged(chunks, ctx, question, language)
    if chunks:
        return explain(chunks[0], ctx, question, language)
    return general(report, language)


def general(report: Mapping[str, Any], language: str) -> FollowupAnswer:
    """No chunk named: the verdict, the flagged chunks, and how to ask about one."""
    verdict = report.get("verdict") or {}
    label = verdict.get("label") or "ambiguous"
    flagged = [c for c in report.get("chunks") or [] if is_flagged(c)]
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
        mappings=await asyncio.to_thread(mapping_table_for, retriever) if retriever is not None else None,
        dimension=detect_project_dimension(chunks), history=list(history or []),
    )


async def answer_for_run(service: Any, run_id: str, question: str, history: list[tuple[str, str]] | None = None,
                         on_token: Callable[[str], Any] | None = None) -> FollowupAnswer:
    """Answer a follow-up about a stored run through an `AnalysisService`; `history` is the thread's memory.

    A question about no chunk in particular goes to the answer organiser when an LLM is configured
    (it sees the conversation and streams through `on_token`); everything else is answered here.
    """
    ctx = await followup_context(service, run_id, question, history)
    query = resolve(question, ctx.report, ctx.chunk_texts, ctx.history)
    settings = service.settings
    if query.target == "none" and settings.llm_base_url and not wants_code(question):
        from agent.answer import answer_run

        answer = await answer_run(service.store, ctx.report, settings=settings, retriever=service.retriever,
                                  prompt=question, history=ctx.history, dimension=ctx.dimension, on_token=on_token)
        return FollowupAnswer(answer.markdown, [], answer.suggested_code, answer.validation_failures)
    return await asyncio.to_thread(answer_query, query, ctx, question, _language(question, ctx.report))
