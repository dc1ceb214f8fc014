"""Members named by a string (`get_tree().call_deferred("change_scene", p)`, `set("rect_size", s)`).

The name is in a string, so no rename row's pattern sees it: here the receiver decides, and the mapping is
the converter's rename of the member, else the derived row that says it is gone.
"""

from __future__ import annotations

from agent.apiindex import V3, V4, type_label
from agent.judge.findings.common import ROLE_KINDS, CodeFacts, FindContext, Finding, in_scope, line_of
from agent.judge.project import ProjectContext
from agent.retrieve.mapping_table import MappingRow
from agent.judge.receivers import receiver_type


def find(ctx: FindContext) -> list[Finding]:
    """Godot 3 API findings, one per string that names a member the receiver's 4.x class lacks."""
    return _named_findings(ctx.facts, ctx.mapping_rows, ctx.project, ctx.chunk_file)


def _named_findings(facts: CodeFacts, rows: list[MappingRow], project: ProjectContext | None,
                    chunk_file: str = "") -> list[Finding]:
    """Members named by a string (`get_tree().call_deferred("change_scene", p)`, `set("rect_size", s)`).

    Only on a receiver the code makes known, an Object whose 3.4 class documents the member in that role
    and whose 4.x class lacks it; a bare call counts only where the project shows the whole script and it
    declares no function of that name. The mapping is the converter's rename, else the derived row.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not facts.named or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    out: list[Finding] = []
    for use in facts.named:
        if use.name in facts.declared:
            continue
        if use.dot >= 0:
            receiver = receiver_type(text, masked, use.dot, facts.scope)
        else:
            known = project.declared.get(chunk_file) if chunk_file else None
            receiver = facts.scope.own_class if known is not None and use.name not in known else None
        kinds = ROLE_KINDS[use.role]
        if receiver is None or not api.has_class(V3, receiver) or not api.is_a(V3, receiver, "Object"):
            continue
        old = api.lookup(V3, receiver, use.name, kinds)
        if old is None or (api.has_class(V4, receiver) and api.lookup(V4, receiver, use.name, kinds)):
            continue
        if use.dot >= 0 and api.defined_below(V4, receiver, use.name, kinds):
            continue
        row = _mapping_of(rows, (use.name, f"{old.class_name}.{use.name}"), use.role, project, receiver)
        if row is None:
            continue
        hit = row.hit
        out.append(Finding("godot3", "api", row.source_api,
                           text[use.quote : use.quote + len(use.name) + 2], line_of(masked, use.call), mapping=hit,
                           start=use.call, receiver=type_label(receiver), named_at=use.quote))
    return out


def _mapping_of(rows: list[MappingRow], sources: tuple[str, ...], role: str, project: ProjectContext | None,
                receiver: str) -> MappingRow | None:
    """The first mapping of one of `sources` (in that order) in the evidence that applies in `role` on `receiver`."""
    for source in sources:
        for row in rows:
            if row.source_api != source or not row.documents_a_change:
                continue
            if (row.roles is None or role in row.roles) and in_scope(project, receiver, row, role):
                return row
    return None


