"""Discord's hard limits, in one place, so every formatter checks the same numbers."""

from __future__ import annotations

CONTENT = 2_000
"""Message content characters."""
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4_096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1_024
EMBED_FOOTER = 2_048
EMBED_AUTHOR = 256
EMBED_TOTAL = 6_000
"""Sum of title, description, field names/values, footer text and author name."""
EMBEDS_PER_MESSAGE = 10
THREAD_NAME = 100
FILE_BYTES = 8_000_000
"""Attachments the bot sends stay under the smallest upload cap Discord applies (non-boosted server)."""
FILES_PER_MESSAGE = 10
ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, marking the cut with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - len(ELLIPSIS), 0)] + ELLIPSIS
