"""Facts the retriever and judge need, read from a chunk's code with comments and strings masked.

Regular expressions over masked text are used instead of a Python walk of every tree-sitter
node: they are an order of magnitude faster, and they also work on `unparsed` regions the
grammar could not read, so broken code still yields search cues.

`Chunk.extra` keys written for `.gd` chunks (the judge reads these):

- `syntax`: dict of booleans/values seen in code positions (never in comments or strings):
  `tool` (`tool` statement or `@tool`), `export_keyword` (Godot 3 `export var`/`export(...)`),
  `onready_keyword` (Godot 3 `onready var`), `setget`, `yield` (`yield(...)`),
  `rpc_keyword` (`"remote"`/`"master"`/`"puppet"`/`"sync"`/`"remotesync"`/... or None),
  `annotations` (sorted `["@export", "@onready", ...]`), `await`, `typed_array` (`Array[int]`),
  `lambda` (anonymous `func(...)`), `super_call` (`super()`/`super.x()`),
  `callable_connect` (`sig.connect(callable)`), `string_connect` (Godot 3
  `connect("signal", target, "method")`), `unique_node` (`%Name`/`$%Name`),
  `property_accessors` (Godot 4 `set(value):`/`get:` blocks).
- `declared_names`: names the code itself declares (vars, consts, funcs, params, classes,
  signals, enums, for-loop variables), so user names are never mistaken for Godot 3 APIs.
- `identifiers`: identifiers in code positions, in order of first use, keywords excluded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_MASK = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?|#[^\n]*'
)
KEYWORDS = frozenset(
    """if elif else for while match break continue pass return class class_name extends is in as self
    signal func static const enum var onready export setget tool breakpoint preload await yield
    remote master puppet remotesync mastersync puppetsync sync slave and or not true false null
    void super when get set PI TAU INF NAN""".split()
)
_IDENT = re.compile(r"(?<![\w$%@])[A-Za-z_][A-Za-z0-9_]*")
_NODE_PATH = re.compile(r"\$%?(?:\"[^\"\n]*\"|'[^'\n]*'|[A-Za-z0-9_/%]+)")
_UNIQUE_RAW = re.compile(r"(?:^|(?<=[\s(\[,=:{]))%[A-Za-z_]\w*", re.M)


class _Unique:
    """`%Name` scene-unique nodes, not the modulo operator (`a %b` follows an operand)."""

    @staticmethod
    def finditer(code: str) -> list[re.Match[str]]:
        out = []
        for m in _UNIQUE_RAW.finditer(code):
            before = code[: m.start()].rstrip(" \t")
            if not before or before[-1] in "\n(,[=:{" or before.endswith(("return", "await")):
                out.append(m)
        return out

    @staticmethod
    def sub(repl: Callable[[re.Match[str]], str], code: str) -> str:
        parts, pos = [], 0
        for m in _Unique.finditer(code):
            parts += [code[pos : m.start()], repl(m)]
            pos = m.end()
        return "".join([*parts, code[pos:]])


_UNIQUE = _Unique
_CALL_CHAIN = re.compile(
    r"(?<![\w.@])(?<!func )(?<!func\t)((?:\$%?[A-Za-z0-9_/%]+|%[A-Za-z_]\w*|[A-Za-z_]\w*)(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*)[ \t]*\("
)
_METHOD_AFTER_CALL = re.compile(r"[)\]][ \t]*\.[ \t]*([A-Za-z_]\w*)[ \t]*\(")
_CLASS_MEMBER = re.compile(r"(?<![\w.$%])([A-Z]\w*)[ \t]*\.[ \t]*([A-Za-z_]\w*)\b(?![ \t]*\()")
_TYPE_AFTER = re.compile(r"(?:\bextends|\bas|\bis|->|(?<![:\w]):(?!=))[ \t]*([A-Za-z_]\w*)")
_RES_REF = re.compile(r"\b(?:res|user|uid)://[^\s\"')\]]*")
_GET_NODE_STR = re.compile(r"\bget_node(?:_or_null)?\s*\(\s*[\"']([^\"'\n]+)[\"']")
_DECL = re.compile(r"\b(?:var|const|func|class|signal|enum|class_name|for)\s+([A-Za-z_]\w*)")
_PARAMS = re.compile(r"\bfunc\b[ \t]*[A-Za-z_]?\w*[ \t]*\(([^)]*)\)")
_RPC = re.compile(
    r"^[ \t]*(remotesync|mastersync|puppetsync|remote|master|puppet|sync|slave)[ \t]+(?:func|var|static)\b",
    re.M,
)
_STRING_CONNECT = re.compile(r"\bconnect\s*\(\s*[\"'][^\"'\n]*[\"']\s*,\s*[^,()\n]+,\s*[\"']")
_CALLABLE_CONNECT = re.compile(r"\.\s*connect\s*\(\s*(?![\"'\s)])")
_FLAGS: dict[str, re.Pattern[str]] = {
    "tool": re.compile(r"^(?:tool|@tool)\b", re.M),
    "export_keyword": re.compile(r"^[ \t]*export\b", re.M),
    "onready_keyword": re.compile(r"^[ \t]*onready\b", re.M),
    "setget": re.compile(r"\bsetget\b"),
    "yield": re.compile(r"\byield[ \t]*\("),
    "await": re.compile(r"\bawait\b"),
    "typed_array": re.compile(r"\bArray[ \t]*\["),
    "lambda": re.compile(r"\bfunc[ \t]*\("),
    "super_call": re.compile(r"\bsuper[ \t]*[.(]"),
    "property_accessors": re.compile(r"^[ \t]+(?:set[ \t]*\([ \t]*\w+[ \t]*\)|get)[ \t]*:", re.M),
}
_ANNOTATION = re.compile(r"(?<![\w])@([A-Za-z_]\w*)")


def mask_comments(text: str, *, strings: bool) -> str:
    """Blank out comments (and string contents when `strings`), keeping line breaks and columns."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s[0] == "#":
            return " " * len(s)
        if not strings:
            return s
        return re.sub(r"[^\n]", " ", s)

    return _MASK.sub(repl, text)


