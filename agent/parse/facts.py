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
_UNIQUE_RAW = re.compile(r"%[A-Za-z_]\w*")


class _Unique:
    """`%Name` scene-unique nodes, not the modulo operator (`a %b` follows an operand)."""

    @staticmethod
    def finditer(code: str) -> list[re.Match[str]]:
        out = []
        for m in _UNIQUE_RAW.finditer(code):
            i = m.start() - 1
            if i >= 0 and code[i] not in " \t\n(,[=:{":
                continue  # `a%b` or `"..."%x`
            while i >= 0 and code[i] in " \t":
                i -= 1
            if (
                i < 0
                or code[i] in "\n(,[=:{"
                or code[max(0, i - 5) : i + 1] == "return"
                or code[max(0, i - 4) : i + 1] == "await"
            ):
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
_CALL_CHAIN = re.compile(r"(?<![\w.@])(?<!func )((?:[$%][\w/%]+|[A-Za-z_]\w*)(?:\.\w+)*)\(")
_METHOD_AFTER_CALL = re.compile(r"[)\]][ \t]*\.[ \t]*([A-Za-z_]\w*)[ \t]*\(")
_CLASS_MEMBER = re.compile(r"(?<![\w.$%])([A-Z]\w*)\.(\w+)(?![\w(])")
_RES_REF = re.compile(r"\b(?:res|user|uid)://[^\s\"')\]]*")
_GET_NODE_STR = re.compile(r"get_node(?:_or_null)?\s*\(\s*[\"']([^\"'\n]+)[\"']")
_DECL = re.compile(r"(?<!\w)(?:var|const|func|class|signal|enum|class_name|for)[ \t]+([A-Za-z_]\w*)")
_PARAMS = re.compile(r"\bfunc\b[ \t]*[A-Za-z_]?\w*[ \t]*\(([^)]*)\)")
_RPC = re.compile(
    r"^[ \t]*(remotesync|mastersync|puppetsync|remote|master|puppet|sync|slave)[ \t]+(?:func|var|static)\b",
    re.M,
)
_STRING_CONNECT = re.compile(r"connect\s*\(\s*[\"'][^\"'\n]*[\"']\s*,\s*[^,()\n]+,\s*[\"']")
_CALLABLE_CONNECT = re.compile(r"\.\s*connect\s*\(\s*(?![\"'\s)])")
# flag -> (substring that must be present, regex that decides)
_FLAGS: dict[str, tuple[str, re.Pattern[str]]] = {
    "tool": ("tool", re.compile(r"^(?:tool|@tool)\b", re.M)),
    "export_keyword": ("export", re.compile(r"^[ \t]*export\b", re.M)),
    "onready_keyword": ("onready", re.compile(r"^[ \t]*onready\b", re.M)),
    "setget": ("setget", re.compile(r"\bsetget\b")),
    "yield": ("yield", re.compile(r"\byield[ \t]*\(")),
    "await": ("await", re.compile(r"\bawait\b")),
    "typed_array": ("Array", re.compile(r"\bArray[ \t]*\[")),
    "super_call": ("super", re.compile(r"\bsuper[ \t]*[.(]")),
    "property_accessors": (":", re.compile(r"^[ \t]+(?:set[ \t]*\([ \t]*\w+[ \t]*\)|get)[ \t]*:", re.M)),
}
_RPC_CUES = ("remote", "master", "puppet", "sync", "slave")
_PARAM_NAME = re.compile(r"(?:^|,)\s*([A-Za-z_]\w*)")
_LEAF = re.compile(r"[/%$\"']")
_NAME = re.compile(r"[A-Za-z_]\w*")
_ANNOTATION = re.compile(r"(?<![\w])@([A-Za-z_]\w*)")


def mask_comments(text: str) -> tuple[str, str]:
    """(comments removed, comments and string contents removed), every line break kept in place."""
    if "#" not in text and '"' not in text and "'" not in text:
        return text, text
    no_comments: list[str] = []
    masked: list[str] = []
    pos = nc_pos = 0
    for m in _MASK.finditer(text):
        s = m.group(0)
        start = m.start()
        masked.append(text[pos:start])
        if s[0] == "#":
            no_comments.append(text[nc_pos:start])
            nc_pos = m.end()
        else:
            masked.append('""' if "\n" not in s else '"' + "\n" * s.count("\n") + '"')
        pos = m.end()
    masked.append(text[pos:])
    no_comments.append(text[nc_pos:])
    return "".join(no_comments), "".join(masked)


