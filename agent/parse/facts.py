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
from typing import Any

from agent.parse.scan import KEYWORDS, scan

_MASK = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?|#[^\n]*'
)
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


_UNIQUE = _Unique
_RES_REF = re.compile(r"\b(?:res|user|uid)://[^\s\"')\]]*")
_GET_NODE_STR = re.compile(r"get_node(?:_or_null)?\s*\(\s*[\"']([^\"'\n]+)[\"']")
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
    "property_accessors": ("et", re.compile(r"^[ \t]+(?:set[ \t]*\([ \t]*\w+[ \t]*\)|get)[ \t]*:", re.M)),
}
_RPC_CUES = ("remote", "master", "puppet", "sync", "slave")
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


_NO_FLAGS: dict[str, Any] = dict.fromkeys(_FLAGS, False)


class FileFacts:
    """One file's masked text, plus which cues occur anywhere in it.

    Facts are read per chunk, but most regexes cannot match in most files: checking each cue
    once per file skips them for every chunk of that file (a chunk's text is a run of the
    file's lines, so a cue absent from the file is absent from all its chunks).
    """

    def __init__(self, text: str) -> None:
        no_comments, masked = mask_comments(text)
        self.nc_lines = no_comments.split("\n")
        self.m_lines = masked.split("\n")
        self._flags = [(name, cue, rx) for name, (cue, rx) in _FLAGS.items() if cue in masked]
        self._rpc_cues = [cue for cue in _RPC_CUES if cue in masked]
        self._annotations = "@" in masked
        self._connect = "connect" in masked
        self._paths = "$" in masked or "%" in masked or "get_node" in masked
        self._refs = "://" in no_comments

    def chunk(self, start: int, end: int) -> dict[str, Any]:
        """Candidates and `extra` facts for the chunk on the file's 0-based rows [start, end)."""
        masked = "\n".join(self.m_lines[start:end])
        nc = "\n".join(self.nc_lines[start:end]) if self._paths or self._refs or self._connect else ""
        return _facts(self, masked, nc)


def _facts(ff: FileFacts, masked: str, code_no_comments: str) -> dict[str, Any]:
    paths = (
        node_paths(code_no_comments)
        if ff._paths and ("$" in masked or "%" in masked or "get_node" in masked)
        else []
    )
    identifiers, declared, calls, has_lambda = scan(masked)

    # types and classes: capitalised identifiers in code positions (extends, annotations, calls, statics)
    symbols = [i for i in identifiers if i[0].isupper() and not i.isupper()]
    for p in paths:
        leaf = _LEAF.split(p.strip("$%\"'"))[-1]
        if leaf[:1].isupper() and _NAME.fullmatch(leaf):
            symbols.append(leaf)
    if symbols:
        declared_set = set(declared)
        symbols = [t for t in dict.fromkeys(symbols) if t not in declared_set and t not in KEYWORDS]

    refs = _RES_REF.findall(code_no_comments) if ff._refs and "://" in code_no_comments else []
    refs = list(dict.fromkeys(refs + paths)) if refs or paths else []

    syntax = dict(_NO_FLAGS)
    for name, cue, rx in ff._flags:
        if cue in masked and rx.search(masked) is not None:
            syntax[name] = True
    syntax["lambda"] = has_lambda
    rpc = _RPC.search(masked) if any(cue in masked for cue in ff._rpc_cues) else None
    syntax["rpc_keyword"] = rpc.group(1) if rpc else None
    syntax["annotations"] = (
        sorted({f"@{a}" for a in _ANNOTATION.findall(masked)}) if ff._annotations and "@" in masked else []
    )
    has_connect = ff._connect and "connect" in masked
    syntax["callable_connect"] = has_connect and _CALLABLE_CONNECT.search(code_no_comments) is not None
    syntax["string_connect"] = has_connect and _STRING_CONNECT.search(code_no_comments) is not None
    syntax["unique_node"] = any(p.startswith(("%", "$%")) for p in paths) if paths else False
    return {
        "symbol_candidates": symbols,
        "api_call_candidates": calls,
        "reference_candidates": refs,
        "extra": {"syntax": syntax, "declared_names": declared, "identifiers": identifiers},
    }
