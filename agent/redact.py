"""The one redaction every front door applies to text it echoes back (CLI stderr, chat replies, Discord).

Users paste URLs with credentials (`https://user:pass@github.com/a/b`, `https://ghp_…@github.com/a/b`)
and very long strings; an error message that quotes them would put the secret on a terminal, in the
chat's stored thread or in a Discord channel, and a 10 KB URL would drown the message. `redact`
masks credentials and token-shaped strings and shortens any overlong unbroken run of characters, so
the message still says what was refused without repeating it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
LONG_RUN = 200
"""Unbroken runs (URLs, paths, tokens) longer than this many characters are shortened."""
KEEP = 80
"""Characters of an overlong run that are kept, before the marker that says how long it was."""

_USERINFO = re.compile(r"(?<=://)[^/\s@'\"<>]+@")
_SECRET_PATTERNS = (
    re.compile(r"[\w-]{23,28}\.[\w-]{6,7}\.[\w-]{27,}"),  # Discord bot token shape
    re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})\b"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{16,}\b"),
    re.compile(r"(?i)(?<=\bpassword=)[^\s&'\"]+"),  # libpq key=value strings and query parameters
)
_RUN = re.compile(r"\S{%d,}" % (LONG_RUN + 1))


def _shorten(match: re.Match[str]) -> str:
    run = match.group(0)
    return f"{run[:KEEP]}…({len(run):,} characters)"


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with known secret values, URL credentials and token shapes masked, and long runs shortened.

    `secrets` are exact values to mask (the Discord token, the LLM key, the database URL); values
    shorter than 6 characters are ignored, as they would mask ordinary words.
    """
    for secret in secrets:
        if secret and len(secret) >= 6:
            text = text.replace(secret, MASK)
    text = _USERINFO.sub(MASK + "@", text)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(MASK, text)
    return _RUN.sub(_shorten, text)


def user_message(exc: BaseException, secrets: Iterable[str | None] = ()) -> str:
    """An exception's message as a front door may show it: redacted, on one short paragraph."""
    return redact(str(exc) or type(exc).__name__, secrets)
