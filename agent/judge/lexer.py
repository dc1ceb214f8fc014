"""The judge's view of the one GDScript lexer, `agent.parse.lexer` (re-exported here).

The parser's search cues and the judge's syntax rules (`agent.judge.syntax_rules`) read the
same masked text, so a comment or a string can never count as code for one and not the other.
"""

from __future__ import annotations

from agent.parse.lexer import Lexed, identifiers, lex

__all__ = ["Lexed", "identifiers", "lex"]
