"""A small GDScript lexer: which characters are code, comment, string or node path.

Judging by AST position means a rename inside a comment or a string is not an API use
(godotengine/godot#66061). The masked text keeps every offset, so regexes run on it
and positions map straight back to the original.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_IDENT = re.compile(r"[A-Za-z_]\w*")
_NODE_PATH = re.compile(r"[\w/]+")


@dataclass
class Lexed:
    """Original text, a same-length masked copy and the string literals found."""

    text: str
    masked: str
    """Comments and string contents blanked, `$Node`/`%Node` paths blanked; quotes kept."""
    strings: list[tuple[str, str, int]] = field(default_factory=list)
    """(prefix, content, start offset) per string literal; prefix is '', '&', '^' or 'r'."""
    comments: list[str] = field(default_factory=list)
    no_comments: str = ""
    """Only comments blanked (strings kept): for rewrites that need string contents."""


def lex(text: str, *, comment_char: str = "#") -> Lexed:
    """Mask comments, strings and node paths of GDScript-like `text`."""
    out = list(text)
    bare = list(text)
    strings: list[tuple[str, str, int]] = []
    comments: list[str] = []
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == comment_char:
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments.append(text[i:j])
            blank(i, j)
            for k in range(i, j):
                bare[k] = " "
            i = j
            continue
        if c in "\"'":
            prefix = text[i - 1] if i > 0 and text[i - 1] in "&^r" and (i < 2 or not text[i - 2].isalnum()) else ""
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            j = i + len(quote)
            while j < n:
                if text[j] == "\\" and prefix != "r":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    break
                if len(quote) == 1 and text[j] == "\n":
                    break  # unterminated single-line string: stop at the line end
                j += 1
            content_end = min(j, n)
            strings.append((prefix, text[i + len(quote) : content_end], i))
            blank(i + len(quote), content_end)
            i = content_end + (len(quote) if text.startswith(quote, content_end) else 0)
            continue
        if c in "$%" and i + 1 < n and (text[i + 1].isalpha() or text[i + 1] in "_\"'"):
            if text[i + 1] in "\"'":
                i += 1  # $"path" : the string branch blanks it
                continue
            m = _NODE_PATH.match(text, i + 1)
            if m and (c == "$" or not (i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_)]"))):
                blank(i + 1, m.end())
                i = m.end()
                continue
        i += 1
    return Lexed(text=text, masked="".join(out), strings=strings, comments=comments, no_comments="".join(bare))


def identifiers(masked: str) -> list[str]:
    """Identifiers in code positions (numbers and keywords included; callers filter)."""
    return _IDENT.findall(masked)
