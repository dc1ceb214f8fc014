"""What the MCP tools return as structured content: the agent's own typed records, wrapped, never rebuilt.

A run's result is a summary of the CLI's `Report` (`agent.graph.report`): the verdict, the counts, each change
(file, line, old -> new, docs URL) and the answer, with no evidence bodies and no chunk texts, since an
agent's context is small. `detail="full"` adds the report with its per-chunk detail capped, and the whole
report stays one resource read away (`godot-rag://runs/{run_id}`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agent.apilookup import ApiLookup
from agent.gdscript.diagnostics import CheckReport
from agent.graph.report import Report
from agent.migrate.model import MigrationSummary, MigrationTodo, ProjectMigration
from agent.retrieve.search import DocHit


def run_uri(run_id: str) -> str:
    """The resource that holds a run's whole report."""
    return f"godot-rag://runs/{run_id}"


class ChangeLine(BaseModel):
    """One change as an agent acts on it. Where the run has a validated migration, `new` is what its code
    holds (None: left for a person, with `why`)."""

    file: str
    line: int
    old: str | None = None
    new: str | None = None
    docs_url: str | None = None
    why: str | None = None


class RunResult(BaseModel):
    """A run in a few hundred bytes per change: the verdict, its counts, the changes and the answer."""

    run_id: str
    report_uri: str
    """Read this resource for every chunk with its evidence (the report in the CLI's `--format json` shape)."""
    status: str
    verdict: str
    """godot3, godot4, mixed or ambiguous."""
    migration_required: bool
    summary: str
    counts: dict[str, int]
    files: int
    chunks_total: int
    changes_total: int
    changes: list[ChangeLine] = Field(default_factory=list)
    answer: str | None = None
    """The answer to the question, in Markdown with its numbered sources."""
    report: dict[str, Any] | None = None
    """With detail="full" only: the report with at most `chunks_shown` chunks and their evidence."""
    chunks_shown: int = 0


def migration_changes(migration: ProjectMigration) -> list[ChangeLine]:
    """Each hunk's items as the code holds them: a migrated hunk's `new`, or None with the TODO's reason."""
    out: list[ChangeLine] = []
    for f in migration.files:
        for h in f.hunks:
            todo = h.status == "todo"
            out += [ChangeLine(file=f.path, line=h.start_line, old=c.old, new=None if todo else c.new,
                               docs_url=c.docs_url, why=h.why if todo else None) for c in h.items]
            if todo and not h.items:
                out.append(ChangeLine(file=f.path, line=h.start_line, old=None, new=None, why=h.why))
    return out


def change_lines(report: Report) -> list[ChangeLine]:
    """The run's changes: the validated migration's (what its code does) where there is one, else the
    judgments' migration items."""
    if report.migration and (out := migration_changes(ProjectMigration.model_validate(report.migration))):
        return out
    return [ChangeLine(file=i.source_file, line=i.line or i.start_line, old=i.old, new=i.new, docs_url=i.docs_url)
            for i in report.migration_items]


class MigratedFile(BaseModel):
    """One file's outcome: its status, its new path if it moved, and what is left for a person."""

    path: str
    status: str
    new_path: str | None = None
    todos: list[MigrationTodo] = Field(default_factory=list)


class MigrateResult(BaseModel):
    """The migration engine's validated Godot 4 form of a snippet, a file or a run's project."""

    run_id: str | None = None
    code: str | None = None
    """The migrated text when there is exactly one file (TODO comments mark what was not rewritten)."""
    patch: str = ""
    """A unified diff of every changed file (empty when nothing changed)."""
    summary: MigrationSummary
    files: list[MigratedFile] = Field(default_factory=list)
    """Files the migration changed or left TODOs in."""
    changes: list[ChangeLine] = Field(default_factory=list)
    migration: dict[str, Any] | None = None
    """With detail="full" only: per file, the hunks with the evidence behind each edit (`ProjectMigration`)."""


def migrate_result(migration: ProjectMigration, *, run_id: str | None, code: str | None, patch: str,
                   full: bool) -> MigrateResult:
    """The migration as an agent reads it: the code or patch, per file what is left, the changes."""
    files = [MigratedFile(path=f.path, status=f.status, new_path=f.new_path, todos=f.todos)
             for f in migration.files if f.migrated is not None or f.new_path or f.todos]
    return MigrateResult(run_id=run_id, code=code, patch=patch, summary=migration.summary, files=files,
                         changes=migration_changes(migration), migration=migration.model_dump(mode="json") if full else None)


class CheckResult(BaseModel):
    """The GDScript 4 checker's report: what Godot 4 refuses, by file and line, with fixes where certain."""

    report: CheckReport


class LookupResult(BaseModel):
    """`agent.apilookup.lookup_api`'s answer."""

    lookup: ApiLookup


class SearchResult(BaseModel):
    """Docs chunks for a query, best first."""

    query: str
    version: str
    hits: list[DocHit] = Field(default_factory=list)


class FollowUpResult(BaseModel):
    """An answer about a stored run (the web chat's follow-up), never a new analysis."""

    run_id: str
    text: str
    """Markdown, with the sources it cites."""
    chunk_ids: list[str] = Field(default_factory=list)
    code: str | None = None
    """A validated Godot 4 version, when one was asked for."""
    validation_failures: list[str] = Field(default_factory=list)
    """Why a Godot 4 version was withheld, if it was."""
