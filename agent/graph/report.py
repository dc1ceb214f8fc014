"""The report of a run: one typed model (`Report`), built once from the score DB.

`Report.to_dict()` is the CLI's `--format json` object (a fixed contract: scripts parse it)
and the web UI's report; `Report.to_json()` is the CLI's stdout line; `render_text` is the
`--format text` view; the Discord bot formats the model (bot/format.py). Required keys
come first; the extra keys after them (migration_items, project_signals, direct_answer,
prompt, intent, ...) are additions that scripts may ignore.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from agent.graph.verdict import compute_verdict, direct_answer, migration_items
from agent.knowledge import knowledge_line
from agent.models import RetrievalHit
from agent.runs import RunStore
from agent.runs.store import jsonable

# Stored chunk status -> the CLI's done|pending|failed.
_CLI_STATUS = {"done": "done", "failed": "failed"}


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Evidence and suggested changes are stored as jsonb, which orders an object's keys by length,
# then bytes; the report has always printed them in that order, so the models keep it.


class Evidence(_Part):
    """One retrieved record as the report shows it (docs fields and api_mapping fields side by side)."""

    match: list[str] = []
    """Which searches found it: exact, keyword, trigram, vector."""
    score: float
    table: str
    title: str
    symbol: str | None = None
    record_id: str
    source_api: str | None = None
    source_url: str | None = None
    target_api: str | None = None
    doc_version: str | None = None
    """Which docs a docs chunk quotes: "3.4" or the 4.x corpus's version (None for other tables)."""


class Change(_Part):
    """One suggested change of a judgment: old -> new, with the evidence behind it."""

    new: str | None
    old: str
    note: str = ""
    docs_url: str | None = None
    change_type: str
    evidence_id: str
    old_docs_url: str | None = None
    """The Godot 3.4 page of what the code uses, beside `docs_url` (the 4.x page of what replaces it)."""


class JudgmentView(_Part):
    """A chunk's validated judgment (agent.models.Judgment) as the report shows it."""

    version_signal: str
    label: str
    migration_required: bool
    confidence: float
    rationale: str
    evidence_ids: list[str]
    suggested_changes: list[Change] = []
    suggested_code: str | None = None
    strength: str | None = None
    """decisive | strong | weak: how much the signal weighs in its file's verdict (None when neutral)."""


class ChunkReport(_Part):
    """One chunk: where it is, where it stands, what was found and how it was judged."""

    chunk_id: str
    chunk_order: int
    source_file: str
    chunk_kind: str
    start_line: int
    end_line: int
    status: str
    """done | pending | failed (the contract's three states)."""
    attempts: int
    completed_at: str | None
    query_terms: list[str]
    evidence: list[Evidence]
    judgment: JudgmentView | None
    state: str
    """The stored status: pending | processing | stopped | waiting | done | failed."""
    name: str | None
    error: str | None
    judge_kind: str | None
    model: str | None
    fallback_reason: str | None
    validation_failures: list[str]


class MissingChunk(_Part):
    """A chunk that is not done, named in a withheld verdict."""

    chunk_id: str
    source_file: str
    start_line: int
    end_line: int
    status: str | None
    error: str | None


class Counts(_Part):
    """Done chunks per version signal."""

    godot3: int
    godot4: int
    neutral: int


class Leftover(_Part):
    """A Godot 3 use in the code of a project judged godot4."""

    source_file: str
    start_line: int
    end_line: int
    chunk_id: str
    why: str = ""


class FileNote(_Part):
    """A note on one file that does not change the verdict."""

    source_file: str
    note: str


class Verdict(_Part):
    """The project verdict (withheld as ambiguous, complete=false, until every chunk is done)."""

    label: str
    migration_required: bool
    counts: Counts
    summary: str
    complete: bool = False
    missing: list[MissingChunk] = []
    basis: str = ""
    """What decided the label (`agent.graph.verdict.decide_project`): decisive scripts, config_version, ..."""
    leftovers: list[Leftover] = []
    """Godot 3 uses left in a Godot 4 project's code: file, lines and why, to check by hand."""
    notes: list[FileNote] = []
    """Files that say something without deciding (scenes a Godot 4 project never re-saved)."""
    godot3_files: list[str] = []
    """Scripts only Godot 3 loads (what makes a project mixed)."""
    godot4_files: list[str] = []


