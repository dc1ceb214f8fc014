"""Types of untyped parameters, from the script's own calls of the function.

Godot 3 code rarely types its helpers: `_draw_block_face(surface_tool, verts, uvs)` is called only
from `_draw_block_mesh`, which got `surface_tool` from `regenerate`'s `SurfaceTool.new()`. When every
call of a function in its script passes one engine class at a position, the parameter there is that
class, so `surface_tool.add_uv(...)` is a use on a SurfaceTool, not on an unknown receiver.

Precision first: a function is left out when anything else may call it with other arguments —
another script (`x.name(`), a by-name call or connection (the name in a string, a scene's
`[connection]`), a reference without a call (a Callable), or the engine (any class of either
version has a method of that name: a virtual or an override). A parameter is typed only when every
call passes it, all as one class.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set

from agent.apiindex import V3, V4, ApiIndex
from agent.judge.receivers import declared_classes
from agent.judge.snippets import call_args, close_paren
from agent.judge.syntax_rules import declared_variables

_FUNC = re.compile(r"^(?:static[ \t]+)?func[ \t]+([A-Za-z_]\w*)[ \t]*(?=\()", re.M)
_TOP_LEVEL = re.compile(r"^\S", re.M)
_PARAM = re.compile(r"\s*([A-Za-z_]\w*)\s*(:\s*[A-Za-z_]|:?=|$)")
_CONSTRUCTOR = re.compile(r"([A-Z]\w*)\s*(?:\.\s*new\s*)?\(")
_ROUNDS = 4

ParamTypes = dict[str, dict[str, str]]
"""Function name -> {parameter: class}."""


class _Function:
    """One column-0 function of a script: its parameters (name, typed) and its body, masked."""

    def __init__(self, name: str, params: list[tuple[str, bool]], body: str, offset: int) -> None:
        self.name, self.offset, self.body = name, offset, body
        self.params = dict(params)
        self.local = declared_classes(body)
        self.variables = declared_variables(body)


def _functions(masked: str) -> list[_Function]:
    """The script's column-0 functions: name, (parameter, typed) and body (masked)."""
    out = []
    for m in _FUNC.finditer(masked):
        args = call_args(masked, m.end())
        if args is None:
            continue
        params = [(p.group(1), p.group(2).startswith(":") and not p.group(2).startswith(":="))
                  for a in args if (p := _PARAM.match(a))]
        nxt = _TOP_LEVEL.search(masked, masked.find("\n", m.end()) + 1)
        end = nxt.start() if nxt else len(masked)
        out.append(_Function(m.group(1), params, masked[m.start() : end], m.start()))
    return out


def _arg_type(arg: str, caller: _Function, inferred: ParamTypes, members: Mapping[str, str],
              classes: frozenset[str]) -> str | None:
    """The class of one argument: a constructor call, or a name the caller or the script declares with one."""
    constructed = _CONSTRUCTOR.match(arg)
    if constructed and close_paren(arg, constructed.end() - 1) == len(arg):  # `X.new()`, `X(...)`, nothing after
        found = constructed.group(1)
    elif not re.fullmatch(r"[A-Za-z_]\w*", arg):
        return None
    elif arg in caller.params:  # typed in the caller's header, or inferred in an earlier round
        found = caller.local.get(arg) or inferred.get(caller.name, {}).get(arg)
    elif arg in caller.variables:  # a local (or loop variable) hides a member of that name
        found = caller.local.get(arg)
    else:
        found = members.get(arg)
    return found if found in classes else None


def param_types(masked: str, api: ApiIndex, members: Mapping[str, str], elsewhere: Set[str]) -> ParamTypes:
    """{function: {parameter: class}} for the untyped parameters of one script (see module docstring).

    `masked` is the script's lexed code; `members` its member variables' classes (declared, or built in
    a function: `tex = ImageTexture.new()` in `_init`); `elsewhere` the names other scripts use and
    the names any string or scene spells (a function named there may be called with anything).
    """
    functions = _functions(masked)
    classes = api.class_names()
    calls: dict[str, list[tuple[_Function, list[str]]]] = {}
    for f in functions:
        if f.name in elsewhere or api.defined_anywhere(V3, f.name, ("method",)) \
                or api.defined_anywhere(V4, f.name, ("method",)):
            continue
        found: list[tuple[_Function, list[str]]] | None = []
        for use in re.finditer(rf"(?<![\w$%@]){re.escape(f.name)}\b", masked):
            before = masked[masked.rfind("\n", 0, use.start()) + 1 : use.start()]
            if re.search(r"\bfunc\s+$", before):
                continue  # the definition
            paren = re.match(r"\s*\(", masked[use.end() :])
            caller = next((g for g in reversed(functions) if g.offset <= use.start()), None)
            args = call_args(masked, use.end() + paren.end() - 1) if paren else None
            if args is None or caller is None or use.start() >= caller.offset + len(caller.body) \
                    or (before.rstrip().endswith(".") and not re.search(r"(?<![\w.])self\s*\.\s*$", before)):
                found = None  # a Callable, a call on another object or outside any function: arguments unknown
                break
            found.append((caller, args))
        if found:
            calls[f.name] = found
    inferred: ParamTypes = {}
    for _ in range(_ROUNDS):  # a caller's own parameters may be typed only by the round before
        before = {k: dict(v) for k, v in inferred.items()}
        for f in functions:
            for i, (param, typed) in enumerate(f.params.items() if f.name in calls else ()):
                if typed:
                    continue
                seen = {_arg_type(args[i], caller, before, members, classes) if i < len(args) else None
                        for caller, args in calls[f.name]}
                if len(seen) == 1 and None not in seen:
                    inferred.setdefault(f.name, {})[param] = seen.pop()
        if inferred == before:
            break
    return inferred


def member_classes(masked: str) -> dict[str, str]:
    """Classes of the script's member variables as declared at column 0 (`var st: SurfaceTool`, `X.new()`)."""
    return declared_classes("\n".join(line for line in masked.splitlines() if line[:1] not in ("", " ", "\t")))
