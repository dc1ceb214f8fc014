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

import functools
import re
from bisect import bisect_left
from typing import Any

from agent.parse.scan import CUE_CONNECT, CUE_PATH, KEYWORDS, scan_facts

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
# Every pattern below starts with a literal, so the regex engine jumps between occurrences of it
# instead of trying each position: `\bX` is written `X(?<!\wX)` and a line-start `^` is a `\n`
# searched in "\n" + text (same matches, 10-50x faster). None of them crosses a line break.
_RPC = re.compile(
    r"\n[ \t]*(remotesync|mastersync|puppetsync|remote|master|puppet|sync|slave)[ \t]+(?:func|var|static)\b"
)
_STRING_CONNECT = re.compile(r"connect\s*\(\s*[\"'][^\"'\n]*[\"']\s*,\s*[^,()\n]+,\s*[\"']")
_CALLABLE_CONNECT = re.compile(r"\.\s*connect\s*\(\s*(?![\"'\s)])")
# flag -> (substring that must be present, regex that decides, whether it is searched in "\n" + text)
_FLAGS: dict[str, tuple[str, re.Pattern[str], bool]] = {
    "tool": ("tool", re.compile(r"\n(?:tool|@tool)\b"), True),
    "export_keyword": ("export", re.compile(r"\n[ \t]*export\b"), True),
    "onready_keyword": ("onready", re.compile(r"\n[ \t]*onready\b"), True),
    "setget": ("setget", re.compile(r"setget(?<!\wsetget)\b"), False),
    "yield": ("yield", re.compile(r"yield(?<!\wyield)[ \t]*\("), False),
    "await": ("await", re.compile(r"await(?<!\wawait)\b"), False),
    "typed_array": ("Array", re.compile(r"Array(?<!\wArray)[ \t]*\["), False),
    "super_call": ("super", re.compile(r"super(?<!\wsuper)[ \t]*[.(]"), False),
    "property_accessors": (
        "et",  # `set(` and `get` both contain it
        re.compile(r"\n[ \t]+(?:set[ \t]*\([ \t]*\w+[ \t]*\)|get)[ \t]*:"),
        True,
    ),
}
_RPC_CUES = ("remote", "master", "puppet", "sync", "slave")
_REF_CUE = re.compile("://")
_LEAF = re.compile(r"[/%$\"']")
_NAME = re.compile(r"[A-Za-z_]\w*")
_ANNOTATION = re.compile(r"@(?<!\w@)([A-Za-z_]\w*)")


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
_FLAG_BIT = {name: 1 << i for i, name in enumerate(_FLAGS)}
_FLAG_BITS = tuple((bit, name) for name, bit in _FLAG_BIT.items())