class FileEntry(_Part):
    """An analysed file."""

    path: str
    kind: str
    sha256: str | None
    chunks: int


class ExcludedFile(_Part):
    """A file left out, with the reason."""

    path: str
    reason: str | None


class MigrationItem(_Part):
    """One change to make: where, old -> new, and the evidence behind it."""

    source_file: str
    start_line: int
    end_line: int
    line: int = 0
    """The file's own line where `old` is written (within start_line..end_line)."""
    old: str | None
    new: str | None
    docs_url: str | None
    evidence_id: str | None
    old_docs_url: str | None = None
    """The Godot 3.4 page of what the code uses (the 4.x replacement is `docs_url`)."""
    change_type: str | None = None
    """`rename`, `removed`, `syntax_change`, ... (a chunk without suggested changes: its judgment label)."""


class MigrationChange(_Part):
    """A migration item as the direct answer lists it, with its change type and chunk."""

    source_file: str
    start_line: int
    end_line: int
    line: int = 0
    """The file's own line where `old` is written (within start_line..end_line)."""
    old: str | None
    new: str | None
    change_type: str | None
    docs_url: str | None
    evidence_id: str | None
    chunk_id: str
    old_docs_url: str | None = None


class DirectAnswer(_Part):
    """A short answer for a single pasted snippet, with the suggested code."""

    answer: str
    label: str | None
    migration_required: bool
    suggested_code: str | None
    changes: list[MigrationChange]


class Progress(_Part):
    """Chunk counts."""

    done: int
    failed: int
    total: int


class KnowledgeState(_Part):
    """The knowledge base as the run started: rows with a vector out of all rows (agent/knowledge.py)."""

    complete: bool
    embedded: int
    total: int


class Report(_Part):
    """A run's report; `to_dict()` is the CLI JSON contract."""

    run_id: str
    project_id: str
    status: str
    """completed | interrupted | failed | running."""
    verdict: Verdict
    files: list[FileEntry]
    excluded_files: list[ExcludedFile]
    chunks: list[ChunkReport]
    status_detail: str
    owner: str | None
    source: str | None
    source_origin: str | None
    judge: str | None
    created_at: str | None
    finished_at: str | None
    prompt: str
    intent: dict[str, Any] | None
    project_signals: dict[str, Any]
    migration_items: list[MigrationItem]
    progress: Progress
    direct_answer: DirectAnswer | None = None
    """Only for a pasted snippet (the key is absent otherwise)."""
    answer: dict[str, Any] | None = None
    """The answer step's reply to the user's question (`agent.answer.Answer` as JSON; absent until written)."""
    migration: dict[str, Any] | None = None
    """The validated Godot 4 code per file (`agent.migrate.ProjectMigration` as JSON; absent when nothing needed it)."""
    knowledge: KnowledgeState | None = None
    """Only for a run made while the knowledge base's vectors were still filling in (partial evidence): its
    progress when the run started. Absent when the knowledge base was complete (or for runs older than that)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready dict of the CLI contract."""
        out = self.model_dump(mode="json")
        for optional in ("direct_answer", "answer", "migration", "knowledge"):
            if out[optional] is None:
                del out[optional]
        return out

    def to_json(self) -> str:
        """The CLI's `--format json` line (without the newline)."""
        return json.dumps(self.to_dict(), ensure_ascii=False)


def evidence_view(hit: RetrievalHit) -> dict[str, Any]:
    """One evidence entry as stored per chunk and shown in the report."""
    md = hit.metadata or {}
    return {
        "table": hit.table,
        "record_id": hit.record_id,
        "title": hit.title,
        "score": round(float(hit.score), 6),
        "symbol": md.get("symbol"),
        "source_url": md.get("source_url"),
        "doc_version": md.get("doc_version"),
        "source_api": md.get("source_api"),
        "target_api": md.get("target_api"),
        "match": list(hit.match),
    }


