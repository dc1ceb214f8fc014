"""`&"name"` and `^"path"`: StringName and NodePath literals, which only GDScript 2 writes."""

from __future__ import annotations

from agent.judge.findings.common import FindContext, Finding, line_of


def find(ctx: FindContext) -> list[Finding]:
    """The first such literal: one Godot 4 cue is enough for a verdict."""
    for prefix, content, start in ctx.facts.lexed.strings:
        if prefix in ("&", "^"):
            return [Finding("godot4", "syntax", "stringname_literal", f'{prefix}"{content}"',
                            line_of(ctx.facts.lexed.masked, start))]
    return []
