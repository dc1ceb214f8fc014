"""What the GDScript 4 checker reports: one `Diagnostic` per problem, with its fix as typed edits.

In the manner of ruff's `Fix`/`Edit`: a fix is byte edits on the script, marked `safe` (the meaning stays:
a rename the converter's tables and the API index both vouch for) or `unsafe` (a person should look).
Serialised once (`CheckReport`, `godot-rag check --format json`, the MCP tool); each front door formats it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["error", "warning"]
Applicability = Literal["safe", "unsafe"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Edit(_Model):
    """Replace bytes [start, end) of the script with `text`."""

    start: int
    end: int
    text: str


class Fix(_Model):
    edits: tuple[Edit, ...]
    applicability: Applicability
    why: str


class Diagnostic(_Model):
    """One thing Godot 4 refuses (`error`) or runs differently from the Godot 3 code it came from."""

    path: str
    line: int
    """1-based."""
    column: int
    """1-based, in characters."""
    rule: str
    message: str
    severity: Severity = "error"
    fix: Fix | None = None
    start: int = Field(default=0, exclude=True)
    """Byte offset of the problem in the script (for matching it to a rewritten span); not serialised."""


class FileCheck(_Model):
    path: str
    diagnostics: list[Diagnostic] = Field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")


class CheckReport(_Model):
    """Every checked script in path order, and the counts."""

    files: list[FileCheck] = Field(default_factory=list)
    lines: int = 0
    errors: int = 0
    warnings: int = 0
    complete_api: bool = True
    """False when the knowledge base's 4.x reference is a subset: names it lacks were not reported."""
    by_rule: dict[str, int] = Field(default_factory=dict)

    @classmethod
    def of(cls, files: list[FileCheck], lines: int, complete_api: bool) -> CheckReport:
        files = sorted(files, key=lambda f: f.path)
        rules: dict[str, int] = {}
        for f in files:
            for d in f.diagnostics:
                rules[d.rule] = rules.get(d.rule, 0) + 1
        errors = sum(f.errors for f in files)
        warnings = sum(len(f.diagnostics) for f in files) - errors
        return cls(files=files, lines=lines, errors=errors, warnings=warnings, complete_api=complete_api,
                   by_rule=dict(sorted(rules.items())))

    def text(self) -> str:
        """The report as a compiler prints it: `path:line:col: error [rule] message`, then the counts."""
        out = []
        for f in self.files:
            for d in f.diagnostics:
                fix = f" (fix, {d.fix.applicability}: {d.fix.why})" if d.fix else ""
                out.append(f"{d.path}:{d.line}:{d.column}: {d.severity} [{d.rule}] {d.message}{fix}")
        out.append(f"{len(self.files)} script(s), {self.lines} lines: {self.errors} error(s), "
                   f"{self.warnings} warning(s)")
        if not self.complete_api:
            out.append("note: the knowledge base's Godot 4 reference is partial; unknown names were not reported")
        return "\n".join(out)