def run_status(run: dict[str, Any], live: bool) -> str:
    """completed | interrupted | failed | running (running only while a process holds the run)."""
    status = run["status"]
    if status == "running" and not live:
        return "interrupted"
    return status


def chunk_report(row: dict[str, Any], run_state: str) -> ChunkReport:
    """One chunk of the report from its score-DB row."""
    raw = row["status"]
    if raw == "processing" and run_state == "interrupted":
        raw = "stopped"
    return ChunkReport(
        chunk_id=row["chunk_id"], chunk_order=row["chunk_order"], source_file=row["source_file"],
        chunk_kind=row["chunk_kind"], start_line=row["start_line"], end_line=row["end_line"],
        status=_CLI_STATUS.get(raw, "pending"), attempts=row["attempts"], completed_at=jsonable(row["completed_at"]),
        query_terms=list(row.get("query_terms") or []), evidence=row.get("evidence") or [],
        judgment=row.get("judgment") or None, state=raw, name=row.get("name"), error=row.get("error"),
        judge_kind=row.get("judge_kind"), model=row.get("model"), fallback_reason=row.get("fallback_reason"),
        validation_failures=row.get("validation_failures") or [],
    )


async def build_report(store: RunStore, run_id: str, *, live: bool | None = None) -> Report:
    """The report of a run from the DB; raises KeyError for an unknown run."""
    run = await store.get_run(run_id)
    if run is None:
        raise KeyError(run_id)
    if live is None:
        live = await store.is_live(run_id) if run["status"] == "running" else False
    files = await store.files(run_id)
    rows = await store.chunk_rows(run_id)
    state = run_status(run, live)
    signals = run.get("project_signals") or {}
    # a completed run keeps the verdict it stored; any other run shows where it stands now
    verdict = run.get("verdict") if state == "completed" and run.get("verdict") else None
    verdict = verdict or compute_verdict(rows, files, signals)
    migration = (run.get("verdict") or {}).get("migration")  # written by the answer node (agent.migrate)
    chunks = [chunk_report(r, state) for r in rows]
    if migration:
        _code_from_migration(chunks, migration)
    answer = None
    if run.get("source_origin") == "pasted_snippet":
        answer = direct_answer(await store.file_text(run_id) or "", rows, verdict)
        if migration and answer is not None:  # the snippet's code is the engine's, validated, or none
            gd = [f for f in migration.get("files") or [] if f.get("kind") == "gdscript"]
            whole = gd[0] if len(gd) == 1 and gd[0].get("status") == "migrated" else None
            answer = {**answer, "suggested_code": whole.get("migrated") if whole else None}
    return Report(
        run_id=run_id,
        project_id=run["project_id"],
        status=state,
        verdict=Verdict(
            label=verdict["label"], migration_required=verdict["migration_required"], counts=verdict["counts"],
            summary=verdict["summary"], complete=verdict.get("complete", False), missing=verdict.get("missing", []),
            **{k: verdict[k] for k in ("basis", "leftovers", "notes", "godot3_files", "godot4_files") if k in verdict},
        ),
        files=[FileEntry(path=f["path"], kind=f["kind"], sha256=f["sha256"], chunks=int(f["chunks"]))
               for f in files if f["included"]],
        excluded_files=[ExcludedFile(path=f["path"], reason=f["reason"]) for f in files if not f["included"]],
        chunks=chunks,
        status_detail=run.get("status_detail") or "",
        owner=run.get("owner"),
        source=(run.get("source") or {}).get("source_file"),
        source_origin=run.get("source_origin"),
        judge=run.get("judge_kind"),
        created_at=jsonable(run.get("created_at")),
        finished_at=jsonable(run.get("finished_at")),
        prompt=run.get("prompt") or "",
        intent=run.get("intent"),
        project_signals=signals,
        migration_items=[MigrationItem(**{k: it[k] for k in MigrationItem.model_fields}) for it in migration_items(rows)],
        progress=Progress(
            done=sum(1 for r in rows if r["status"] == "done"),
            failed=sum(1 for r in rows if r["status"] == "failed"),
            total=len(rows),
        ),
        direct_answer=answer,
        answer=(run.get("verdict") or {}).get("answer"),  # written by the answer node (agent.answer)
        migration=migration or None,
        knowledge=_partial(run.get("knowledge")),
    )


