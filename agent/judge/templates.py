"""Godot 4 forms of moved or reshaped calls as typed edits (agent/data/changes/calls.json).

`get_tree().is_network_server()` -> `get_tree().get_multiplayer().is_server()`, `b.xform(v)` -> `(b * v)`,
`space.intersect_ray(a, b)` -> `space.intersect_ray(PhysicsRayQueryParameters3D.create(a, b))`: the finding
names the Godot 3 API, its use is located on the code (receiver as written, arguments split at top level),
and the form for that argument count becomes one edit (start, end, replacement) of the chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from agent import changes
from agent.judge.lexer import lex
from agent.judge.snippets import close_paren, expression_at, split_args


@cache
def call_forms() -> dict[str, dict]:
    """api name -> its row (forms by argument count, receiver, read)."""
    return {r["api"]: r for r in changes.calls()["calls"]}


@cache
def moved_signals() -> dict[str, tuple[str, str]]:
    """`SceneTree.network_peer_connected` -> (the receiver as written, the path to the signal from it)."""
    return {r["signal"]: (r["receiver"], r["path"]) for r in changes.calls().get("signals", [])}


def moved_signal_path(receiver: str, signal: str) -> str | None:
    """The path to `signal` from `receiver` (text as written) when Godot 4 moved it there, else None."""
    for gone, (recv, path) in moved_signals().items():
        if gone.rsplit(".", 1)[-1] == signal and receiver.replace(" ", "") == recv:
            return path
    return None


def template_edit(api: str, code: str, start: int) -> tuple[int, int, str] | None:
    """(start, end, Godot 4 expression) for the use of `api` whose name starts at offset `start`, or None."""
    row = call_forms().get(api)
    if row is None or not 0 <= start < len(code):
        return None
    member = api.rsplit(".", 1)[-1]
    if not code.startswith(member, start):
        return None
    masked = lex(code).masked
    expr = expression_at(code, start)
    at = expr.rfind(member)
    begin = start - at
    if at < 0 or code[begin:begin + len(expr)] != expr:
        return None
    recv = expr[:at].rstrip().removesuffix(".").rstrip() if at else ""
    if "receiver" in row and recv != row["receiver"]:
        return None
    after = start + len(member)
    if row.get("read"):
        end = begin + len(expr)
        if end != after or re.match(r"\s*=(?!=)", code[end:]) or re.match(r"\s*\(", masked[end:]):
            return None  # an assignment or a call: not the read the form replaces
        return begin, end, row["forms"][""].format(recv=recv)
    open_at = after + len(masked[after:]) - len(masked[after:].lstrip(" \t"))
    if open_at >= len(masked) or masked[open_at] != "(":
        return None
    close = close_paren(masked, open_at)
    if close < 0:
        return None
    args = split_args(code[open_at + 1:close - 1], masked[open_at + 1:close - 1])
    form = row["forms"].get(str(len(args)))
    if form is None or (not recv and "{recv}" in form):
        return None
    for k in {int(n) for n in _RIDS.findall(form)}:
        rids = _as_rids(args[k]) if k < len(args) else None
        if rids is None:
            return None
        form = form.replace(f"{{{k}:rids}}", rids.replace("{", "{{").replace("}", "}}"))
    if _OPERATOR_FORM.search(form):  # `(b * v)`: an operand that is itself an operation keeps its meaning
        args, recv = [_operand(a) for a in args], _operand(recv)
    if recv == "get_tree()" and form.startswith("{recv}.get_multiplayer()"):
        form = "multiplayer" + form.removeprefix("{recv}.get_multiplayer()")  # a node's own API, as ports write it
    return begin, close, form.format(*args, recv=recv, args=", ".join(args))


_OPERATOR_FORM = re.compile(r"\}\s*[-+*/%]\s*\{")
_TOP_OPERATOR = re.compile(r"[-+*/%<>=!&|^~]|\b(?:and|or|not|in|is|as|if|else)\b")


def _operand(expr: str) -> str:
    """`expr` in parentheses when an operator stands at its top level: `a + b` as `(a + b)`, never `f(a + b)`."""
    masked = lex(expr).masked
    depth, flat = 0, []
    for ch in masked:
        depth += ch in "([{"
        depth -= ch in ")]}"
        flat.append(ch if depth == 0 or ch in ")]}" else " ")
    top = "".join(flat).strip()
    unary = top[:1] in "-!" and not _TOP_OPERATOR.search(top[1:])
    return f"({expr})" if _TOP_OPERATOR.search(top) and not unary else expr


_RIDS = re.compile(r"\{(\d+):rids\}")


def _as_rids(arg: str) -> str | None:
    """`[self, body]` -> `[self.get_rid(), body.get_rid()]`: Godot 4 excludes physics objects by RID; an argument
    that is not a list written out (its elements unknown) has no form."""
    if not (arg.startswith("[") and arg.endswith("]")):
        return None
    inner = arg[1:-1].strip()
    if not inner:
        return "[]"
    items = split_args(inner, lex(inner).masked)
    if not all(re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(\))?", i) for i in items):
        return None
    return "[" + ", ".join(i if i.endswith("get_rid()") else f"{i}.get_rid()" for i in items) + "]"


_METHOD_NAME = re.compile(r"([\"'])([A-Za-z_]\w*)\1")
_SIMPLE_OBJECT = re.compile(r"(?:\$[\w/]+|[A-Za-z_]\w*)(?:\s*\.\s*[A-Za-z_]\w*|\(\s*\))*")


def callable_of(obj: str, method: str) -> str:
    """Godot 3's (object, method name) as one Godot 4 Callable: `(self, "f")` -> `f`, `(node, "f")` ->
    `node.f`, a name not written out or an object that is an expression -> `Callable(obj, method)`."""
    obj, method = obj.strip(), method.strip()
    name = _METHOD_NAME.fullmatch(method)
    if name and obj == "self":
        return name.group(2)
    if name and _SIMPLE_OBJECT.fullmatch(obj):
        return f"{obj}.{name.group(2)}"
    return f"Callable({obj}, {method})"


@dataclass(frozen=True)
class TemplateUse:
    """One use of an API with a Godot 4 form: where it is, and the start of its name (to locate it again
    once the receiver's own renames are applied: `get_world().direct_space_state.intersect_ray(a, b)`)."""

    api: str
    begin: int
    end: int
    start: int
    old: str
    new: str

    @classmethod
    def at(cls, api: str, code: str, start: int) -> TemplateUse | None:
        edit = template_edit(api, code, start)
        if edit is None:
            return None
        return cls(api, edit[0], edit[1], start, code[edit[0]:edit[1]], edit[2])

    def overlaps(self, other: TemplateUse) -> bool:
        return self.begin < other.end and other.begin < self.end
