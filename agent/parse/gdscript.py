"""Cut a `.gd` file into ordered AST chunks with tree-sitter-gdscript.

Only the top level of the tree is walked; each top-level declaration becomes one piece (a run
of adjacent `var`/`const` lines is one `declaration_group`). What the grammar cannot read
(6.1 fails on Godot 3 `sync func`, on `$%Unique` and on a column-0 comment inside a block) is
either recovered by blanking that keyword or comment to spaces of equal length before parsing,
so every row and column stays true, or kept as an `unparsed` chunk. A final sweep guarantees
the coverage invariant: every non-blank, non-comment line lies in exactly one chunk.

Hostile shapes keep the chunk count sane: code nested deeper than the grammar's indent stack
(it then hands back bare tokens) is one broken region, not one chunk per line, and long runs
of tiny declarations fold into one chunk per `FOLDED_LINES` lines (`_fold_tiny_runs`).

`Chunk.extra` keys written here, besides those of `agent.parse.facts`: `leading_annotations`
(the annotations above a declaration), `recovered` (what was blanked before parsing) and
`members` (each folded piece's kind, name and lines).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from hashlib import sha256
from itertools import filterfalse
from operator import attrgetter
from typing import Any

import tree_sitter_gdscript
from tree_sitter import Language, Node, Parser

from agent.parse.facts import FileFacts
from agent.parse.text import Lines, is_code_line

_DECL_NODES = {
    "variable_statement",
    "const_statement",
    "export_variable_statement",
    "onready_variable_statement",
}
_KIND_OF = {
    "extends_statement": "class_extends",
    "class_name_statement": "class_name",
    "signal_statement": "signal",
    "enum_definition": "enum",
    "function_definition": "function",
    "constructor_definition": "function",
    "class_definition": "inner_class",
}
_NAMED_KINDS = frozenset(_KIND_OF.values())  # every kind `_pieces` names (all but "tool")
# the piece kind of each declaration node type (what `_pieces` does not find here is special)
_PIECE_KIND = {**dict.fromkeys(_DECL_NODES, "declaration_group"), **_KIND_OF}
# node types whose name `_name` reads from the "name" field first
_NAME_FIELD_NODES = (_DECL_NODES | _KIND_OF.keys()) - {"constructor_definition", "extends_statement"}
_ORDINAL_KINDS = {"class_extends", "tool", "unparsed"}
_CONTEXT_KINDS = {"function", "inner_class", "unparsed"}  # extends + the declarations they use
_NO_CONTEXT_KINDS = {"class_extends", "class_name", "tool"}
# What the 6.1 grammar rejects; blanked (same length) before parsing, facts read from the original.
_RECOVER = [
    (re.compile(rb"^([ \t]*)(sync)(?=[ \t]+(?:func|var|static)\b)", re.M), 2, "sync keyword"),
    (re.compile(rb"(\$)(?=%)"), 1, "$% unique node path"),
]

_local = threading.local()


def _parser() -> Parser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = Parser(Language(tree_sitter_gdscript.language()))
        _local.parser = parser
    return parser


@dataclass(slots=True)
class Piece:
    """A line range that becomes one chunk (rows are 0-based, inclusive)."""

    kind: str
    node_kinds: list[str]
    start: int
    end: int
    name: str | None = None
    status: str = "ok"
    declared: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    members: list[tuple[str, str | None, int, int]] = field(default_factory=list)
    """(kind, name, first row, last row) of each tiny piece folded in by `_fold_tiny_runs`; else empty."""


def _recover(src: bytes) -> tuple[bytes, dict[int, str]]:
    """Blank what the grammar cannot read; return the bytes to parse and {row: what was recovered}."""
    notes: dict[int, str] = {}
    if b"sync" not in src and b"$%" not in src and b"\n#" not in src:
        return src, notes
    buf = bytearray(src)
    _blank_block_comments(src, buf)
    for rx, group, label in _RECOVER:
        for m in rx.finditer(src):
            s, e = m.span(group)
            buf[s:e] = b" " * (e - s)
            notes[src.count(b"\n", 0, s)] = label
    return bytes(buf), notes


def _blank_block_comments(src: bytes, buf: bytearray) -> None:
    """Blank column-0 comments that lie inside a block: the next code line after them is indented.

    Commented-out code at column 0 in a `match` branch ends the block for the grammar's indent
    scanner; blanked, it is a blank line. A comment is no code, so nothing is noted. One pass from
    the end (a run of comments takes the indentation of the code line below it).
    """
    lines = src.split(b"\n")
    end = len(src) + 1  # one past the last line's end, as if a newline followed it
    inside = False  # the next code line below is indented
    for line in reversed(lines):
        start = end - len(line) - 1
        end = start
        line = line.rstrip(b"\r")
        if line.startswith(b"#"):
            if inside:
                buf[start : start + len(line)] = b" " * len(line)
        elif line.strip() and not line.lstrip().startswith(b"#"):
            inside = line[:1] in (b" ", b"\t")


def _last_row(node: Node) -> int:
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def _name(node: Node, t: str | None = None) -> str | None:
    """The declared name of a top-level node (`t`: its type, when the caller has it already)."""
    if t is None:
        t = node.type
    if t == "constructor_definition":
        return "_init"
    if t == "extends_statement":
        text = node.text.decode("utf-8", "replace") if node.text else ""
        return text.split(None, 1)[-1].strip()
    n = node.child_by_field_name("name")
    if n is None:
        for c in node.children:
            if c.type == "name":
                n = c
                break
    if n is None:
        return None
    text = n.text
    return text.decode("utf-8", "replace") if text is not None else None


# `\bvar` written `var(?<!\wvar)`: the pattern then opens with a literal the engine can jump to
_VAR_NAME = re.compile(r"(?:var(?<!\wvar)|const(?<!\wconst))\s+([A-Za-z_]\w*)")
_DECL_START = re.compile(
    rb"^(?:@|func\b|static\b|var\b|const\b|signal\b|class\b|class_name\b|enum\b|extends\b|export\b|onready\b"
    rb"|remote\b|master\b|puppet\b|remotesync\b|mastersync\b|puppetsync\b)"
)


class _Rows:
    """The parsed bytes split into rows on first use: only broken code (`_error_region`) needs them."""

    __slots__ = ("_rows", "src")

    def __init__(self, src: bytes) -> None:
        self.src = src
        self._rows: list[bytes] | None = None

    @property
    def rows(self) -> list[bytes]:
        if self._rows is None:
            self._rows = self.src.split(b"\n")
        return self._rows


def _error_region(row: int, last: int, rows: _Rows, depth: int) -> list[Piece]:
    """An ERROR node: keep the broken lines as `unparsed` and re-parse what follows them.

    tree-sitter's error recovery often swallows valid declarations after a broken line (a
    following `func` can come back as a lambda inside the ERROR). Splitting at the next
    column-0 declaration keyword and parsing the rest on its own recovers them.
    """
    parsed_lines = rows.rows
    split = next((r for r in range(row + 1, last + 1) if _DECL_START.match(parsed_lines[r])), None)
    if split is None or depth > 50:
        return [Piece("unparsed", ["ERROR"], row, last, status="error")]
    head = Piece("unparsed", ["ERROR"], row, split - 1, status="error")
    while head.end > head.start and not parsed_lines[head.end].strip():
        head.end -= 1
    sub = b"\n".join(parsed_lines[split : last + 1])
    tree = _parser().parse(sub)
    return [head, *_pieces(tree.root_node, rows, offset=split, depth=depth + 1)]


def _pieces(root: Node, rows: _Rows, *, offset: int = 0, depth: int = 0) -> list[Piece]:
    pieces: list[Piece] = []
    lead: int | None = None  # first row of the comment/annotation block waiting for the next declaration
    lead_last = -2
    lead_notes: list[str] = []
    children = root.children
    skip_to = 0  # children before this index were folded into the previous error region
    for i, node in enumerate(children):
        if i < skip_to:
            continue
        t = node.type
        (row, col), (end_row, end_col) = node.start_point, node.end_point  # one call each: they allocate
        last = (end_row - 1 if end_col == 0 and end_row > row else end_row) + offset  # as `_last_row`
        row += offset
        kind = _PIECE_KIND.get(t)  # None: a comment, an annotation, `tool`, or broken
        if kind is None:
            if t in ("comment", "region_start", "region_end"):
                if col > 0 and pieces and lead is None:
                    pieces[-1].end = max(pieces[-1].end, last)  # an indented comment ends the last body
                elif lead is None or (row > lead_last + 1 and not lead_notes):
                    lead, lead_last = row, last
                else:
                    lead_last = last
                continue
            if t == "annotation":
                text = node.text.decode("utf-8", "replace") if node.text else ""
                if text.strip() == "@tool":
                    pieces.append(Piece("tool", [t], row, last, name=None))
                    lead, lead_notes = None, []
                    continue
                if lead is None or (row > lead_last + 1 and not lead_notes):
                    lead = row
                lead_last = last
                lead_notes.append(text.strip())
                continue
            if t == "expression_statement" and node.text is not None and node.text.strip() == b"tool":
                kind = "tool"
            else:
                # broken, or a statement that is not valid at class level
                skip_to, last = _broken_run(children, i, last, offset)
                sub = _error_region(row, last, rows, depth)
                if lead is not None:
                    sub[0].start = lead
                lead, lead_notes = None, []
                for piece in sub:
                    if pieces and piece.start <= pieces[-1].end:
                        _merge(pieces[-1], piece)
                    else:
                        pieces.append(piece)
                continue
        start = row
        if lead is not None:
            # comments/annotations directly above belong to this declaration (a blank line breaks it)
            start = lead if row == lead_last + 1 or lead_notes else row
        if kind == "tool":
            status, name = "ok", None
        else:
            status = "partial" if node.has_error else "ok"
            # every other kind is named (`_NAMED_KINDS`): `_name`, its usual case inlined
            n = node.child_by_field_name("name") if t in _NAME_FIELD_NODES else None
            if n is not None:
                text = n.text
                name = text.decode("utf-8", "replace") if text is not None else None
            else:
                name = _name(node, t)
        prev = pieces[-1] if pieces else None
        if (
            prev is not None
            and kind == "declaration_group"
            and prev.kind == "declaration_group"
            and start <= prev.end + 1
        ):
            # the next line of a declaration group: `_merge(prev, Piece(...))` without the Piece
            if last > prev.end:
                prev.end = last
            prev.node_kinds.append(t)
            if name:
                prev.declared.append(name)
            if lead_notes:
                prev.notes += lead_notes
            if status != "ok" or prev.status != "ok":
                prev.status = "partial"
            lead, lead_notes = None, []
            continue
        declared = [name] if name and kind == "declaration_group" else []
        piece = Piece(kind, [t], start, last, name, status, declared, lead_notes)
        lead, lead_notes = None, []
        if prev is not None and piece.start <= prev.end:
            _merge(prev, piece)
        else:
            pieces.append(piece)
    if lead is not None and lead_notes:
        # annotations with nothing after them: keep them visible
        pieces.append(Piece("unparsed", ["annotation"], lead, root.end_point.row + offset, status="error"))
    return pieces


def _broken_run(children: list[Node], i: int, last: int, offset: int) -> tuple[int, int]:
    """(index after, last row of) the broken code starting at child `i`.

    Deep nesting (beyond what the grammar's indent stack holds) comes back as a flat list of
    bare tokens at the top level. The tokens after the first that start indented, or on a row
    the run already holds, continue the same broken code: one region, not one chunk per line.
    """
    j = i + 1
    while j < len(children):
        node = children[j]
        t = node.type
        (row, col), (end_row, end_col) = node.start_point, node.end_point
        if (t in _PIECE_KIND or t == "annotation") and col == 0:
            break  # a declaration or an annotation of its own
        if col == 0 and row + offset > last:
            break  # a new top-level line: handled on its own, as before
        last = max(last, (end_row - 1 if end_col == 0 and end_row > row else end_row) + offset)
        j += 1
    return j, last


def _merge(prev: Piece, piece: Piece) -> None:
    """Fold a piece that shares lines with the previous one into it (one line, one chunk)."""
    prev.end = max(prev.end, piece.end)
    prev.node_kinds += piece.node_kinds
    prev.declared += piece.declared
    prev.notes += piece.notes
    if prev.kind == "unparsed":
        prev.status = "error"
    elif piece.status != "ok" or prev.status != "ok":
        prev.status = "partial"  # a declaration with broken lines folded in


_START = attrgetter("start")  # a piece's first row: the sort key of `_cover`


def _cover(pieces: list[Piece], text: list[str]) -> list[Piece]:
    """Fold overlapping pieces, then add `unparsed` pieces for code lines (of `text`) that no piece holds."""
    out: list[Piece] = []
    for p in sorted(pieces, key=_START):
        if out and p.start <= out[-1].end:
            _merge(out[-1], p)
            continue
        out.append(p)
    gaps: list[Piece] = []
    bounds = [(-1, -1), *((p.start, p.end) for p in out), (len(text), len(text))]
    for (_, prev_end), (next_start, _) in zip(bounds, bounds[1:], strict=False):
        r = prev_end + 1
        while r < next_start:  # only the lines between pieces: usually blanks and comments
            if is_code_line(text[r]):
                s = r
                while r + 1 < next_start and text[r + 1].strip():
                    r += 1
                gaps.append(Piece("unparsed", ["uncovered"], s, r, status="error"))
            r += 1
    return sorted(out + gaps, key=_START) if gaps else out


TINY_LINES = 2
"""A piece of at most this many lines (`func f():` + `pass`, a `signal`) is tiny."""
TINY_RUN = 16
"""Only runs of at least this many consecutive tiny pieces are folded together."""
FOLDED_LINES = 64
"""A folded chunk spans at most this many lines."""
_UNFOLDED_KINDS = frozenset({"class_extends", "class_name", "tool"})


def _fold_tiny_runs(pieces: list[Piece]) -> list[Piece]:
    """Fold long runs of tiny pieces into chunks of up to `FOLDED_LINES` lines.

    50,000 one-line functions would otherwise be 50,000 chunks, each a retrieval and a
    judgment. Ordinary code never has `TINY_RUN` such pieces in a row, so it chunks as before.
    Declarations of any kind fold together (a `signal` between one-line functions does not
    break the run); `unparsed` pieces fold only with each other. A folded piece keeps each
    member's kind, name and rows (`Chunk.extra["members"]`); its kind is its members' most
    common one, its name `first..last`. The lines between members are blank or comments (`_cover` left no code
    outside a piece), so the folded span holds exactly the members' code.
    """
    out: list[Piece] = []
    i, n = 0, len(pieces)
    while i < n:
        p = pieces[i]
        j = i
        while (
            j < n
            and pieces[j].end - pieces[j].start < TINY_LINES
            and pieces[j].kind not in _UNFOLDED_KINDS
            and (pieces[j].kind == "unparsed") == (p.kind == "unparsed")  # broken code folds apart
        ):
            j += 1
        if j - i < TINY_RUN:
            out.append(p)
            i += 1
            continue
        while i < j:  # the run pieces[i:j], cut into groups of at most FOLDED_LINES lines
            k = i + 1
            while k < j and pieces[k].end - pieces[i].start < FOLDED_LINES:
                k += 1
            out.append(_folded(pieces[i:k]))
            i = k
    return out


def _folded(group: list[Piece]) -> Piece:
    """One piece holding `group` (consecutive tiny pieces), its members listed."""
    first, last = group[0], group[-1]
    if len(group) == 1:
        return first
    names = first.name, last.name
    kinds = Counter(p.kind for p in group)
    piece = Piece(
        max(kinds, key=kinds.__getitem__),  # the most common; the first of a tie
        [t for p in group for t in p.node_kinds],
        first.start,
        last.end,
        f"{names[0]}..{names[1]}" if names[0] and names[1] else None,
        "error" if first.kind == "unparsed" else "partial" if any(p.status != "ok" for p in group) else "ok",
        [d for p in group for d in p.declared],
        [a for p in group for a in p.notes],
        [(p.kind, p.name, p.start, p.end) for p in group],
    )
    return piece


def _code_spans(text: str, rows: list[str], ranges: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """(code, start_byte, end_byte) of each row range, as `Lines.slice` and `Lines.byte_span` give them.

    `rows` are `text`'s lines (`Lines.of(text).lines`) and the ranges ascend without overlap,
    as `_cover` leaves the pieces. Without a CR in the text, a range's code is one slice of
    the text (rows joined with "\\n" are the text between them); byte offsets are counted
    only at range boundaries, from the characters between them (ASCII: one byte each).
    """
    out: list[tuple[str, int, int]] = []
    if "\r" in text:  # rows lost their CR: join them, offsets from the per-row table
        lines = Lines.of(text)
        starts, lengths = lines.starts, lines.lengths
        for start, last in ranges:
            out.append(("\n".join(rows[start:last]), starts[start], starts[last - 1] + lengths[last - 1]))
        return out
    ascii_text = text.isascii()
    row = cpos = bpos = 0  # row `row` starts at character `cpos`, byte `bpos`
    for start, last in ranges:
        if start != row:
            gap = sum(map(len, rows[row:start])) + start - row
            bpos += gap if ascii_text else len(text[cpos : cpos + gap].encode("utf-8"))
            cpos += gap
        size = sum(map(len, rows[start:last])) + last - start - 1
        code = text[cpos : cpos + size]
        end = bpos + (size if ascii_text else len(code.encode("utf-8")))
        out.append((code, bpos, end))
        row, cpos, bpos = last, cpos + size + 1, end + 1
    return out


def chunk_gdscript(text: str) -> list[dict[str, Any]]:
    """Path-independent chunk drafts for one GDScript file (see `agent.parse.chunk_file`)."""
    if not text.strip():  # every line blank (str.strip and the per-line strip agree on blanks)
        return []
    rows = text.split("\n")
    if len(rows) > 1 and rows[-1] == "":
        rows.pop()  # the final newline ends the last line (as `Lines.of`)
    if "\r" in text:
        rows = [r[:-1] if r.endswith("\r") else r for r in rows]
    src = text.encode("utf-8")
    to_parse, recovered = _recover(src)
    tree = _parser().parse(to_parse)
    pieces = _fold_tiny_runs(_cover(_pieces(tree.root_node, _Rows(to_parse)), rows))
    del tree

    facts = FileFacts(text)

    extends_text = "\n".join(
        "\n".join(rows[p.start : p.end + 1]) for p in pieces if p.kind in ("class_extends", "class_name")
    )
    extends_stripped = extends_text.strip()
    decl_text: dict[str, str] = {}
    groups = [p for p in pieces if p.kind == "declaration_group"]
    if groups:
        # the code rows up to the last group's only (declarations usually open the file): rows
        # 0..k of `code.split("\n", k + 1)` are those of `code.split("\n")`
        m_lines = facts.code.split("\n", max(p.end for p in groups) + 1)
        find_names = _VAR_NAME.findall  # one group: the names, as `m.group(1)` of each match
        for p in groups:
            for r in range(p.start, p.end + 1):
                for name in find_names(m_lines[r]):
                    if name not in decl_text:
                        decl_text[name] = rows[r]
    n_lines = len(rows)
    ranges = [(p.start, p.end + 1 if p.end < n_lines else n_lines) for p in pieces]
    all_facts = facts.chunks(ranges)
    spans = _code_spans(text, rows, ranges)
    if recovered:  # what was blanked before parsing, noted on the chunks holding those rows
        for (start, last), chunk_facts in zip(ranges, all_facts, strict=True):
            rec = sorted({recovered[r] for r in range(start, last) if r in recovered})
            if rec:
                chunk_facts["extra"]["recovered"] = rec
    return _drafts(pieces, ranges, all_facts, spans, decl_text, extends_text, extends_stripped)


def _drafts(
    pieces: list[Piece],
    ranges: list[tuple[int, int]],
    all_facts: list[dict[str, Any]],
    spans: list[tuple[str, int, int]],
    decl_text: dict[str, str],
    extends_text: str,
    extends_stripped: str,
) -> list[dict[str, Any]]:
    """The chunk drafts of a file's pieces.

    `ranges` are the pieces' (0-based first row, 1-based last line), `all_facts` their facts
    dicts and `spans` their (code, start_byte, end_byte); `decl_text` maps each file-level
    declared name to its declaration row, for the surrounding context.
    """
    drafts: list[dict[str, Any]] = []
    counters: dict[str, int] = {}
    seen: dict[str, int] = {}
    has_decl = decl_text.__contains__
    for p, (start, last), chunk_facts, (code, start_byte, end_byte) in zip(
        pieces, ranges, all_facts, spans, strict=True
    ):
        # `start` is the 0-based first row; `last` the 1-based last line (as `min(p.end + 1, n_lines)`)
        kind, name = p.kind, p.name
        n = counters[kind] = counters.get(kind, 0) + 1
        local_id = f"{kind}:{n}" if kind in _ORDINAL_KINDS or not name else f"{kind}:{name}"
        if local_id in seen:
            k = seen[local_id] = seen[local_id] + 1
            local_id = f"{local_id}~{k}"
        else:
            seen[local_id] = 1
        extra = chunk_facts["extra"]
        if p.notes:
            extra["leading_annotations"] = p.notes
        if p.members:
            extra["members"] = [
                {"kind": k, "name": n, "start_line": a + 1, "end_line": b + 1} for k, n, a, b in p.members
            ]
        if kind in _CONTEXT_KINDS:
            used: list[str] = []
            if decl_text:
                used = list(filter(has_decl, extra["identifiers"]))
                if used:
                    declared = extra["declared_names"]
                    if declared:
                        used = list(filterfalse(set(declared).__contains__, used))
                    used = [decl_text[i] for i in used[:12]]
            context = "\n".join([extends_text, *used]).strip() if used else extends_stripped
        elif kind in _NO_CONTEXT_KINDS:
            context = ""
        else:
            context = extends_text
        node_kinds = p.node_kinds
        drafts.append(  # Chunk's fields but the file's own (`agent.parse._chunks` adds them)
            {
                "chunk_id": local_id,
                "chunk_kind": kind,
                "node_kind": node_kinds[0] if len(node_kinds) == 1 else "+".join(dict.fromkeys(node_kinds)),
                "name": name,
                "span": {
                    "start_line": start + 1,
                    "end_line": last,
                    "start_byte": start_byte,
                    "end_byte": end_byte,
                },
                "code_text": code,
                "sha256": sha256(code.encode()).hexdigest(),
                "symbol_candidates": chunk_facts["symbol_candidates"],
                "api_call_candidates": chunk_facts["api_call_candidates"],
                "reference_candidates": chunk_facts["reference_candidates"],
                "surrounding_context": context,
                "parse_status": p.status,
                "extra": extra,
            }
        )
    return drafts