def _partial(knowledge: dict[str, Any] | None) -> dict[str, Any] | None:
    """The stored knowledge state when it was partial; a complete one adds nothing a reader must know."""
    return knowledge if knowledge and not knowledge.get("complete", True) else None


def _code_from_migration(chunks: list[ChunkReport], migration: dict[str, Any]) -> None:
    """Each chunk's suggested code is its span of the migrated file (or none where the engine left a TODO or
    found nothing to change): a chunk and its file never disagree."""
    by_file = {f["path"]: f for f in migration.get("files") or [] if f.get("kind") == "gdscript"}
    for c in chunks:
        f = by_file.get(c.source_file)
        if f is None or c.judgment is None:
            continue
        hunk = next((h for h in f.get("hunks") or [] if h["start_line"] == c.start_line), None)
        code = None
        if hunk is not None and hunk["status"] == "migrated" and f.get("migrated"):
            lines = f["migrated"].split("\n")
            code = "\n".join(lines[hunk["new_start_line"] - 1 : hunk["new_end_line"]])
        c.judgment = c.judgment.model_copy(update={"suggested_code": code})


def migration_line(migration: dict[str, Any], language: str = "en") -> str:
    """One line on a run's migration: files changed, edits, TODOs, and how much of what was flagged was written."""
    from agent.answer.phrases import phrase

    s = migration.get("summary") or {}
    return phrase("migration_line", language, files=s.get("files_changed", 0), edits=s.get("edits", 0),
                  todos=s.get("todos", 0), complete=s.get("complete", 0), flagged=s.get("flagged", 0))


def render_text(report: Report | dict[str, Any]) -> str:
    """A human-readable report for `--format text`: the checked answer the JSON holds, in its language, first.

    The run line and the chunk table are the CLI's own fields (ids, states, labels), the same in every
    language; the English verdict summary is printed only when there is no answer to speak for the run.
    """
    r = report if isinstance(report, Report) else Report.model_validate(report)
    v = r.verdict
    language = (r.answer or {}).get("language") or "en"
    lines = [
        f"run {r.run_id}  project {r.project_id}  status {r.status}",
        f"verdict: {v.label}  migration required: {'yes' if v.migration_required else 'no'}  "
        f"counts: godot3={v.counts.godot3} godot4={v.counts.godot4} neutral={v.counts.neutral}",
    ]
    if partial := knowledge_line(r.knowledge.model_dump() if r.knowledge else None, language):
        lines += ["", partial]
    if r.answer and r.answer.get("markdown"):  # the checked reply, with its code only if that code passed
        lines += ["", str(r.answer["markdown"]).rstrip()]
    else:
        lines += ["", v.summary]
        if r.direct_answer:
            lines += ["", f"answer: {r.direct_answer.answer}"]  # its unchecked code is never printed
    if r.migration and not (r.answer and r.answer.get("markdown")):  # the answer says it, in its language
        lines += ["", "godot 4: " + migration_line(r.migration, language)
                  + " (`godot-rag migrate SOURCE --out DIR` / `--patch FILE`)"]
    lines += ["", "chunks:"]
    for c in r.chunks:
        j = c.judgment
        where = f"{c.source_file}:{c.start_line}-{c.end_line}"
        verdict = f"{j.version_signal} {j.label}" if j else (c.error or "")
        lines.append(f"  [{c.state:<10}] {where:<40} {c.chunk_kind:<18} {verdict}")
    return "\n".join(lines)
