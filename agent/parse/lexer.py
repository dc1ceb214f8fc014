"""The one GDScript lexer: which characters are code, comment, string or node path.

Judging by AST position means a rename inside a comment or a string is not an API use
(godotengine/godot#66061), and the parser's search cues must not come from comments or strings
either. Every view keeps the text's length and line breaks, so regexes run on a view and
positions map straight back to the original. The parser reads `code`; the judge reads
`masked` and `no_comments` (through `agent.judge.lexer`, which re-exports this module).

One regex finds every comment, string and node path, left to right: a comment runs to the
line end; a string opens on `"`, `'`, `\"\"\"` or `'''`, optionally prefixed `&` (StringName),
`^` (NodePath) or `r` (raw: backslashes escape nothing), and an unterminated one-line string
stops at the line end; `$Name/Path` is a node path, and so is `%Name` unless it follows an
operand (`a%b` is a modulo).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NOT_NEWLINE = re.compile(r"[^\n]")
_QUOTES = ('"""', "'''", '"', "'")  # the longest first
# A string's body, per quote: it stops before the closing quote, a one-line string's line end,
# or the end of the text; outside raw strings a backslash takes the next character with it.
_BODY = {
    '"""': r'(?:\\[\s\S]?|"(?!"")|[^"\\])*',
    "'''": r"(?:\\[\s\S]?|'(?!'')|[^'\\])*",
    '"': r'(?:\\[\s\S]?|[^"\\\n])*',
    "'": r"(?:\\[\s\S]?|[^'\\\n])*",
}
_RAW_BODY = {'"""': r'(?:"(?!"")|[^"])*', "'''": r"(?:'(?!'')|[^'])*", '"': r'[^"\n]*', "'": r"[^'\n]*"}


def _strings(group: str, bodies: dict[str, str]) -> str:
    """One alternative per quote: opening quote, body (group `group<n>`), closing quote if any."""
    return "|".join(f"{q}(?P<{group}{n}>{bodies[q]})(?:{q})?" for n, q in enumerate(_QUOTES))


_RAW_STRING = re.compile(_strings("r", _RAW_BODY))


@cache
def _scanner(comment_char: str) -> re.Pattern[str]:
    """Comments, raw strings (`r` not after a letter or digit), other strings, node paths.

    Every alternative opens with a literal character, so the regex engine jumps between them
    instead of trying each position. A `%` after a name, `)` or `]` is an operator (`a%b`),
    not a node path.
    """
    return re.compile(
        rf"{re.escape(comment_char)}(?P<comment>[^\n]*)"
        rf"|r(?<![^\W_]r)(?:{_strings('r', _RAW_BODY)})"
        f"|{_strings('s', _BODY)}"
        r"|\$(?P<path>[\w/]+)|%(?<![\w)\]]%)(?P<unique>[\w/]+)"
    )


@dataclass
class Lexed:
    """Original text, same-length masked views of it, and the string literals and comments found."""

    text: str
    masked: str
    """Comments and string contents blanked, `$Node`/`%Node` paths blanked; quotes kept."""
    strings: list[tuple[str, str, int]] = field(default_factory=list)
    """(prefix, content, start offset) per string literal; prefix is '', '&', '^' or 'r'."""
    comments: list[str] = field(default_factory=list)
    no_comments: str = ""
    """Only comments blanked (strings kept): for rewrites that need string contents."""
    code: str = ""
    """Comments and string contents blanked, node paths kept: the parser's token scan reads it."""


def lex(text: str, *, comment_char: str = "#") -> Lexed:
    """Mask comments, strings and node paths of GDScript-like `text`."""
    # Each view is the text with some runs blanked, joined from alternating kept and blanked
    # parts; `done`, `code_done` and `bare_done` are how far each view has got.
    masked: list[str] = []
    code: list[str] = []
    bare: list[str] = []
    strings: list[tuple[str, str, int]] = []
    comments: list[str] = []
    done = code_done = bare_done = 0
    search = _scanner(comment_char).search
    m = search(text)
    while m is not None:
        i = m.start()
        kind = m.lastgroup
        if kind == "comment":
            j = m.end()
            comments.append(text[i:j])
            gone = " " * (j - i)
            masked += (text[done:i], gone)
            code += (text[code_done:i], gone)
            bare += (text[bare_done:i], gone)
            done = code_done = bare_done = j
            m = search(text, j)
            continue
        if kind == "path" or kind == "unique":  # only `masked` blanks node paths
            nxt = text[i + 1]
            if not (nxt.isalpha() or nxt == "_"):  # `$1`, `%/`: plain code
                m = search(text, i + 1)
                continue
            end = m.end()
            masked += (text[done : i + 1], " " * (end - i - 1))
            done = end
            if text[end - 1] == "r" and text[end : end + 1] in ("'", '"') and not text[end - 2].isalnum():
                m = _RAW_STRING.match(text, end)  # `$Path/r"..."`: that `r` also makes the string raw
                i = end
            else:
                m = search(text, end)
                continue
        # a string: its body's group is r<n> (raw) or s<n>; a raw one found by `search` opens on the `r`
        assert m is not None
        kind = m.lastgroup
        assert kind is not None
        if kind[0] == "r":
            prefix = "r"
            i = m.start() + (text[m.start()] == "r")
        else:
            before = text[i - 1] if i > 0 else ""
            prefix = before if before in ("&", "^") and (i < 2 or not text[i - 2].isalnum()) else ""
        start, content_end = m.span(kind)
        content = text[start:content_end]
        strings.append((prefix, content, i))
        gone = " " * len(content) if "\n" not in content else _NOT_NEWLINE.sub(" ", content)
        masked += (text[done:start], gone)
        code += (text[code_done:start], gone)
        done = code_done = content_end
        m = search(text, m.end())
    masked.append(text[done:])
    code.append(text[code_done:])
    bare.append(text[bare_done:])
    return Lexed(
        text=text,
        masked="".join(masked),
        strings=strings,
        comments=comments,
        no_comments="".join(bare),
        code="".join(code),
    )


def identifiers(masked: str) -> list[str]:
    """Identifiers in code positions (numbers and keywords included; callers filter)."""
    return _IDENT.findall(masked)
