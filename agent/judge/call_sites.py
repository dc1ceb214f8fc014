"""Types of untyped parameters, from the script's own calls of the function.

Godot 3 code rarely types its helpers: `_draw_block_face(surface_tool, verts, uvs)` is called only
from `_draw_block_mesh`, which got `surface_tool` from `regenerate`'s `SurfaceTool.new()`. When every
call of a function in its script passes one engine class at a position, the parameter there is that
class, so `surface_tool.add_uv(...)` is a use on a SurfaceTool, not on an unknown receiver.

Precision first. A function is left out when anything else in the run's files may call it with
other arguments: another script naming it, a by-name call or connection (the name in a string, a
scene's `[connection]`), a reference without a call (a Callable), a call on another object, or the
engine (any class of either version has a method of that name: a virtual or an override). An
argument counts only when its class is sure: a whole constructor call (`SurfaceTool.new()`), a
name declared with a type, or a name declared once with a whole constructor as its initializer and
never assigned again. Callers outside the run's files (another project's scripts, C#, a scene
saved as binary) are not seen.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping

from agent.apiindex import V3, V4, ApiIndex
from agent.judge.snippets import call_args, close_paren

_FUNC = re.compile(r"^(?:static[ \t]+)?func[ \t]+([A-Za-z_]\w*)[ \t]*(?=\()", re.M)
_TOP_LEVEL = re.compile(r"^\S", re.M)
_PARAM = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:(:\s*=.*)|(:\s*[A-Za-z_][\w.]*(?:\[[^\]]*\])?)\s*(?:=.*)?|=.*)?", re.S)
"""One parameter: `a`, `a = 1`, `a := 1`, `a : = 1`, `a: T`, `a: T = x` (group 3: the declared type)."""
_NAME = re.compile(r"(?<![\w$%@])[A-Za-z_]\w*")
_DECLARATION = re.compile(r"\b(?:var|const)[ \t]+([A-Za-z_]\w*)[ \t]*(?::[ \t]*([A-Za-z_]\w*)[ \t]*)?(:?=[^\n]*)?")
_LOOP = re.compile(r"\bfor[ \t]+([A-Za-z_]\w*)[ \t]+in\b")
_CONSTRUCTOR = re.compile(r"([A-Z]\w*)\s*(?:\.\s*new\s*)?\(")
_ROUNDS = 4

ParamTypes = dict[str, dict[str, str]]
"""Function name -> {parameter: class}."""


def constructed_class(expr: str) -> str | None:
    """`X.new(...)` or `X(...)` as the whole expression (nothing after its `)`): X."""
    expr = expr.strip()
    m = _CONSTRUCTOR.match(expr)
    return m.group(1) if m and close_paren(expr, m.end() - 1) == len(expr) else None


def sure_types(code: str, assignments: str | None = None) -> dict[str, str | None]:
    """Names `code` declares (`var`, `const`, loop variables) -> their class when it is sure, else None.

    Sure: declared with a type (`var t: SurfaceTool`; GDScript keeps a typed variable's class), or
    declared once with a whole constructor as initializer (`var t = SurfaceTool.new()`) and never
    assigned again, in `assignments` (default: `code` itself; for members, the whole script).
    """
    out: dict[str, str | None] = {}
    typed: set[str] = set()
    for m in _DECLARATION.finditer(code):
        name, declared, init = m.group(1), m.group(2), (m.group(3) or "").lstrip(":=")
        cls = declared or constructed_class(init)
        out[name] = cls if name not in out or out[name] == cls else None  # two declarations must agree
        if declared:
            typed.add(name)
    for name in _LOOP.findall(code):
        out[name] = None
    rest = _DECLARATION.sub(" ", code if assignments is None else assignments)
    for name, cls in out.items():
        if cls and name not in typed and _assigned(rest, name):
            out[name] = None  # assigned again: its class may change
    return out


def _assigned(code: str, name: str) -> bool:
    return re.search(rf"(?<![\w.$%@])(?:self\s*\.\s*)?{re.escape(name)}[ \t]*=(?!=)", code) is not None


class _Function:
    """One column-0 function of a script: its parameters (name -> typed) and its body, masked."""

    def __init__(self, name: str, params: dict[str, bool], body: str, offset: int) -> None:
        self.name, self.params, self.body, self.offset = name, params, body, offset
        self.end = offset + len(body)
        self.names = sure_types(body)


def _functions(masked: str) -> list[_Function]:
    """The script's column-0 functions; a function with a parameter list it cannot read is left out."""
    out = []
    for m in _FUNC.finditer(masked):
        args = call_args(masked, m.end())
        params = [_PARAM.fullmatch(a) for a in args] if args is not None else [None]
        if any(p is None for p in params):
            continue  # a position read wrong would pass an argument to the wrong parameter
        nxt = _TOP_LEVEL.search(masked, masked.find("\n", m.end()) + 1)
        end = nxt.start() if nxt else len(masked)
        out.append(_Function(m.group(1), {p.group(1): bool(p.group(3)) for p in params}, masked[m.start() : end],
                             m.start()))
    return out


def _arg_type(arg: str, caller: _Function, inferred: ParamTypes, members: Mapping[str, str | None],
              classes: frozenset[str]) -> str | None:
    """The class of one argument when it is sure: a constructor call, a typed or once-built name."""
    found = constructed_class(arg)
    if found is None and re.fullmatch(r"[A-Za-z_]\w*", arg):
        if arg in caller.params:  # typed in the caller's header, or inferred in an earlier round
            found = _header_type(caller, arg) or inferred.get(caller.name, {}).get(arg)
        elif arg in caller.names:  # a local (or loop variable) hides a member of that name
            found = caller.names[arg]
        else:
            found = members.get(arg)
    return found if found in classes else None


def _header_type(f: _Function, param: str) -> str | None:
    m = re.search(rf"[(,]\s*{re.escape(param)}\s*:\s*([A-Za-z_]\w*)", f.body[: f.body.find(")") + 1])
    return m.group(1) if m else None


def param_types(masked: str, api: ApiIndex, members: Mapping[str, str | None],
                used_elsewhere: Callable[[str], bool]) -> ParamTypes:
    """{function: {parameter: class}} for the untyped parameters of one script (see module docstring).

    `masked` is the script's lexed code; `members` its member variables' sure classes (`member_types`);
    `used_elsewhere(name)`: another script uses the name, or a string or a scene spells it.
    """
    functions = _functions(masked)
    by_name = {f.name: f for f in functions
               if not used_elsewhere(f.name) and not api.defined_anywhere(V3, f.name, ("method",))
               and not api.defined_anywhere(V4, f.name, ("method",))}
    if not by_name:
        return {}
    starts = [f.offset for f in functions]
    calls: dict[str, list[tuple[_Function, list[str]]]] = {name: [] for name in by_name}
    for use in _NAME.finditer(masked):  # one pass over every name of the script
        name = use.group(0)
        if name not in calls:
            continue
        line_start = masked.rfind("\n", 0, use.start()) + 1
        before = masked[line_start : use.start()]
        if re.search(r"\bfunc\s+$", before):
            continue  # the definition
        paren = re.match(r"\s*\(", masked[use.end() : use.end() + 80])
        k = bisect.bisect_right(starts, use.start()) - 1
        caller = functions[k] if k >= 0 and use.start() < functions[k].end else None
        args = call_args(masked, use.end() + paren.end() - 1) if paren else None
        on_other = before.rstrip().endswith(".") and not re.search(r"(?<![\w.])self\s*\.\s*$", before)
        if args is None or caller is None or on_other:
            del calls[name]  # a Callable, a call on another object or outside any function: arguments unknown
            continue
        calls[name].append((caller, args))
    classes = api.class_names()
    inferred: ParamTypes = {}
    for _ in range(_ROUNDS):  # a caller's own parameters may be typed only by the round before
        before_round = {k: dict(v) for k, v in inferred.items()}
        for name, found in calls.items():
            if not found:
                continue
            for i, (param, typed) in enumerate(by_name[name].params.items()):
                if typed:
                    continue
                seen = {_arg_type(args[i], caller, before_round, members, classes) if i < len(args) else None
                        for caller, args in found}
                if len(seen) == 1 and None not in seen:
                    inferred.setdefault(name, {})[param] = seen.pop()
        if inferred == before_round:
            break
    return inferred


def member_types(masked: str, member_lines: str) -> dict[str, str | None]:
    """The script's member variables (its column-0 `var` lines) -> their sure class, else None.

    An untyped member assigned anywhere in the script besides its declaration is not sure
    (`t = $Painter` in some function).
    """
    return sure_types(member_lines, assignments=masked)
