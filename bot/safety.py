"""Make user-provided text safe to show in Discord: no pings, no broken code fences, no secrets."""

from __future__ import annotations

import re

import discord

from agent.redact import redact

ZWSP = "\u200b"
_MASS = re.compile(r"@(everyone|here)", re.IGNORECASE)
_ID_MENTION = re.compile(r"<(@[!&]?)(\d+)>")
_FENCE = re.compile(r"`{3,}")


def no_mentions() -> discord.AllowedMentions:
    """The only allowed_mentions the bot ever sends: nobody is pinged."""
    return discord.AllowedMentions.none()


def neutralize_mentions(text: str) -> str:
    """Break @everyone/@here and <@id>/<@&role> so they render as text and never ping (channel links stay)."""
    text = _MASS.sub(lambda m: f"@{ZWSP}{m.group(1)}", text)
    return _ID_MENTION.sub(lambda m: f"<{m.group(1)}{ZWSP}{m.group(2)}>", text)


def redact_secrets(text: str, secrets: tuple[str | None, ...] = ()) -> str:
    """Mask known secret values, token shapes and URL credentials; shorten overlong runs (agent.redact)."""
    return redact(text, secrets)


def safe_text(text: str, secrets: tuple[str | None, ...] = ()) -> str:
    """User-provided or error text ready for Discord: secrets masked, mentions neutralized."""
    return neutralize_mentions(redact_secrets(text, secrets))


def code_block(code: str, lang: str = "gdscript", limit: int | None = None) -> str:
    """A fenced code block whose body cannot close the fence early; clipped to `limit` characters."""
    body = _FENCE.sub(lambda m: ZWSP.join(m.group(0)), neutralize_mentions(code.rstrip("\n")))
    head, tail = f"```{lang}\n", "\n```"
    if limit is not None and len(head) + len(body) + len(tail) > limit:
        room = max(limit - len(head) - len(tail) - 2, 0)
        body = body[:room].rstrip() + "\n…"
        if len(head) + len(body) + len(tail) > limit:
            return ""
    return head + body + tail
