"""Constructors: a built-in type's constructor whose argument types fit a 3.4 overload and no 4.x one.

3.4 builds a String from any value, 4.x only from a string type (`str(x)` does the rest). Variant's own
conversions hold in both (`Color(0)` is an RGBA int, `Rect2(Vector2i(...), v)`). Every argument's type must be known.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, is_constructor, type_in, type_label
from agent.judge.findings.arguments import (CONTAINERS, TYPED_ARRAY, arg_literal_type, arg_starts, call_shape,
                                            is_enum, param_types)
from agent.judge.findings.common import (GLOBAL_SCOPES, MAX_USES_PER_RULE, CodeFacts, FindContext, Finding,
                                         line_of)
from agent.judge.project import ProjectContext
from agent.judge.receivers import receiver_type
from agent.judge.snippets import call_args, close_paren
from agent.judge.syntax_rules import SyntaxRule


def find(ctx: FindContext) -> list[Finding]:
    """Godot 3 findings (kind "syntax"), up to MAX_USES_PER_RULE."""
    return _constructor_findings(ctx.facts, ctx.project, ctx.chunk_file)


_CONSTRUCTOR_CALL = re.compile(r"(?<![\w.$%@])([A-Z]\w*)\s*\(")


def _constructor_findings(facts: CodeFacts, project: ProjectContext | None, chunk_file: str) -> list[Finding]:
    """`String(5)`: a built-in type's constructor whose argument types fit a 3.4 overload and no 4.x one.

    3.4 builds a String from any value; 4.x only from another string type (`str(x)` does the rest). Every
    argument's type must be known.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    out: list[Finding] = []
    for m in _CONSTRUCTOR_CALL.finditer(masked):
        cls = m.group(1)
        if cls in facts.declared or cls in project.class_names:
            continue
        old = [e for e in api.members_of(V3, cls) if is_constructor(e)]
        new = [e for e in api.members_of(V4, cls) if is_constructor(e)]
        args = call_args(masked, m.end() - 1) if old and new else None
        if not args:
            continue
        starts = arg_starts(masked, m.end() - 1, args)
        types = [_expr_type(facts, project, a, k, chunk_file) for a, k in zip(args, starts)]
        if None in types or not _fits_overload(old, types, api, V3) or _fits_overload(new, types, api, V4) \
                or (cls, types) == ("Color", ["int"]):  # Variant builds a Color from an RGBA int in 4.x too
            continue
        end = close_paren(masked, m.end() - 1)
        call = text[m.start() : end]
        if cls == "String" and len(args) == 1:
            rule = SyntaxRule("string_from_value", "godot3", re.compile(r"String"),
                              old=f"String.String({types[0]})",
                              new=f"str({text[starts[0] : starts[0] + len(args[0])]})",
                              change_type="signature_change", cues=("@GlobalScope.str", "String.String"),
                              caveat=f"Godot 4 builds a String only from a string type, not {types[0]}")
        else:
            same_count = [e for e in new if e.accepts(len(args))] or new
            shapes = " | ".join(call_shape(e, cls) for e in same_count)
            rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(cls)),
                              old=f"{cls}.{cls}({', '.join(types)})", new=shapes,
                              change_type="signature_change", cues=(f"{cls}.{cls}",))
        out.append(Finding("godot3", "syntax", rule.name, call, line_of(masked, m.start()), rule,
                           start=m.start()))
        if len(out) == MAX_USES_PER_RULE:
            break
    return out


_NUMERIC = frozenset({"int", "float", "bool"})
_STRINGS = frozenset({"String", "StringName", "NodePath"})
_SCALAR_CASTS = {"int": "int", "float": "float", "bool": "bool", "str": "String", "len": "int"}
_PLAIN_CHAIN = re.compile(r"[A-Za-z_$][\w$/]*(?:\s*\(\))?(?:\s*\.\s*[A-Za-z_]\w*(?:\s*\(\))?)*")
"""`a.b().c`, `$Node.size()`: names and empty calls (arguments collapsed), no operators."""
_TAIL_MEMBER = re.compile(r"\.\s*([A-Za-z_]\w*)\s*(\(\s*\))?$")