class FileFacts:
    """One file's masked text, plus where the line-local syntax cues occur in it.

    Facts are read per chunk, but the syntax flags, rpc keyword and annotations are all found
    by regexes that never cross a line break, so each runs once over the whole file and the
    rows it matched are looked up per chunk (a chunk is a run of whole rows). Cues for the
    other facts are checked once per file too: absent from the file, absent from every chunk.
    """

    def __init__(self, text: str) -> None:
        no_comments, masked = mask_comments(text)
        self.masked = masked
        self.no_comments = no_comments
        self.nc_lines = no_comments.split("\n")
        self._connect = "connect" in masked
        self._paths = "$" in masked or "%" in masked or "get_node" in masked
        self._ref_rows = _rows(_REF_CUE, no_comments) if "://" in no_comments else []
        line_masked = "\n" + masked
        self._flag_rows = [
            (name, rows)
            for name, (cue, rx, at_line_start) in _FLAGS.items()
            if cue in masked and (rows := _rows(rx, line_masked if at_line_start else masked))
        ]
        self._rpc_rows = _rows(_RPC, line_masked, 1) if any(cue in masked for cue in _RPC_CUES) else []
        self._annotation_rows = _rows(_ANNOTATION, masked, 1) if "@" in masked else []

    @functools.cached_property
    def m_lines(self) -> list[str]:
        """The masked text's lines, split on first use."""
        return self.masked.split("\n")

    def chunk(self, start: int, end: int) -> dict[str, Any]:
        """Candidates and `extra` facts for the chunk on the file's 0-based rows [start, end)."""
        return self.chunks([(start, end)])[0]

    def chunks(self, ranges: list[tuple[int, int]]) -> list[dict[str, Any]]:
        """`chunk(start, end)` for each row range."""
        m_lines = self.m_lines
        return [
            self._chunk(start, end, scan_facts("\n".join(m_lines[start:end])), self._row_cues(start, end))
            for start, end in ranges
        ]

    def _row_cues(self, start: int, end: int) -> tuple[int, str | None, list[str]]:
        """(flag bits, rpc keyword, annotations) on rows [start, end)."""
        flags = 0
        for name, rows in self._flag_rows:
            if _in_rows(rows, start, end):
                flags |= _FLAG_BIT[name]
        rpc = None
        if self._rpc_rows:
            i = bisect_left(self._rpc_rows, (start,))
            if i < len(self._rpc_rows) and self._rpc_rows[i][0] < end:
                rpc = self._rpc_rows[i][1]
        annotations = []
        if self._annotation_rows:
            i = bisect_left(self._annotation_rows, (start,))
            j = bisect_left(self._annotation_rows, (end,), i)
            if j > i:
                annotations = sorted({f"@{a}" for _, a in self._annotation_rows[i:j]})
        return flags, rpc, annotations

    def _chunk(
        self,
        start: int,
        end: int,
        scanned: tuple[Any, ...],
        row_cues: tuple[int, str | None, list[str]],
    ) -> dict[str, Any]:
        cues = scanned[5]
        has_path = self._paths and bool(cues & CUE_PATH)
        has_connect = self._connect and bool(cues & CUE_CONNECT)
        has_ref = bool(self._ref_rows) and _in_rows(self._ref_rows, start, end)
        # comments removed but strings kept: only node paths, res:// refs and connect() need it
        nc = "\n".join(self.nc_lines[start:end]) if has_path or has_connect or has_ref else ""
        facts = _facts(scanned, nc, has_path, has_connect, has_ref)
        syntax = facts["extra"]["syntax"]
        flags, rpc, annotations = row_cues
        if flags:
            for bit, name in _FLAG_BITS:
                if flags & bit:
                    syntax[name] = True
        syntax["rpc_keyword"] = rpc
        syntax["annotations"] = annotations
        return facts


def _in_rows(rows: list[tuple[int, str]], start: int, end: int) -> bool:
    i = bisect_left(rows, (start,))
    return i < len(rows) and rows[i][0] < end


def _rows(rx: re.Pattern[str], text: str, group: int = 0) -> list[tuple[int, str]]:
    r"""(0-based row, matched group) of each match of a regex that never spans a line break.

    Also right for a line-start pattern searched in `"\n" + text`: its match starts at the `\n`
    that opens its row, and the line breaks before that one number the rows before it.
    """
    out = []
    row = pos = 0
    for m in rx.finditer(text):
        start = m.start()
        row += text.count("\n", pos, start)
        pos = start
        out.append((row, m.group(group)))
    return out


def _facts(
    scanned: tuple[list[str], list[str], list[str], bool, list[str], int],
    code_no_comments: str,
    has_path: bool,
    has_connect: bool,
    has_ref: bool,
) -> dict[str, Any]:
    paths = node_paths(code_no_comments) if has_path else []
    # types and classes: capitalised identifiers in code positions (extends, annotations, calls, statics)
    identifiers, declared, calls, has_lambda, symbols = scanned[:5]
    for p in paths:
        leaf = _LEAF.split(p.strip("$%\"'"))[-1]
        if leaf[:1].isupper() and _NAME.fullmatch(leaf):
            symbols.append(leaf)
    if symbols:
        declared_set = set(declared)
        symbols = [t for t in dict.fromkeys(symbols) if t not in declared_set and t not in KEYWORDS]

    refs = _RES_REF.findall(code_no_comments) if has_ref else []
    refs = list(dict.fromkeys(refs + paths)) if refs or paths else []

    syntax = dict(_NO_FLAGS)  # flags, rpc keyword and annotations: set by FileFacts.chunk from rows
    syntax["lambda"] = has_lambda
    syntax["rpc_keyword"] = None
    syntax["annotations"] = []
    syntax["callable_connect"] = has_connect and _CALLABLE_CONNECT.search(code_no_comments) is not None
    syntax["string_connect"] = has_connect and _STRING_CONNECT.search(code_no_comments) is not None
    syntax["unique_node"] = any(p.startswith(("%", "$%")) for p in paths) if paths else False
    return {
        "symbol_candidates": symbols,
        "api_call_candidates": calls,
        "reference_candidates": refs,
        "extra": {"syntax": syntax, "declared_names": declared, "identifiers": identifiers},
    }
