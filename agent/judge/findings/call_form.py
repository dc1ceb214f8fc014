"""Call forms: a call on a resolved receiver whose arguments fit the 3.4 signature and no 4.x one.

`items.sort_custom(self, "by_name")` on a typed Array (3.4 takes an object and a name, 4.x one Callable),
`ResourceSaver.save("res://a.tres", res)` (4.x takes the Resource first), `image.create(...)` as a statement
(4.x's is static and returns a new Image). Both versions define the method, so only the call's form changed.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, type_in
from agent.judge.findings.arguments import (CONTAINERS, SCALARS, arg_literal_type, call_shape, is_enum,
                                            param_types)
from agent.judge.findings.common import MAX_USES_PER_RULE, CodeFacts, FindContext, Finding, MemberUse, line_of
from agent.judge.project import ProjectContext
from agent.judge.snippets import call_args, close_paren, receiver_start, top_level_commas
from agent.judge.syntax_rules import SyntaxRule
from agent.judge.templates import callable_of, template_edit


def find(ctx: FindContext) -> list[Finding]:
    """Godot 3 call-form findings (kind "syntax") on resolved `.member(...)` and bare own-class calls."""
    calls = ctx.member_uses + _bare_self_calls(ctx.facts, ctx.project, ctx.chunk_file)
    return _call_form_findings(ctx.facts, ctx.project, calls)


def _call_form_findings(facts: CodeFacts, project: ProjectContext | None, uses: list[MemberUse]) -> list[Finding]:
    """A call whose argument count fits the receiver's 3.4 signature and none of its 4.x ones.

    `items.sort_custom(self, "by_name")` on a typed Array: 3.4 takes (object, function), 4.x one
    Callable. Both versions must define the method on the resolved type, so only the call's form changed.
    """
    out: list[Finding] = []
    api = project.api if project else None
    masked = facts.lexed.masked
    for m, receiver, member, role in uses:
        if role != "call":
            continue
        old = api.all_lookup(V3, receiver, member, ("method",))
        new = api.all_lookup(V4, receiver, member, ("method",))
        if not old or not new:
            continue
        args = call_args(masked, masked.index("(", m.end()))
        if args is None:
            continue
        n = len(args)
        fits_3, fits_4 = any(e.accepts(n) for e in old), any(e.accepts(n) for e in new)
        made_static = _made_static_on_instance(masked, m, old, new)
        misfit = fits_3 and fits_4 and _literal_misfits_4x(args, old, new, api)
        if not (made_static or misfit or (fits_3 and not fits_4)):
            continue
        old_type, new_type = type_in(V3, receiver), type_in(V4, receiver)
        shape_3, shape_4 = f"{old_type}.{call_shape(old[0], member)}", f"{new_type}.{call_shape(new[0], member)}"
        text, open_at = facts.lexed.text, masked.index("(", m.end())
        edit = None
        if made_static:  # `image.create(w, h, false, f)` fills `image` in 3.4; 4.x returns a new Image
            line_start = masked.rfind("\n", 0, m.start()) + 1
            target = text[line_start : m.start()].strip()
            close = close_paren(masked, open_at)
            call = re.sub(r"\s*\n\s*", " ", text[m.start() + 1 : close])
            as_4 = f"{new_type}.{call}".replace("( ", "(").replace(" )", ")") if fits_4 else shape_4
            if fits_4:  # `tex.create_from_image(img)` -> `tex = ImageTexture.create_from_image(img)`
                begin = line_start + len(text[line_start:m.start()]) - len(text[line_start:m.start()].lstrip())
                edit = (begin, close, f"{target} = {as_4}")
            rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(member)), old=shape_3, new=f"{target} = {as_4}",
                              change_type="signature_change", cues=(f"{new_type}.{member}",),
                              mapping_keys=(f"{old_type}.{member}",),
                              caveat=f"Godot 4's {new_type}.{member} is static: it returns a new object")
        else:
            edit = _callable_form(text, masked, open_at, old, new) \
                or _template_form(text, m, open_at, member, old_type)
            begin = receiver_start(text, masked, m.start() + (masked[m.start()] == "."))
            rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(member)), old=shape_3,
                              new=f"{text[begin:open_at].strip()}({edit[2]})" if edit else shape_4,
                              change_type="signature_change",
                              cues=(member,), mapping_keys=(f"{old_type}.{member}",))
        start = m.start() + masked[m.start():].index(member)
        out.append(Finding("godot3", "syntax", "call_form", facts.lexed.text[start : m.end()], line_of(masked, start),
                           rule, start=start, receiver=old_type, edit=edit))
        if len(out) == MAX_USES_PER_RULE:
            break  # every call is its own item, as for the syntax rules
    return out


def _callable_form(text: str, masked: str, open_at: int, old: list, new: list) -> tuple[int, int, str] | None:
    """An (Object, method name) pair that 4.x takes as one Callable, as a typed edit of the arguments.

    `items.sort_custom(self, "by_name")` -> `items.sort_custom(by_name)`, `bsearch_custom(v, obj, "f")` ->
    `bsearch_custom(v, obj.f)`, `undo.add_do_method(node, "set_x", 3)` -> `add_do_method(node.set_x.bind(3))`:
    the other arguments keep their places and types, a vararg's extra arguments are bound. None otherwise.
    """
    if len(old) != 1 or len(new) != 1:
        return None
    t3, t4 = param_types(old[0].signature), param_types(new[0].signature)
    at = next((i for i in range(len(t3) - 1) if t3[i:i + 2] == ["Object", "String"] and i < len(t4)
               and t4[i] == "Callable" and t3[:i] == t4[:i]), None)
    close = close_paren(masked, open_at)
    if at is None or close < 0:
        return None
    bounds = [open_at, *top_level_commas(masked, open_at), close - 1]
    args = [text[a + 1:b].strip() for a, b in zip(bounds, bounds[1:])]
    args = args if args[-1] else args[:-1]
    if len(args) < at + 2:
        return None
    obj, method, rest = args[at], args[at + 1], args[at + 2:]
    kept, extra = rest[:len(t3) - at - 2], rest[len(t3) - at - 2:]
    if extra and "vararg" not in old[0].signature.rsplit(")", 1)[-1] or len(kept) > len(t4) - at - 1 \
            or any(t3[at + 2 + k] != t4[at + 1 + k] for k in range(len(kept))):
        return None  # `thread.start(self, "f", data)`: userdata has no place in 4.x's start()
    callable_ = callable_of(obj, method)
    if extra:
        callable_ += f".bind({', '.join(extra)})"
    return open_at + 1, close - 1, ", ".join([*args[:at], callable_, *kept])


def _template_form(text: str, m: re.Match[str], open_at: int, member: str,
                   old_type: str) -> tuple[int, int, str] | None:
    """The call's Godot 4 form from calls.json (`ResourceSaver.save(path, res)` -> `ResourceSaver.save(res, path)`),
    as a typed edit of its arguments (the receiver as written stays)."""
    start = m.start() + text[m.start():].index(member)
    edit = template_edit(f"{old_type}.{member}", text, start)
    if edit is None:
        return None
    form = edit[2]
    return open_at + 1, edit[1] - 1, form[form.rindex(f"{member}(") + len(member) + 1:-1]


_STATEMENT_RECEIVER = re.compile(r"[ \t]*[a-z_]\w*(?:\s*\.\s*[a-z_]\w*)*[ \t]*")


def _made_static_on_instance(masked: str, m: re.Match[str], old: list, new: list) -> bool:
    """`image.create(...)` as a whole statement, on an instance, of a method only 4.x makes static.

    Godot 4 would build a new object and drop it: the statement is Godot 3's in-place form.
    """
    if masked[m.start()] != "." or not all(e.is_static for e in new) or any(e.is_static for e in old):
        return False  # a bare `create(...)` is a call on the script itself
    line_start = masked.rfind("\n", 0, m.start()) + 1
    if not _STATEMENT_RECEIVER.fullmatch(masked, line_start, m.start()):
        return False  # `var img = x.create(...)`, `return x.create(...)`, `Image.create(...)`
    close = close_paren(masked, masked.index("(", m.end()))
    return close >= 0 and re.match(r"[ \t]*(?:\n|$)", masked[close:]) is not None


_BARE_CALL = re.compile(r"(?<![\w.$%@])([a-z_]\w*)(?=[ \t]*\()")
_DECLARATION_BEFORE = re.compile(r"\b(?:func|signal)[ \t]+$")


def _bare_self_calls(facts: CodeFacts, project: ProjectContext | None, chunk_file: str) -> list[MemberUse]:
    """(match, own class, member, "call") for each bare `member(...)`: a call on the script's engine class.

    `draw_string(font, pos, "hi", Color(1, 0, 0))` in a Node2D script. Only where the project shows
    the whole script (and its project bases): a name any of them declares may be its own function.
    """
    api = project.api if project else None
    own = facts.scope.own_class if facts.scope else None
    known = project.declared.get(chunk_file) if project else None
    if api is None or own is None or known is None or not api.complete_v4 \
            or not (api.has_class(V3, own) and api.has_class(V4, own)):
        return []
    masked = facts.lexed.masked
    return [(m, own, m.group(1), "call") for m in _BARE_CALL.finditer(masked)
            if m.group(1) not in facts.declared and m.group(1) not in known
            and not _DECLARATION_BEFORE.search(masked, masked.rfind("\n", 0, m.start()) + 1, m.start())]


def _literal_misfits_4x(args: list[str], old: list, new: list, api) -> bool:
    """Literal arguments that fit the 3.4 signature and, in one place, not the 4.x one.

    `ResourceSaver.save("res://a.tres", res)`: 4.x takes the Resource first, and a String is none.
    """
    if len(old) != 1 or len(new) != 1:
        return False
    literals = [arg_literal_type(a, api) for a in args]
    old_types, new_types = param_types(old[0].signature), param_types(new[0].signature)
    if len(old_types) < len(args) or len(new_types) < len(args):
        return False
    fits_3 = all(t is None or not _misfit(t, p, api, V3) for t, p in zip(literals, old_types))
    return fits_3 and any(t is not None and _misfit(t, p, api, V4) for t, p in zip(literals, new_types))


def _misfit(literal: str, param: str, api, version: str) -> bool:
    """A literal of this type can never be this parameter (a bool for an Array, a list for an int).

    Numbers, bools and strings pass for one another and for enums (Variant converts them), and an Array
    literal for a packed array; a scalar against a container or a class (`Vector2`, `Resource`), or a
    container against anything but a container, is a misfit. A constructed object (`Color(...)`) is
    taken to fit any class parameter (classes are not compared), but no scalar, container or enum.
    """
    if not param or param == "Variant":
        return False
    container = param in CONTAINERS or param.endswith("Array")
    known = api.has_class(version, param)
    if literal in SCALARS:
        return container or (known and param not in SCALARS)
    if literal not in CONTAINERS:
        return container or param in SCALARS or is_enum(param, api, version)
    return not container and (param in SCALARS or known)


