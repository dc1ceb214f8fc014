"""Call arguments and signatures, as the call-form, constructor and method-string rules compare them.

No rule of its own: what a literal argument's type is, what a signature's parameters are, and whether one
can be passed as the other.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4
from agent.judge.call_sites import constructed_class
from agent.judge.receivers import literal_type
from agent.judge.snippets import call_args

SCALARS = frozenset({"bool", "int", "float", "String", "StringName", "NodePath"})
CONTAINERS = frozenset({"Array", "Dictionary"})

TYPED_ARRAY = re.compile(r"(?<=^Array)\[.*\]$")
"""4.x's `Array[Node]` is 3.4's `Array`: the same class to look members up on."""


def arg_starts(masked: str, open_paren: int, args: list[str]) -> list[int]:
    """Offsets of the arguments `call_args` returned for the call whose `(` is at `open_paren`."""
    starts, pos = [], open_paren + 1
    for a in args:
        pos = masked.index(a, pos)
        starts.append(pos)
        pos += len(a)
    return starts


def param_types(signature: str) -> list[str]:
    """`int save(path: String, resource: Resource, flags: int = 0)` -> the parameter types."""
    signature = re.sub(r'"[^"]*"', '""', signature)  # a default string may hold a comma
    open_paren = signature.find("(")
    params = call_args(signature, open_paren) if open_paren >= 0 else None
    return [p.split("=", 1)[0].partition(":")[2].strip() for p in params or []]


def arg_literal_type(arg: str, api=None) -> str | None:
    """The type of an argument written as a literal (`true`, `3`, `1.5`, `"a"`, `[...]`, `{...}`),
    or as a constructor of a class both versions have (`Color(1, 1, 1)`, `Timer.new()`)."""
    if arg in ("true", "false"):
        return "bool"
    if re.fullmatch(r"-?(\d+|0x[0-9a-fA-F_]+|0b[01_]+)", arg):
        return "int"
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+)(e-?\d+)?", arg):
        return "float"
    cls = constructed_class(arg)
    if cls and api is not None and api.has_class(V3, cls) and api.has_class(V4, cls):
        return cls
    return literal_type(arg)


def is_enum(param: str, api, version: str) -> bool:
    """A signature type that names no class, scalar or container: an enum (`HTTPClient.Method`)."""
    return (re.fullmatch(r"[A-Z]\w*(?:\.[A-Z]\w*)?", param) is not None and param not in SCALARS
            and param not in CONTAINERS and not param.endswith("Array") and param != "Variant"
            and not api.has_class(version, param))


def call_shape(entry, member: str) -> str:
    """`intersect_ray(Vector2 from, Vector2 to, ...)`: the signature without its return type and qualifiers."""
    if not entry.signature:
        return member
    shape = re.sub(r"^[^(]*?(?=\b" + re.escape(member) + r"\s*\()", "", entry.signature)
    return re.sub(r"\)[\w\s]*$", ")", shape)  # without the qualifiers (`const`, `static`)
