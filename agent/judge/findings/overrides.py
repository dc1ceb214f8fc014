"""Overrides of engine callbacks only one version declares (`func get_drag_data(position)` vs `_get_drag_data`).

The engine calls virtual methods by name, so a 3.4 callback left unrenamed silently stops running in 4.x:
a Godot 3 finding. A 4.x-only callback is a Godot 4 cue.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4
from agent.judge.findings.common import CodeFacts, FindContext, Finding, line_of
from agent.judge.project import ProjectContext
from agent.retrieve.mapping_table import MappingRow


def find(ctx: FindContext) -> list[Finding]:
    """Godot 3 findings, then Godot 4 cues (each carries its `version`; the orchestrator routes them)."""
    old_only, new_only = _override_findings(ctx.facts, ctx.mapping_rows, ctx.project, ctx.chunk_file)
    return old_only + new_only


_FUNC_HEAD = re.compile(r"^[ \t]*(?:static\s+)?func\s+([A-Za-z_]\w*)\s*\(", re.M)
_VIRTUAL = re.compile(r"\)[\w\s]*\bvirtual\b[\w\s]*$")


def _override_findings(facts: CodeFacts, rows: list[MappingRow], project: ProjectContext | None,
                       chunk_file: str = "") -> tuple[list[Finding], list[Finding]]:
    """Overrides of engine callbacks one version has: (Godot 3 findings, Godot 4 cues).

    `func get_drag_data(position)` in a Control script overrides a callback only 3.4 declares; the
    engine calls virtual methods by name, so in 4.x (which calls `_get_drag_data`) it silently stops
    running. `func _get_drag_data(at_position)` is the 4.x override, a Godot 4 cue. Only the script's
    resolved class counts, only when 4.x documents that class (absence is then proof), and a script
    that also declares the 4.x callback keeps its old name as a helper of its own, as does a script
    written in GDScript 2 (`func drop_data(at_position: Vector2, data)` next to `@tool`) and a static func.
    """
    api = project.api if project else None
    own = facts.scope.own_class if facts.scope else None
    if api is None or own is None or not api.complete_v4 or not (api.has_class(V3, own) and api.has_class(V4, own)):
        return [], []
    known = project.declared.get(chunk_file) or set() if chunk_file else set()
    old_only: list[Finding] = []
    new_only: list[Finding] = []
    masked = facts.lexed.masked
    for m in _FUNC_HEAD.finditer(masked):
        name, line = m.group(1), line_of(masked, m.start(1))
        old = api.lookup(V3, own, name, ("method",))
        new = api.lookup(V4, own, name, ("method",))
        if new is not None and old is None and _VIRTUAL.search(new.signature):
            new_only.append(Finding("godot4", "api", f"{new.class_name}.{name} (4.x callback)", name, line,
                                    start=m.start(1), receiver=own))
        if old is None or new is not None or not _VIRTUAL.search(old.signature):
            continue
        if chunk_file in project.gdscript2 or re.match(r"[ \t]*static\b", m.group(0)):
            continue  # a Godot 4 script's own method (the engine calls no static func back)
        source = f"{old.class_name}.{name}"
        row = next((r for r in rows if r.source_api == source and r.status != "rejected"), None)
        target = str(row.target_api or "").rsplit(".", 1)[-1] if row else ""
        if row is not None and target not in known:
            old_only.append(Finding("godot3", "api", source, name, line, mapping=row.hit, start=m.start(1),
                                    receiver=own))
    return old_only, new_only


