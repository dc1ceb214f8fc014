"""Assertions that a message respects every Discord limit (shared by the bot tests)."""

from __future__ import annotations

from typing import Any

import discord

from bot import limits


def assert_embed_limits(embed: discord.Embed) -> None:
    assert len(embed.title or "") <= limits.EMBED_TITLE
    assert len(embed.description or "") <= limits.EMBED_DESCRIPTION
    assert len(embed.fields) <= limits.EMBED_FIELDS
    for f in embed.fields:
        assert 0 < len(f.name or "") <= limits.EMBED_FIELD_NAME
        assert 0 < len(f.value or "") <= limits.EMBED_FIELD_VALUE
    assert len(embed.footer.text or "") <= limits.EMBED_FOOTER
    assert len(embed.author.name or "") <= limits.EMBED_AUTHOR
    total = (
        len(embed.title or "")
        + len(embed.description or "")
        + len(embed.footer.text or "")
        + len(embed.author.name or "")
        + sum(len(f.name or "") + len(f.value or "") for f in embed.fields)
    )
    assert total <= limits.EMBED_TOTAL, total
    assert len(embed) == total  # discord.py counts the same way


def assert_send_limits(kwargs: dict[str, Any]) -> None:
    """One send/edit call: content, embeds and files within limits, and nobody pinged."""
    content = kwargs.get("content")
    if content is not None:
        assert len(content) <= limits.CONTENT
    embeds = list(kwargs.get("embeds") or []) + ([kwargs["embed"]] if kwargs.get("embed") else [])
    assert len(embeds) <= limits.EMBEDS_PER_MESSAGE
    for e in embeds:
        assert_embed_limits(e)
    files = list(kwargs.get("files") or [])
    assert len(files) <= limits.FILES_PER_MESSAGE
    for f in files:
        f.fp.seek(0, 2)
        assert f.fp.tell() <= limits.FILE_BYTES
        f.fp.seek(0)
    am = kwargs.get("allowed_mentions")
    assert isinstance(am, discord.AllowedMentions) and am.to_dict() == {"parse": []}
