"""The syntax rules (`agent.judge.syntax_rules`): patterns only one version's language or file format accepts.

Run on the masked code of a script (nothing inside a comment or string matches) or on the raw text of a
scene, resource or config section. Rules keyed on a name drop matches of the project's own names.
"""

from __future__ import annotations

import re
from itertools import islice

from agent.apiindex import V3
from agent.judge.findings.common import (MAX_USES_PER_RULE, CodeFacts, FindContext, Finding, is_dictionary,
                                         line_of, project_declares)
from agent.judge.project import ProjectContext
from agent.judge.receivers import receiver_type
from agent.judge.syntax_rules import DIRECT_RULES, GDSCRIPT_RULES, declared_variables, rule_matches

_OWN_NAME_RULES = {"rect_properties", "tween_node", "xform"}
"""Syntax rules keyed on a member's name, which a project may give a name of its own: dialogic's local
`var rect_position`, escoria's `Tween3.interpolate_property()`."""


def find(ctx: FindContext) -> list[Finding]:
    """Each rule's matches: up to MAX_USES_PER_RULE per Godot 3 rule (one item each), one per Godot 4 rule."""
    facts, project, chunk = ctx.facts, ctx.project, ctx.chunk
    gd = facts.is_gdscript
    rules = GDSCRIPT_RULES if gd else DIRECT_RULES
    scan = facts.lexed.masked if gd else chunk.code_text
    out: list[Finding] = []
    for rule in rules:
        found = (Finding(rule.version, "syntax", rule.name, chunk.code_text[begin : m.end()].strip(),
                         line_of(scan, at), rule, start=at)
                 for m, begin in rule_matches(rule, scan)
                 for at in (begin + len(scan[begin : m.end()]) - len(scan[begin : m.end()].lstrip()),))
        if rule.name == "godot4_api":  # a script's own name; `image.is_empty()` on an Image (3.4 has it too)
            found = (f for f in found if f.text not in facts.declared
                     and not _member_of_34_receiver(facts, project, scan, f.start, f.text))
        elif rule.name in _OWN_NAME_RULES and gd:
            found = (f for f in found if not _own_name_match(f, facts, project, scan))
        limit = MAX_USES_PER_RULE if rule.version == "godot3" else 1
        out.extend(islice(found, limit))
    return out


def _own_name_match(f: Finding, facts: CodeFacts, project: ProjectContext | None, scan: str) -> bool:
    """The rule matched a name the chunk declares as a variable or the project declares itself, or a key of a
    Dictionary (`size.rect_size` on `var size := {}`): none is the engine member the rule is about."""
    m = re.search(r"(rect_\w+|interpolate_\w+|xform\w*)\b", f.text)
    name = m.group(1) if m else ""
    if not name:
        return False
    before = scan[: f.start + f.text.find(name)].rstrip()
    if before.endswith(".") and facts.scope is not None and is_dictionary(
            receiver_type(facts.lexed.text, scan, len(before) - 1, facts.scope)):
        return True
    return name in declared_variables(scan) or name in facts.declared or project_declares(project, name)


def _member_of_34_receiver(facts: CodeFacts, project: ProjectContext | None, masked: str, start: int,
                           member: str) -> bool:
    """The name at `start` is one some 3.x minor has where the code may mean it: a `.member` of a receiver whose
    3.x class (3.4, 3.5 or 3.6) documents it, or, on a receiver nobody resolved, of any 3.x class (`x.is_empty()`
    may be 3.x's `Image.is_empty()`, `create_tween()` is 3.5's). No Godot 4 cue then."""
    api = project.api if project else None
    if api is None:
        return False
    if api.has_class(V3, member):
        return True  # a class a 3.x minor has (`FlowContainer`, `Time`)
    dot = len(masked[:start].rstrip()) - 1
    receiver = receiver_type(facts.lexed.text, masked, dot, facts.scope) \
        if facts.scope is not None and dot >= 0 and masked[dot] == "." else None
    if receiver is not None:
        return api.lookup(V3, receiver, member) is not None
    return api.defined_anywhere(V3, member)
