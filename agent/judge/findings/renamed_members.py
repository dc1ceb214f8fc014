"""Renamed members: uses of an old name a retrieved curated or converter api_mapping row renames.

A row applies in its table's role only (a signal rename to signal uses, a property rename to property
access), and not where the receiver resolves to a type Godot 4 still defines the member on. Rows the API
index derived (what only 3.4 documents) are `gone_members`' to judge.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, type_label
from agent.gdscript.checker import certain_rename
from agent.judge.findings.common import (MAX_USES_PER_RULE, ROLE_KINDS, CodeFacts, FindContext, Finding, in_scope, is_dictionary, line_of, own_name,
                                         project_declares)
from agent.judge.project import ProjectContext
from agent.retrieve.mapping_table import MappingRow
from agent.judge.receivers import receiver_type, role_at, signal_string_uses


def find(ctx: FindContext) -> list[Finding]:
    """Godot 3 API findings, up to MAX_USES_PER_RULE uses per mapping row."""
    return _api_findings(ctx.facts, ctx.mapping_rows, ctx.project, ctx.chunk_file)


def _api_findings(facts: CodeFacts, rows: list[MappingRow], project: ProjectContext | None = None,
                  chunk_file: str = "") -> list[Finding]:
    """Identifiers that match a retrieved api_mapping old name, used as an API in the mapping's role.

    A signal rename applies to signal uses only, a property rename to property access, and so on;
    a use whose receiver resolves to a type that Godot 4 still defines the member on is no finding.
    """
    masked = facts.lexed.masked
    out: list[Finding] = []
    seen: set[str] = set()
    signal_strings = signal_string_uses(masked, facts.lexed.strings)
    for row in rows:
        hit, source, target = row.hit, row.source_api, row.target_api
        if not source or source == target or source in seen or not row.documents_a_change:
            continue  # a behaviour change keeps the name: no version cue
        if row.documented_in_godot4 and "." in source:
            continue  # still a valid Godot 4 name (Viewport, Texture): not a signal on its own
        if row.derived:
            continue  # derived rows are judged with their receiver (see gone_members)
        roles = row.roles
        if "." in source:
            owner, member = source.rsplit(".", 1)
            pattern = re.compile(rf"\b{re.escape(owner)}\s*\.\s*{re.escape(member)}\b")
        elif row.documented_in_godot4 and not (roles and set(roles) <= {"call", "property"}):
            continue
        else:
            member = source
            if roles == ("signal",) and source in signal_strings and source not in facts.declared:
                start = signal_strings[source]
                seen.add(source)
                out.append(Finding("godot3", "api", source, facts.lexed.text[start - 1 : start + len(source) + 1].strip(),
                                   line_of(masked, start), mapping=hit, start=start,
                                   weak=project_declares(project, source)))  # its own `signal text_entered`
                continue
            if source not in facts.identifiers:
                continue
            if source[:1].isupper() and (source in facts.declared or project_declares(project, source)):
                continue  # the project's own class, enum, constant or autoload of that name
            if source[:1].isupper():
                pattern = re.compile(rf"(?<![\w.@]){re.escape(source)}\b")
            else:
                # A member name counts only with a receiver (`get_tree().change_scene(`): a bare
                # `change_scene()` may be the script's own function, declared in another chunk.
                pattern = re.compile(rf"\.\s*{re.escape(source)}\b")
        uses = 0
        for m in pattern.finditer(masked):
            role = _use_role(masked, m, source)
            if roles is not None and role not in roles:
                continue
            dot = masked.rfind(".", m.start(), m.end() - len(member))
            receiver = receiver_type(facts.lexed.text, masked, dot, facts.scope) if facts.scope and dot >= 0 \
                and "." not in source else None
            if "." not in source and own_name(facts, member, receiver) \
                    and _declared_as_member(masked, member):
                continue  # the script's own function; a local `var instance = scene.instance()` is no method
            if _defined_in_4(facts, project, receiver, member, role) or (role == "property" and is_dictionary(receiver)):
                continue  # still a 4.x member there, or a Dictionary's key (`colors.green` on `var colors := {}`)
            if row.documented_in_godot4 and (not _gone_from(project, receiver, member, role)
                                                   or member in (project.declared.get(chunk_file) or ())):
                continue  # some 4.x class still has the name; or the script's own `func update()` may be it
            if not in_scope(project, receiver, row, role):
                continue  # a rename for ProgressBar does not apply to a Label
            if row.classes and "." not in source and receiver is None and dot >= 0 and _user_singleton(masked, dot, project):
                continue  # `Scenes.change_scene()`: an autoload's own function, not SceneTree's
            weak = receiver is None and dot >= 0 and "." not in source and role != "color" \
                and _unsure_member(project, member, role)
            seen.add(source)
            text = facts.lexed.text[m.start() : m.end()].strip()
            out.append(Finding("godot3", "api", source, text, line_of(masked, m.start()), mapping=hit, start=m.start(),
                               receiver=type_label(receiver) if receiver else None, weak=weak))
            uses += 1
            if uses == MAX_USES_PER_RULE:
                break  # every use is its own migration item, as for the syntax rules
    return out


def _declared_as_member(masked: str, name: str) -> bool:
    """`name` is a function anywhere, or a script-level var/const/signal: not only a local or a parameter."""
    return bool(re.search(rf"^(?:[ \t]*(?:static\s+)?func|(?:static\s+)?(?:var|const|signal))\s+{re.escape(name)}\b",
                          masked, re.M))



def _use_role(masked: str, m: re.Match[str], source: str) -> str:
    if re.search(r"(?<![\w.$%@])Color\s*\.\s*$", masked[: m.start() + masked[m.start():m.end()].find(".") + 1]):
        return "color"  # Godot 3's named colors are read on the class only: `Color.green`, never `colors.green`
    if source[:1].isupper() and "." not in source and not re.fullmatch(r"[A-Z0-9_]+", source):
        return "class"
    if re.fullmatch(r"[A-Z][A-Z0-9_]+", source.rsplit(".", 1)[-1]):
        return "constant"
    return role_at(masked, m.end())


def _defined_in_4(facts: CodeFacts, project: ProjectContext | None, receiver: str | None, member: str,
                  role: str) -> bool:
    api = project.api if project else None
    if api is None or receiver is None:
        return False
    return api.lookup(V4, receiver, member, ROLE_KINDS.get(role)) is not None


def _gone_from(project: ProjectContext | None, receiver: str | None, member: str, role: str) -> bool:
    """The receiver's 3.4 class has the member; its 4.x class and subclasses have none.

    A name some unrelated 4.x class still defines (`ImporterMesh.set_surface_material`, a Resource)
    is still gone from a typed MeshInstance.
    """
    api = project.api if project else None
    if api is None or receiver is None or not api.complete_v4 or not api.has_class(V4, receiver):
        return False
    kinds = ROLE_KINDS.get(role)
    in_3, in_4 = api.lookup(V3, receiver, member, kinds), api.lookup(V4, receiver, member, kinds)
    return in_3 is not None and in_4 is None and not api.defined_below(V4, receiver, member, kinds)



def _unsure_member(project: ProjectContext | None, member: str, role: str) -> bool:
    """A renamed `.member` on a receiver nobody resolved proves nothing where the name is ordinary, unless the
    rename is certain (`certain_rename`: no Godot 4 class and no project script has the old name).

    Ordinary is: a property read as a plain word (`colors.green`, `event.control`, `method.meta`, `.group`:
    a Dictionary key or a user object's field as often as an engine property), a member some 4.x class
    still has in that role, or a name the project declares itself (its own `empty()`). A call of a
    distinctive name (`scene.instance()`) stays a finding. A weak one is shown, but never decides a chunk.
    """
    api = project.api if project else None
    if api is not None and certain_rename(member, api, project_declares(project, member)):
        return False  # no 4.x class has it and the converter renames it: whatever the receiver (`shape.extents`)
    if role != "call" and "_" not in member.strip("_"):
        return True
    if api is not None and api.defined_anywhere(V4, member, ROLE_KINDS.get(role)):
        return True
    return project_declares(project, member)


def _user_singleton(masked: str, dot: int, project: ProjectContext | None) -> bool:
    """The receiver before `dot` is a bare capitalised name no engine version defines (an autoload, a class_name)."""
    api = project.api if project else None
    if api is None or not {V3, V4} <= api.versions():
        return False  # without both references a 3-only engine class (VisualServer) would look like an autoload
    m = re.search(r"(?<![\w.$%@])([A-Z]\w*)\s*$", masked[:dot])
    return bool(m and not api.has_class(V3, m.group(1)) and not api.has_class(V4, m.group(1)))



