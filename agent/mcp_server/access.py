"""Who is calling: over HTTP, the web chat's own login; over stdio, the local user who started the process.

The bearer token is derived from the chat's user store (`GODOT_RAG_UI_USERS`, read by `agent.access`), so
there is one list of users and revoking a chat user revokes their MCP access too:

    Authorization: Bearer <name>:<password>

(the chat's user name and password, checked as a sha256 digest in constant time). A trusted proxy header
(`GODOT_RAG_UI_HEADER_AUTH`) and `GODOT_RAG_UI_ALLOW_ANONYMOUS=1` work as in the chat; with neither, a
request without a valid token gets 401 before it reaches the MCP session. Runs belong to `chainlit:<name>`,
the owner the chat gives the same user, so a user sees the same runs through both doors and nobody else's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent.runs import owner_of
from agent.access import AccessConfig

CHAT_DOOR = "chainlit"
"""The owner prefix of the chat's users (`ui.runtime.owner_of`): MCP runs are theirs too."""


@dataclass(frozen=True)
class Caller:
    """The owner a call's runs are stored under, and whether it may read every run."""

    owner: str
    sees_all: bool = False
    """True over stdio: the local user started the server and can read the database anyway (like the CLI)."""

    def may_read(self, run_owner: str | None) -> bool:
        """Whether a run of `run_owner` is this caller's to read (a run of another reads as no run at all)."""
        return self.sees_all or run_owner == self.owner


LOCAL = Caller(owner=owner_of("mcp", "local"), sees_all=True)


def bearer_user(access: AccessConfig, headers: Mapping[str, str]) -> str | None:
    """The chat user a `Bearer name:password` header proves, else the proxy's or anonymous user if allowed."""
    auth = headers.get("authorization") or ""
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        name, sep, password = token.strip().partition(":")
        return name if sep and access.check_password(name, password) else None  # a wrong token never falls back
    return access.header_user(headers)


def http_caller(access: AccessConfig, headers: Mapping[str, str]) -> Caller | None:
    """The caller of an HTTP request, or None when it proves no user."""
    user = bearer_user(access, headers)
    return Caller(owner=owner_of(CHAT_DOOR, user)) if user else None


AUTH_FAILED = -32001
"""The JSON-RPC error code of a refused token (an implementation-defined server error)."""


class BearerGate:
    """ASGI middleware: a request that proves no user gets 401 and never reaches the MCP transport."""

    def __init__(self, app: Any, access: AccessConfig) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Refuse an HTTP request that proves no user; pass everything else (lifespan) through."""
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            if bearer_user(self.access, headers) is None:
                # a JSON-RPC error body: the MCP SDKs show its message (a bare 401 reads "Server returned an
                # error response"); no protected-resource metadata, since no OAuth server issues these tokens
                body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                    "code": AUTH_FAILED, "message": "authentication failed: send Authorization: Bearer "
                                                    "<user>:<password> of a web chat user"}}).encode()
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="godot-rag"')]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