def _uniq(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def node_paths(code: str) -> list[str]:
    """`$Path`, `$%Name`, `%Name` and `get_node("...")` references, as written."""
    found = _NODE_PATH.findall(code) if "$" in code else []
    if "%" in code:
        found += [m.group(0) for m in _UNIQUE.finditer(code)]
    if "get_node" in code:
        found += _GET_NODE_STR.findall(code)
    return _uniq(found)


_TOKEN = re.compile(r"[A-Za-z_]\w*|[$%][\w/%]*|@\w*|\d[\w.]*|[.()\[\],{}]")
_DECLARES = frozenset({"var", "const", "func", "class", "signal", "enum", "class_name", "for"})
_CALLABLE_KEYWORDS = frozenset({"yield", "preload", "super"})


def _scan(masked: str) -> tuple[list[str], list[str], list[str], bool]:
    """One tokenizer pass: (identifiers, declared names, call/member candidates, has a lambda).

    A dotted chain followed by `(` is a call (`Input.is_action_pressed`, `$Sprite.play`,
    `create_timer` after `get_tree().`); a chain on a capitalised name not followed by `(` is
    a member access (`Vector2.ZERO`). The name after `func` is a declaration, not a call, and
    the parameters of `func name(...)` and of lambdas are declared names.
    """
    idents: list[str] = []
    declared: list[str] = []
    calls: list[str] = []
    chain: list[str] = []
    dotted = False
    declare_next = ""
    params_depth = 0  # >0 while inside a func's parameter list
    expect_param = False
    after_func = False
    has_lambda = False
    for tok in _TOKEN.findall(masked):
        c = tok[0]
        if c.isalpha() or c == "_":
            if declare_next:
                declared.append(tok)
                after_func = declare_next == "func"
                declare_next = ""
                chain = []
                dotted = False
                if tok not in KEYWORDS:
                    idents.append(tok)
                continue
            if expect_param:
                declared.append(tok)
                expect_param = False
            if dotted and chain:
                chain.append(tok)
            else:
                if len(chain) > 1 and chain[-2][0].isupper():
                    calls.append(f"{chain[-2]}.{chain[-1]}")
                chain = [tok]
            dotted = False
            if tok in KEYWORDS:
                if tok in _DECLARES:
                    declare_next = tok
                    chain = []
                    if tok == "func":
                        after_func = True  # a lambda: `func(` opens its parameters
            else:
                idents.append(tok)
            continue
        if c == ".":
            dotted = True
            continue
        if c == "(":
            if after_func:
                after_func = False
                has_lambda = has_lambda or declare_next == "func"  # `func(`: no name, so a lambda
                declare_next = ""
                params_depth, expect_param = 1, True
                chain = []
                continue
            if chain:
                head = chain[-1] if len(chain) == 1 else f"{chain[-2]}.{chain[-1]}"
                if len(chain) > 1 or head not in KEYWORDS or head in _CALLABLE_KEYWORDS:
                    calls.append(head)
            if params_depth:
                params_depth += 1
            chain = []
            dotted = False
            continue
        if params_depth:
            if c == ")":
                params_depth -= 1
                expect_param = expect_param and params_depth > 0
            elif c == "," and params_depth == 1:
                expect_param = True
        if len(chain) > 1 and chain[-2][0].isupper():
            calls.append(f"{chain[-2]}.{chain[-1]}")
        if c in "$%" and not dotted:
            chain = [tok]
        elif not (c in "$%" and dotted):
            chain = []
        dotted = False
        after_func = False
    if len(chain) > 1 and chain[-2][0].isupper():
        calls.append(f"{chain[-2]}.{chain[-1]}")
    return list(dict.fromkeys(idents)), list(dict.fromkeys(declared)), list(dict.fromkeys(calls)), has_lambda


def gd_facts(code: str, code_no_comments: str, masked: str) -> dict[str, Any]:
    """Candidates and `extra` facts for one GDScript chunk.

    `code` is the original text, `code_no_comments` has comments removed, `masked` has comments
    and string contents removed (same line breaks). Substring pre-checks skip regexes that
    cannot match: this runs once per chunk and dominates chunking time.
    """
    has_path = "$" in masked or "%" in masked or "get_node" in masked
    paths = node_paths(code_no_comments) if has_path else []
    identifiers, declared, calls, has_lambda = _scan(masked)

    declared_set = set(declared)
    # types and classes: capitalised identifiers in code positions (extends, annotations, calls, statics)
    symbols = [i for i in identifiers if i[0].isupper() and not i.isupper()]
    for p in paths:
        leaf = _LEAF.split(p.strip("$%\"'"))[-1]
        if leaf[:1].isupper() and _NAME.fullmatch(leaf):
            symbols.append(leaf)
    symbols = [t for t in dict.fromkeys(symbols) if t not in declared_set and t not in KEYWORDS]

    refs = _RES_REF.findall(code_no_comments) if "://" in code_no_comments else []
    refs = list(dict.fromkeys(refs + paths))

    syntax: dict[str, Any] = {
        name: (cue in masked and rx.search(masked) is not None) for name, (cue, rx) in _FLAGS.items()
    }
    syntax["lambda"] = has_lambda
    rpc = _RPC.search(masked) if any(cue in masked for cue in _RPC_CUES) else None
    syntax["rpc_keyword"] = rpc.group(1) if rpc else None
    syntax["annotations"] = sorted({f"@{a}" for a in _ANNOTATION.findall(masked)}) if "@" in masked else []
    has_connect = "connect" in masked
    syntax["callable_connect"] = has_connect and _CALLABLE_CONNECT.search(code_no_comments) is not None
    syntax["string_connect"] = has_connect and _STRING_CONNECT.search(code_no_comments) is not None
    syntax["unique_node"] = any(p.startswith(("%", "$%")) for p in paths)
    return {
        "symbol_candidates": symbols,
        "api_call_candidates": calls,
        "reference_candidates": refs,
        "extra": {"syntax": syntax, "declared_names": declared, "identifiers": identifiers},
    }
