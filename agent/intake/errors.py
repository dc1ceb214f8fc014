"""The one error intake raises: its message is shown to the user as is."""

from __future__ import annotations


class IntakeError(ValueError):
    """Input refused. The message is short, user-facing, and names the rule or limit applied."""
