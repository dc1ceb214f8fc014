"""Facts the retriever and judge need, read from a chunk's code with comments and strings masked.

Regular expressions over the lexer's views (`agent.parse.lexer`) are used instead of a Python
walk of every tree-sitter node: they are an order of magnitude faster, and they also work on
`unparsed` regions the grammar could not read, so broken code still yields search cues.

`Chunk.extra` keys written for `.gd` chunks:

- `declared_names`: names the code itself declares (vars, consts, funcs, params, classes,
  signals, enums, for-loop variables), so user names are never mistaken for Godot 3 APIs
  (`agent.judge.facts` reads it).
- `identifiers`: identifiers in code positions, in order of first use, keywords excluded
  (the surrounding context of a chunk is built from them).

Which version's syntax a chunk uses is the judge's to find (`agent.judge.syntax_rules`, on
the same lexer's masked text); the parser computes no syntax flags of its own.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from agent.parse.lexer import lex
from agent.parse.scan import CUE_PATH, KEYWORDS, scan_facts

_NODE_PATH = re.compile(r"\$%?(?:\"[^\"\n]*\"|'[^'\n]*'|[A-Za-z0-9_/%]+)")
_UNIQUE_RAW = re.compile(r"%[A-Za-z_]\w*")


def _unique_nodes(code: str) -> list[str]:
    """`%Name` scene-unique nodes, not the modulo operator (`a %b` follows an operand)."""
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
            out.append(m.group(0))
    return out


_RES_REF = re.compile(r"\b(?:res|user|uid)://[^\s\"')\]]*")
_GET_NODE_STR = re.compile(r"get_node(?:_or_null)?\s*\(\s*[\"']([^\"'\n]+)[\"']")
_LEAF = re.compile(r"[/%$\"']")
_NAME = re.compile(r"[A-Za-z_]\w*")


def _uniq(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def node_paths(code: str) -> list[str]:
    """`$Path`, `$%Name`, `%Name` and `get_node("...")` references, as written."""
    found = _NODE_PATH.findall(code) if "$" in code else []
    if "%" in code:
        found += _unique_nodes(code)
    if "get_node" in code:
        found += _GET_NODE_STR.findall(code)
    return _uniq(found)


class FileFacts:
    """One file lexed once; facts are then read per chunk (a chunk is a run of whole rows).

    Cues are checked once per file: absent from the file, absent from every chunk.
    """

    def __init__(self, text: str) -> None:
        lexed = lex(text)
        self.code = lexed.code
        """Comments and string contents blanked, node paths kept (the lexer's `code` view)."""
        no_comments = lexed.no_comments
        self.nc_lines = no_comments.split("\n")
        self._paths = "$" in self.code or "%" in self.code or "get_node" in self.code
        self._ref_rows = _rows_with("://", no_comments)

    def chunks(self, ranges: list[tuple[int, int]]) -> list[dict[str, Any]]:
        """Candidates and `extra` facts for each chunk on the file's 0-based rows [start, end)."""
        code_lines = self.code.split("\n")
        ref_rows = self._ref_rows
        out = []
        for start, end in ranges:
            scanned = scan_facts("\n".join(code_lines[start:end]))
            has_path = self._paths and bool(scanned[4] & CUE_PATH)
            i = bisect_left(ref_rows, start)
            has_ref = i < len(ref_rows) and ref_rows[i] < end
            # comments removed but strings kept: node paths and res:// refs need them
            nc = "\n".join(self.nc_lines[start:end]) if has_path or has_ref else ""
            out.append(_facts(scanned, nc, has_path, has_ref))
        return out


def _rows_with(cue: str, text: str) -> list[int]:
    """0-based rows of `text` that contain `cue` (which holds no line break)."""
    rows, pos, row = [], 0, 0
    while (i := text.find(cue, pos)) >= 0:
        row += text.count("\n", pos, i)
        rows.append(row)
        nl = text.find("\n", i)
        if nl < 0:
            break
        row += 1
        pos = nl + 1
    return rows


def _facts(
    scanned: tuple[list[str], list[str], list[str], list[str], int],
    code_no_comments: str,
    has_path: bool,
    has_ref: bool,
) -> dict[str, Any]:
    paths = node_paths(code_no_comments) if has_path else []
    # types and classes: capitalised identifiers in code positions (extends, annotations, calls, statics)
    identifiers, declared, calls, symbols = scanned[:4]
    for p in paths:
        leaf = _LEAF.split(p.strip("$%\"'"))[-1]
        if leaf[:1].isupper() and _NAME.fullmatch(leaf):
            symbols.append(leaf)
    if symbols:
        declared_set = set(declared)
        symbols = [t for t in dict.fromkeys(symbols) if t not in declared_set and t not in KEYWORDS]

    refs = _RES_REF.findall(code_no_comments) if has_ref else []
    refs = list(dict.fromkeys(refs + paths)) if refs or paths else []
    return {
        "symbol_candidates": symbols,
        "api_call_candidates": calls,
        "reference_candidates": refs,
        "extra": {"declared_names": declared, "identifiers": identifiers},
    }