def _uniq(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def node_paths(code: str) -> list[str]:
    """`$Path`, `$%Name`, `%Name` and `get_node("...")` references, as written."""
    found = [m.group(0) for m in _NODE_PATH.finditer(code)]
    found += [m.group(0) for m in _UNIQUE.finditer(code)]
    found += [m.group(1) for m in _GET_NODE_STR.finditer(code)]
    return _uniq(found)


def gd_facts(code: str, code_no_comments: str, masked: str) -> dict[str, Any]:
    """Candidates and `extra` facts for one GDScript chunk.

    `code` is the original text, `code_no_comments` has comments blanked, `masked` has comments
    and string contents blanked (same line layout).
    """
    paths = node_paths(code_no_comments)
    bare = _NODE_PATH.sub(lambda m: " " * len(m.group(0)), masked)
    bare = _UNIQUE.sub(lambda m: " " * len(m.group(0)), bare)

    identifiers = _uniq([m.group(0) for m in _IDENT.finditer(bare) if m.group(0) not in KEYWORDS])
    declared = [m.group(1) for m in _DECL.finditer(masked)]
    for m in _PARAMS.finditer(masked):
        for param in m.group(1).split(","):
            name = re.match(r"\s*([A-Za-z_]\w*)", param)
            if name:
                declared.append(name.group(1))
    declared = _uniq(declared)

    calls: list[str] = []
    for m in _CALL_CHAIN.finditer(masked):
        parts = [p.strip() for p in m.group(1).split(".")]
        if len(parts) == 1:
            if parts[0] not in KEYWORDS or parts[0] in ("yield", "preload", "super"):
                calls.append(parts[0])
        else:
            calls.append(f"{parts[-2]}.{parts[-1]}")
    calls += [m.group(1) for m in _METHOD_AFTER_CALL.finditer(masked)]
    calls += [f"{m.group(1)}.{m.group(2)}" for m in _CLASS_MEMBER.finditer(bare)]

    declared_set = set(declared)
    symbols = [m.group(1) for m in _TYPE_AFTER.finditer(bare)]
    symbols += [i for i in identifiers if i[0].isupper() and not i.isupper()]
    for p in paths:
        leaf = re.split(r"[/%$\"']", p.strip("$%\"'"))[-1]
        if leaf[:1].isupper() and re.fullmatch(r"[A-Za-z_]\w*", leaf):
            symbols.append(leaf)
    symbols = [s for s in _uniq(symbols) if s[:1].isupper() and s not in declared_set and s not in KEYWORDS]

    refs = _uniq([m.group(0) for m in _RES_REF.finditer(code_no_comments)] + paths)

    syntax: dict[str, Any] = {name: bool(rx.search(masked)) for name, rx in _FLAGS.items()}
    rpc = _RPC.search(masked)
    syntax["rpc_keyword"] = rpc.group(1) if rpc else None
    syntax["annotations"] = sorted({f"@{a}" for a in _ANNOTATION.findall(masked)})
    syntax["callable_connect"] = bool(_CALLABLE_CONNECT.search(code_no_comments))
    syntax["string_connect"] = bool(_STRING_CONNECT.search(code_no_comments))
    syntax["unique_node"] = any(p.startswith("%") or p.startswith("$%") for p in paths)
    return {
        "symbol_candidates": symbols,
        "api_call_candidates": _uniq(calls),
        "reference_candidates": refs,
        "extra": {"syntax": syntax, "declared_names": declared, "identifiers": identifiers},
    }

