"""Gone members: uses of what only 3.4 documents (api_mapping rows the API index derived), receiver resolved.

A derived row says a name is gone, not what replaces it, so it counts only where the receiver's 3.4 class
has the member and its 4.x class lacks it; an unresolved use counts weakly, where no 4.x class has the
name in that role. A class only 3.4 documents counts by name and through objects typed as it.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, type_label
from agent.judge.findings.common import (GLOBAL_SCOPES, MAX_USES_PER_RULE, MEMBER_USE, ROLE_KINDS, CodeFacts,
                                         FindContext, Finding, line_of, own_name, project_declares)
from agent.judge.project import ProjectContext
from agent.retrieve.mapping_table import MappingRow
from agent.judge.receivers import receiver_type, role_at
from agent.judge.snippets import receiver_start
from agent.judge.syntax_rules import declared_variables


def find(ctx: FindContext) -> list[Finding]:
    """Godot 3 API findings (strong on a resolved receiver, one weak per row otherwise)."""
    return _derived_findings(ctx.facts, ctx.mapping_rows, ctx.project, ctx.chunk_file)


def _derived_findings(facts: CodeFacts, rows: list[MappingRow], project: ProjectContext | None,
                      chunk_file: str = "") -> list[Finding]:
    """Uses of what only 3.4 documents (api_mapping rows derived from the API index), receiver resolved.

    Resolved to a 3.4 type that has the member and whose 4.x counterpart lacks it: a Godot 3 finding.
    Unresolved, where no 4.x class defines a member of that name in that role: a weak one.
    """
    api = project.api if project else None
    if api is None or facts.scope is None:
        return []
    masked = facts.lexed.masked
    strong: list[Finding] = []
    weak_ones: list[Finding] = []
    taken: set[int] = set()  # a use is one item, whichever row (Array.empty, Dictionary.empty) claims it
    local_names = declared_variables(masked)
    for row in rows:
        hit, source = row.hit, row.source_api
        if not row.derived or row.status == "rejected" or row.documented_in_godot4:
            continue
        if "." not in source:
            strong.extend(_removed_class_uses(facts, project, hit, source, taken, chunk_file))
            continue
        owner, member = source.rsplit(".", 1)
        if member == owner:
            continue  # `Vector2.Vector2` is a constructor: 4.x lists those apart, and the class row decides
        roles = row.roles or ()
        first_weak: Finding | None = None
        uses = 0
        for m in re.finditer(rf"(?<![\w$%@]){re.escape(member)}\b", masked):
            if m.start() in taken:
                continue
            role = "constant" if re.fullmatch(r"[A-Z][A-Z0-9_]+", member) else role_at(masked, m.end())
            if role not in roles:
                continue
            b = m.start() - 1
            while b >= 0 and masked[b] in " \t":
                b -= 1
            before = masked[max(0, b - 5) : b + 1]
            if (b < 0 or masked[b] != ".") and (member in facts.declared or member in local_names):
                continue  # the script's own name, or a parameter or local (`func f(pressed: bool)`), used bare
            if b >= 0 and masked[b] == ".":
                receiver = receiver_type(facts.lexed.text, masked, b, facts.scope)
                if own_name(facts, member, receiver):
                    continue
            elif re.search(r"\b(func|var|const|signal)$", before):
                continue  # the script declares this name itself
            elif role == "constant":
                receiver = None
            elif owner in GLOBAL_SCOPES:
                if any(api.lookup(V4, g, member, ROLE_KINDS.get(role)) for g in GLOBAL_SCOPES):
                    continue
                known = project.declared.get(chunk_file) if chunk_file else None
                if known is not None and member in known:
                    continue  # the script's own `parse_json()`
                receiver = None
            elif role == "call" and any(api.lookup(v, g, member, ("method",)) for v in (V3, V4)
                                        for g in GLOBAL_SCOPES):
                continue  # a bare `load(path)` is the global function in both versions, never a class's `load`
            else:
                receiver = facts.scope.own_class  # a bare call or property: the script's own class
            own_use = receiver is not None and receiver == facts.scope.own_class and (
                b < 0 or masked[b] != "." or masked[max(0, b - 4) : b].strip() == "self")
            if receiver is None and owner in GLOBAL_SCOPES and masked[b:b + 1] != "." and (
                    role != "constant" or project is not None and not project_declares(project, member)):
                weak = False  # a bare `parse_json()` or `JOY_ANALOG_L2` that no 4.x global scope has (nor the project)
            elif receiver is not None:
                if not api.has_class(V3, receiver) or not api.is_a(V3, receiver, owner):
                    continue
                if api.has_class(V4, receiver) and api.lookup(V4, receiver, member, ROLE_KINDS.get(role)):
                    continue
                if not own_use and api.defined_below(V4, receiver, member, ROLE_KINDS.get(role)):
                    continue  # `get_viewport().get_size()`: the Viewport is a Window at run time, which has it
                if api.named_by_another_node(V4, receiver, member, ROLE_KINDS.get(role)):
                    continue  # `$Light.shadow_color`: a Godot 4 node named Light may be a PointLight2D
                # the script's own names: only a project that shows the whole script rules out its own function
                known = project.declared.get(chunk_file) if project and chunk_file else None
                weak = own_use and known is None
                if own_use and known is not None and member in known:
                    continue
            else:
                if api.defined_anywhere(V4, member, ROLE_KINDS.get(role)):
                    continue
                weak = True
            found = Finding("godot3", "api", source, facts.lexed.text[m.start() : m.end()].strip(),
                            line_of(masked, m.start()), mapping=hit, start=m.start(), weak=weak,
                            receiver=type_label(receiver) if receiver else None)
            if weak:
                first_weak = first_weak or found
                continue
            taken.add(m.start())
            strong.append(found)  # every use on a known receiver is its own item
            uses += 1
            if uses == MAX_USES_PER_RULE:
                break
        if not uses and first_weak is not None and all(w.start != first_weak.start for w in weak_ones):
            weak_ones.append(first_weak)  # no resolved use: one weak finding says it once
    decided = {f.name.rsplit(".", 1)[-1] for f in strong}
    return strong + [f for f in weak_ones
                     if f.name.rsplit(".", 1)[-1] not in decided and f.start not in taken]


def _removed_class_uses(facts: CodeFacts, project: ProjectContext, hit, name: str,
                        taken: set[int], chunk_file: str) -> list[Finding]:
    """Uses of a class only 3.4 documents that no rename table maps (`WebSocketClient`, `Geometry`),
    by name or through an object of it (`client.poll()` with `var client: WebSocketClient` above).

    A converter rename of the class (`Particles` -> `GPUParticles3D`) is found by `renamed_members`
    and says more; the same use is then left to it. A class the project declares is its own.
    """
    api = project.api
    own = project.declared.get(chunk_file) or ()
    if name in facts.declared or name in project.class_names or name in own \
            or not api.only_in_3(name) or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    uses = []
    for m in re.finditer(rf"(?<![\w.$%@]){re.escape(name)}\b(?:\s*\.\s*([A-Za-z_]\w*))?", masked):
        if m.group(1) and m.group(1) != "new" and api.lookup(V3, name, m.group(1)) is None:
            continue  # `Geometry.distance()`: an autoload's own function, not the 3.4 class's
        uses.append((m.start(), name))
    objects: set[str] = set()
    for m in MEMBER_USE.finditer(masked) if facts.scope is not None else ():
        if receiver_type(text, masked, m.start(), facts.scope) == name and api.lookup(V3, name, m.group(1)):
            start = receiver_start(text, masked, m.start())
            if text[start : m.start()].strip() not in objects:  # each object once: its first use
                objects.add(text[start : m.start()].strip())
                uses.append((start, text[start : m.end()].strip()))
    out: list[Finding] = []
    for start, used in sorted(uses):
        if start in taken:
            continue
        taken.add(start)
        out.append(Finding("godot3", "api", name, used, line_of(masked, start), mapping=hit, start=start))
        if len(out) == MAX_USES_PER_RULE:
            break
    return out


