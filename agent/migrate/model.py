"""The migration's records: one `FileMigration` per file, one `ProjectMigration` per run or target.

Serialised once (the report JSON's `migration`, `godot-rag migrate --format json`); each front door formats it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.models import SuggestedChange

TODO_TAG = "TODO(godot-rag)"
"""Marks what the migration left for a person; a second migration leaves it as it is."""

FileKind = Literal["gdscript", "scene", "resource", "project_config", "shader"]
FileStatus = Literal["migrated", "todo", "unchanged", "skipped"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MigrationTodo(_Model):
    """One thing left unchanged for a person: where (a line of the migrated file), why, and the docs."""

    line: int
    reason: str
    docs_url: str | None = None


class MigrationHunk(_Model):
    """One span the migration rewrote or marked, traced to its items and their evidence."""

    start_line: int
    end_line: int
    """The original lines (1-based, inclusive)."""
    new_start_line: int
    new_end_line: int
    """The same span in the migrated file (its TODO comments included)."""
    name: str | None = None
    status: Literal["migrated", "todo"]
    items: list[SuggestedChange] = Field(default_factory=list)
    evidence_ids: list[str] = Field(default_factory=list)
    why: str | None = None
    """For a `todo` hunk: why no complete Godot 4 form was written (`a removed member left: is_active`)."""


class FileMigration(_Model):
    """One file's migration: validated before anyone sees it (`failures` says what fell back, and why)."""

    path: str
    kind: FileKind
    status: FileStatus
    """migrated: changed and complete; todo: holds TODOs (and maybe changes); unchanged; skipped (`reason`)."""
    new_path: str | None = None
    """Where the file goes in Godot 4, when it moves (`x.shader` -> `x.gdshader`); its references follow."""
    reason: str = ""
    migrated: str | None = None
    """The whole Godot 4 file, when it differs from the original."""
    edits: int = 0
    hunks: list[MigrationHunk] = Field(default_factory=list)
    todos: list[MigrationTodo] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)
    """Rewrites that failed validation (a parse error, Godot 3 code left) and went back to the original plus a TODO."""
    flagged: int = 0
    """Spans holding Godot 3 code (the functions and declarations that needed a change)."""
    complete: int = 0
    """Of those, the ones rewritten completely and validated, with no TODO."""


class CopiedFile(_Model):
    """What a migrated copy does with one input file: every input file has one (`ProjectMigration.manifest`)."""

    path: str
    action: Literal["migrated", "renamed", "copied", "left_out"]
    new_path: str | None = None
    reason: str = ""


class MigrationSummary(_Model):
    files: int = 0
    files_changed: int = 0
    files_unchanged: int = 0
    files_skipped: int = 0
    edits: int = 0
    todos: int = 0
    flagged: int = 0
    complete: int = 0
    failures: int = 0


class ProjectMigration(_Model):
    """Every file's migration, in path order, and the counts."""

    files: list[FileMigration] = Field(default_factory=list)
    summary: MigrationSummary = Field(default_factory=MigrationSummary)
    manifest: list[CopiedFile] = Field(default_factory=list)
    """Every input file of a written copy (or zip): migrated, renamed, copied as it is, or left out and why."""
    partial: str | None = None
    """Why the result is partial (no knowledge base: no API index, no mapping rows), when it is."""

    def file(self, path: str) -> FileMigration | None:
        return next((f for f in self.files if f.path == path), None)

    @classmethod
    def of(cls, files: list[FileMigration]) -> ProjectMigration:
        files = sorted(files, key=lambda f: f.path)
        s = MigrationSummary(files=len(files))
        for f in files:
            s.files_changed += f.migrated is not None
            s.files_unchanged += f.status == "unchanged"
            s.files_skipped += f.status == "skipped"
            s.edits += f.edits
            s.todos += len(f.todos)
            s.flagged += f.flagged
            s.complete += f.complete
            s.failures += len(f.failures)
        return cls(files=files, summary=s)
