"""Errors the bot shows to users as short ephemeral messages (never a stack trace)."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused request; the message is shown to the user as is (after sanitizing)."""