def _expr_type(facts: CodeFacts, project: ProjectContext, arg: str, at: int, chunk_file: str) -> str | None:
    """The type of one argument (`masked[at:]` starts with it) when the code makes it known, else None.

    Literals and constructors, `int(...)`/`str(...)`, names typed or initialised as one type, a global
    function's return type, and a member's: on a resolved receiver its class's, on an unknown one
    only when every class that documents the member agrees on a number (`.size()`, `.length()`).
    """
    api, masked, scope = project.api, facts.lexed.masked, facts.scope
    found = arg_literal_type(arg, api)
    if found:
        return found
    if re.fullmatch(r"[A-Za-z_]\w*", arg):
        if arg in scope.scalar_types:
            return scope.scalar_types[arg]
        return type_label(scope.var_types[arg]) if arg in scope.var_types else None
    call = re.fullmatch(r"([A-Za-z_]\w*)\s*\(", arg[: arg.find("(") + 1]) if "(" in arg else None
    if call and close_paren(arg, arg.find("(")) == len(arg) and call.group(1) not in facts.declared:
        name = call.group(1)
        if name in _SCALAR_CASTS:
            return _SCALAR_CASTS[name]
        known = project.declared.get(chunk_file)
        if known is None or name in known:
            return None  # a bare call may be the script's own function
        entry = next((e for g in GLOBAL_SCOPES if (e := api.lookup(V3, g, name, ("method",)))), None)
        return entry.return_type if entry and entry.return_type in _NUMERIC | _STRINGS else None
    collapsed = arg
    while (shorter := re.sub(r"\([^()]*\)", "()", collapsed)) != collapsed:
        collapsed = shorter
    tail = _TAIL_MEMBER.search(collapsed)
    if tail is None or not _PLAIN_CHAIN.fullmatch(collapsed):
        return None
    member, kinds = tail.group(1), ("method",) if tail.group(2) else ("property",)
    if member in facts.declared or member in (project.declared.get(chunk_file) or ()):
        return None
    dot = masked.rfind(".", at, at + arg.rfind(member))
    receiver = receiver_type(facts.lexed.text, masked, dot, scope) if dot >= 0 else None
    if receiver is not None:
        entry = api.lookup(V3, type_in(V3, receiver), member, kinds)
        return entry.return_type if entry and entry.return_type in _NUMERIC | _STRINGS else None
    returns = {e.return_type for e in api.definers(V3, member, kinds)} | \
        {e.return_type for e in api.definers(V4, member, kinds)}
    if not returns or not returns <= _NUMERIC:
        return None
    return returns.pop() if len(returns) == 1 else "float"


_VARIANT_CONVERSIONS = [{"Vector2", "Vector2i"}, {"Vector3", "Vector3i"}, {"Vector4", "Vector4i"}, {"Rect2", "Rect2i"}]


def _converts(arg: str, param: str, api, version: str) -> bool:
    """Whether a value of type `arg` may be passed where a constructor overload takes `param`.

    Numbers and bools pass for one another and for enums, strings for one another; a class for
    itself or an ancestor, a list for any array type. Anything unsure passes.
    """
    arg, param = type_in(version, arg), TYPED_ARRAY.sub("", param)
    if not arg or not param or arg == param or param == "Variant":
        return True
    if {arg, param} in _VARIANT_CONVERSIONS:  # Variant converts these on a call (`Rect2(Vector2i(...), v)`)
        return True
    if arg in _NUMERIC:
        return param in _NUMERIC or is_enum(param, api, version)
    if arg in _STRINGS:
        return param in _STRINGS
    if param in _NUMERIC or param in _STRINGS:
        return False
    if arg in CONTAINERS or param in CONTAINERS:
        return all(t in CONTAINERS or t.endswith("Array") for t in (arg, param))
    if api.has_class(version, arg) and api.has_class(version, param):
        return api.is_a(version, arg, param)
    return True


def _fits_overload(entries: list, types: list[str], api, version: str) -> bool:
    return any(e.accepts(len(types)) and len(param_types(e.signature)) >= len(types)
               and all(_converts(t, p, api, version) for t, p in zip(types, param_types(e.signature)))
               for e in entries)


