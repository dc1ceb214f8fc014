"""What a TODO hunk still gets: Godot 4 grammar for Godot 3 grammar, so the file parses in Godot 4.

A hunk the engine could not write whole keeps its code for a person, but Godot 4 refuses a script with one
line of Godot 3 grammar in it. So the grammar is brought over anyway (a `setget` becomes `set =`/`get =`, whose
accessors Godot 4 also runs inside the class: the checker's `accessor-in-class` says where that matters) (annotations for `export`/`onready`/
`tool`, `super.f()` for `.f()`, `await` for `yield`, `var` dropped before parameters, one dictionary style,
enum commas; the engine's own line rules, `agent.judge.rewrite.syntax_edits`), and what still does not
parse is kept as a comment (`# godot3: <line>`) under the TODO, its block given a `pass` if it was left
empty. Everything here is pure text in, text out.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from agent.gdscript.grammar import godot4_grammar_error
from agent.parse.lexer import lex
from agent.parse.gdscript import _parser

COMMENTED = "# godot3: "
"""Prefix of a line kept as a comment because Godot 4 cannot parse it."""

_VAR_PARAM = re.compile(r"(?<=[(,])([ \t]*)var[ \t]+(?=[A-Za-z_])")


def _edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    data = text.encode()
    for start, end, new in sorted(edits, reverse=True):
        data = data[:start] + new.encode() + data[end:]
    return data.decode()


def grammar_edits(text: str) -> str:
    """Godot 3 grammar the Godot 4 grammar refuses and the engine's line rules do not cover, as Godot 4's:
    `func f(var x)` -> `func f(x)`, a dictionary mixing `k = v` and `"k": v` -> all `"k": v`, and a comma
    between enum entries that had none."""
    tree = _parser().parse(text.encode())
    edits: list[tuple[int, int, str]] = []
    stack = [tree.root_node]
    while stack:
        node: Node = stack.pop()
        t = node.type
        if t == "parameters":
            head = node.text.decode("utf-8", "replace")
            for m in _VAR_PARAM.finditer(head):
                at = node.start_byte + len(head[: m.start()].encode())
                edits.append((at, at + len(m.group(0).encode()), m.group(1)))
        elif t == "dictionary":
            pairs = [p for p in node.named_children if p.type == "pair"]
            lua = [p for p in pairs if any(c.type == "=" for c in p.children)]
            if lua and len(lua) < len(pairs):
                for p in lua:
                    key, eq = p.named_children[0], next(c for c in p.children if c.type == "=")
                    edits.append((key.start_byte, eq.end_byte, f'"{key.text.decode()}":'))
        stack.extend(node.children)
    text = _edits(text, edits) if edits else text
    return enum_commas(text)


_ENUM = re.compile(r"\benum\b[ \t]*\w*[ \t]*\{([^{}]*)\}")
_ONE_LINE_ENTRIES = re.compile(r"\s*[A-Za-z_]\w*(?:\s*=\s*-?\d+)?(?:\s+[A-Za-z_]\w*(?:\s*=\s*-?\d+)?)+\s*")
_BARE_ENTRY = re.compile(r"[A-Za-z_]\w*(?:\s*=\s*-?\d+)?")


def enum_commas(text: str) -> str:
    """A comma between enum entries that had none: entries on lines of their own (`A` newline `B = 2`), or a
    one-line body of names and numbers (`{ A B = 2 C }`). A value is never split: only a line's end, or the space
    between two bare entries, gets a comma. Read on the lexer's masked text, so comments never count."""
    masked = lex(text).masked
    inserts: list[int] = []
    for m in _ENUM.finditer(masked):
        body, at = m.group(1), m.start(1)
        if "\n" not in body:
            if _ONE_LINE_ENTRIES.fullmatch(body):
                entries = list(_BARE_ENTRY.finditer(body))
                inserts += [at + a.end() for a in entries[:-1]]
            continue
        lines = body.split("\n")
        offsets = [at + sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
        content = [(i, x.rstrip()) for i, x in enumerate(lines) if x.strip()]
        for (i, line), _next in zip(content, content[1:]):
            if not line.endswith(",") and not line.endswith("{"):
                inserts.append(offsets[i] + len(line))
    for at in sorted(inserts, reverse=True):
        text = text[:at] + "," + text[at:]
    return text


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def comment_out(text: str, line: int) -> str:
    """`text` with the statement at 1-based `line` (and the block it opens) kept as `# godot3:` comments, and
    a `pass` where that leaves a block with no statement."""
    lines = text.split("\n")
    i = line - 1
    if not 0 <= i < len(lines) or not lines[i].strip():
        return text
    while i > 0 and lines[i - 1].rstrip().endswith("\\"):
        i -= 1  # the statement starts on the line this one continues
    ind = _indent(lines[i])
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or len(_indent(lines[j])) > len(ind)
                              or lines[j - 1].rstrip().endswith(("\\", "(", "[", "{", ","))):
        j += 1
    while j > i + 1 and not lines[j - 1].strip():
        j -= 1
    kept = [f"{_indent(x) or ind}{COMMENTED}{x.strip()}" if x.strip() else x for x in lines[i:j]]
    out = lines[:i] + kept
    # the block this was the only statement of (the code line above opens it, none below is in it) needs a `pass`
    above = next((x for x in reversed(lines[:i]) if x.strip() and not x.strip().startswith("#")), "")
    below = next((x for x in lines[j:] if x.strip() and not x.strip().startswith("#")), "")
    if ind and above.rstrip().endswith(":") and len(_indent(above)) < len(ind) \
            and (not below or len(_indent(below)) < len(ind)):
        out.append(f"{ind}pass")
    return "\n".join(out + lines[j:])
