"""Godot 4 cues from the API index: a class only 4.x documents, or a member of a resolved receiver that its
3.4 class (and ancestors) lacks in every role, and that the 3.x engine really lacked (agent/data/changes/
undocumented_3x.json lists what it had without documenting)."""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, type_in
from agent.changes import undocumented_in_34
from agent.judge.findings.common import ROLE_KINDS, CodeFacts, FindContext, Finding, MemberUse, line_of
from agent.judge.project import ProjectContext


def find(ctx: FindContext) -> list[Finding]:
    """The first such use: one Godot 4 cue is enough for a verdict."""
    return _godot4_api_findings(ctx.facts, ctx.project, ctx.member_uses)


_CLASS_USE = re.compile(r"(?<![\w.$%@\"'])([A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*)\b")


def _godot4_api_findings(facts: CodeFacts, project: ProjectContext | None, uses: list[MemberUse]) -> list[Finding]:
    """What only 4.x documents, used in code position: a class 3.4 lacks, or a member of a resolved
    receiver that its 3.4 class (and ancestors) lacks in every role. The first one found is the cue."""
    api = project.api if project else None
    if api is None or not api.complete_v4:
        return []
    masked = facts.lexed.masked
    for m in _CLASS_USE.finditer(masked):
        name = m.group(1)
        if name in facts.declared or name in project.class_names:
            continue
        if api.has_class(V4, name) and not api.has_class(V3, name):
            return [Finding("godot4", "api", f"{name} (4.x class)", name, line_of(masked, m.start()), start=m.start())]
    engine_3x = undocumented_in_34()
    for m, receiver, member, role in uses:
        if api.lookup(V4, receiver, member, ROLE_KINDS.get(role)) is None or api.lookup(V3, receiver, member):
            continue
        if any((c, member) in engine_3x for c in api.chain(V3, type_in(V3, receiver))):
            continue  # the 3.x engine had it; its reference did not say (`node.editor_description`)
        return [Finding("godot4", "api", f"{type_in(V4, receiver)}.{member}", member, line_of(masked, m.start()),
                        start=m.start(), receiver=type_in(V4, receiver))]
    return []


