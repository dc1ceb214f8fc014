"""Members a script declares that its Godot 4 base class already has: Godot 4 does not load such a script.

`var velocity = Vector2()` in a KinematicBody2D script: CharacterBody2D has a `velocity` property, and
GDScript 2 refuses a member that redeclares an inherited one. The script's engine base is the project's
extends chain (or the file's `extends`) in its Godot 3 name; the API index says which properties its Godot 4
class has that the Godot 3 class had not. A zero `velocity` (the property's default) is removed by a typed
edit; any other redeclaration is left to a person (renaming the member changes every use of it).
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4
from agent.judge.findings.common import FindContext, Finding, line_of, own_class
from agent.judge.syntax_rules import SyntaxRule

_MEMBER = re.compile(r"^var[ \t]+([A-Za-z_]\w*)[^\n]*", re.M)
_ZERO = re.compile(r"=\s*(?:Vector[23]\s*\(\s*\)|Vector[23]\.ZERO|Vector[23]\(\s*0(?:\.0)?\s*,\s*0(?:\.0)?"
                   r"(?:\s*,\s*0(?:\.0)?)?\s*\))\s*$")
_REMOVABLE = {"velocity"}
"""Properties whose Godot 4 default is the zero value a Godot 3 script gave its own member."""


def find(ctx: FindContext) -> list[Finding]:
    api = ctx.project.api if ctx.project is not None else None
    masked = ctx.facts.lexed.masked
    if api is None or "var" not in masked:
        return []
    base3 = own_class(ctx.chunk, ctx.project)
    base4 = api.class_renames.get(base3 or "", "")
    if not base3 or api.has_class(V4, base3) or not (api.has_class(V3, base3) or base4):
        return []  # a Godot 4 base, or a class both versions have: nothing newly inherited
    if not base4 or not api.has_class(V4, base4):
        return []
    out: list[Finding] = []
    for m in _MEMBER.finditer(masked):
        name = m.group(1)
        had = api.lookup(V3, base3, name, ("property",))
        if api.lookup(V4, base4, name, ("property",)) is None or (had is not None and not had.later_minor):
            continue  # 3.6's `Spatial.position` alias aside: a 3.4/3.5 script's own `position` still breaks in 4
        line = ctx.chunk.code_text[m.start():m.end()].rstrip()
        end = m.end() + 1 if m.end() < len(masked) else m.end()
        edit = (m.start(), end, "") if name in _REMOVABLE and _ZERO.search(masked[m.start():m.end()]) else None
        rule = SyntaxRule("redeclared_property", "godot3", re.compile(re.escape(name)), old=line, new="",
                          change_type="removed", cues=(f"{base4}.{name}",), scope="statement",
                          caveat=f"{base4} already has `{name}`: Godot 4 refuses a member that redeclares it")
        out.append(Finding("godot3", "syntax", "redeclared_property", line, line_of(masked, m.start()), rule,
                           start=m.start(), edit=edit))
    return out
