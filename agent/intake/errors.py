"""The one error intake raises: its message is shown to the user as is."""

from __future__ import annotations

from agent.redact import redact


class IntakeError(ValueError):
    """Input refused. The message is short, user-facing, and names the rule or limit applied.

    The message is redacted when the error is made (credentials in a quoted URL, overlong input),
    so no front door can echo a secret by quoting it.
    """

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))
