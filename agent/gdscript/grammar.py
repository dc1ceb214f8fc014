"""A second, independent Godot 4 grammar: gdtoolkit 4's parser (lark), beside tree-sitter.

tree-sitter-gdscript reads Godot 3 and Godot 4 alike and recovers from errors; gdtoolkit 4 implements
Godot 4's grammar alone and stops at the first token Godot 4 would not take (`func f(var x)`, a dictionary
mixing `"k": v` with `k = v`, an enum entry without its comma, `._draw()`, `export(int) var`). A migrated
script is only called migrated when both accept it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

_LOCK = threading.Lock()


@dataclass(frozen=True)
class GrammarError:
    line: int
    column: int
    message: str


@lru_cache(maxsize=1)
def _parser():
    from gdtoolkit.parser import parser

    return parser


@lru_cache(maxsize=256)
def godot4_grammar_error(text: str) -> GrammarError | None:
    """The first place gdtoolkit 4's Godot 4 grammar rejects `text`, or None when it parses whole."""
    from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput

    if not text.endswith("\n"):
        text += "\n"
    with _LOCK:  # lark's parser objects are not documented as thread-safe
        try:
            _parser().parse(text, gather_metadata=False)
        except UnexpectedEOF as exc:
            return GrammarError(text.count("\n") + 1, 1, f"unexpected end of file (expected {_expected(exc)})")
        except UnexpectedCharacters as exc:
            return GrammarError(exc.line, exc.column, f"unexpected character {exc.char!r}")
        except UnexpectedInput as exc:
            token = getattr(exc, "token", None)
            what = f"unexpected {str(token)!r}" if token is not None and str(token).strip() else "unexpected token"
            return GrammarError(max(1, getattr(exc, "line", 1) or 1), max(1, getattr(exc, "column", 1) or 1),
                                f"{what} (expected {_expected(exc)})")
        except (LarkError, RecursionError) as exc:
            return GrammarError(1, 1, f"not Godot 4 grammar: {type(exc).__name__}")
    return None


def line_start(text: str, line: int) -> int:
    """The byte offset where 1-based `line` of `text` starts (where a grammar error's line begins)."""
    data, at = text.encode(), 0
    for _ in range(line - 1):
        nl = data.find(b"\n", at)
        if nl < 0:
            return len(data)
        at = nl + 1
    return at


def _expected(exc) -> str:
    names = sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or [])
    return ", ".join(names[:6]) + (", ..." if len(names) > 6 else "") if names else "something else"
