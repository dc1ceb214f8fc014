"""Every failure of a tool becomes an MCP tool error with a short, redacted message; never a traceback.

Refusals (intake limits, hosts, zips), unknown runs and busy runs say what was wrong, through the same
redaction as every other door (`agent.redact`): a URL's credentials, tokens and the database URL are
masked. Anything unexpected is logged in full on the server with a reference the message names.
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from agent.redact import user_message

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


class UnknownRun(LookupError):
    """A run id that does not exist, or that belongs to someone else (the two read the same)."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"no run {run_id!r} of yours (start one with check_code or analyze_project)")


class Refused(ValueError):
    """A request this door does not take (a local path over HTTP, arguments that contradict each other)."""


def explain(exc: BaseException, secrets: tuple[str | None, ...]) -> str:
    """The message a client sees for `exc`: redacted; internal errors only by reference."""
    from agent.graph.service import RunBusyError
    from agent.intake import IntakeError

    if isinstance(exc, IntakeError | UnknownRun | Refused | RunBusyError | PermissionError):
        return user_message(exc, secrets)
    if isinstance(exc, ValueError) and str(exc).startswith("bad run id"):
        return user_message(exc, secrets)
    ref = uuid.uuid4().hex[:8]
    log.error("MCP call failed (ref %s)", ref, exc_info=exc)
    return f"internal error (ref {ref}); the server's log has the details"


def guarded(secrets: Callable[[], tuple[str | None, ...]], *, resource: bool = False) -> Callable[[F], F]:
    """Wrap a tool (or resource) so that any failure is a ToolError (ResourceError) with `explain`'s message."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except (ToolError, ResourceError):
                raise
            except Exception as exc:
                error = ResourceError if resource else ToolError
                raise error(explain(exc, secrets())) from None

        return call  # type: ignore[return-value]

    return wrap
