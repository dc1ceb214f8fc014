"""What the MCP tools return as structured content: the agent's own typed records, wrapped, never rebuilt.

A run's result is the CLI's `Report` (`agent.graph.report`) with its per-chunk detail capped: an agent's
context is small, and the whole report stays one resource read away (`godot-rag://runs/{run_id}`).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent.apilookup import ApiLookup
from agent.gdscript.diagnostics import CheckReport
from agent.graph.report import Report
from agent.migrate.model import ProjectMigration
from agent.retrieve.search import DocHit


def run_uri(run_id: str) -> str:
    """The resource that holds a run's whole report."""
    return f"godot-rag://runs/{run_id}"


class RunResult(BaseModel):
    """A run's report, with at most `chunks_shown` chunks and migration items in it."""

    run_id: str
    report_uri: str
    """Read this resource for every chunk (the report in the CLI's `--format json` shape)."""
    chunks_total: int
    chunks_shown: int
    report: Report


class MigrateResult(BaseModel):
    """The migration engine's validated Godot 4 form of a snippet, a file or a run's project."""

    run_id: str | None = None
    code: str | None = None
    """The migrated text when there is exactly one file (TODO comments mark what was not rewritten)."""
    patch: str = ""
    """A unified diff of every changed file (empty when nothing changed)."""
    migration: ProjectMigration
    """Per file: status, hunks with the evidence behind each edit, TODOs with their reasons."""


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
