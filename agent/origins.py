"""Which web origins may use a logged-in session: the chat's own, plus GODOT_RAG_UI_ALLOWED_ORIGINS.

Chainlit answers CORS with `allow-credentials` for every origin its config lists, and its socket.io
server checks no origin at all, so with `["*"]` a page on another port of the same host could read a
logged-in user's threads. This guard refuses, before Chainlit sees it, every HTTP request and
websocket that names a foreign `Origin`. Same-origin traffic passes: browsers send either no Origin
(same-origin GET) or one whose host:port is the request's Host header.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

ENV = "GODOT_RAG_UI_ALLOWED_ORIGINS"


def allowed_origins(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Extra origins from GODOT_RAG_UI_ALLOWED_ORIGINS (`https://chat.example,http://localhost:3000`).

    Each must be `scheme://host[:port]` without a path; `*` allows every origin (not advised).
    A malformed entry is an error at start-up, never a silent skip.
    """
    env = os.environ if env is None else env
    out: list[str] = []
    for entry in filter(None, (e.strip() for e in env.get(ENV, "").split(","))):
        if entry == "*":
            out.append(entry)
            continue
        parts = urlsplit(entry)
        if parts.scheme not in {"http", "https"} or not parts.netloc or parts.path not in {"", "/"} \
                or parts.query or parts.fragment or "@" in parts.netloc:
            raise ValueError(f"{ENV} entries must look like https://host[:port]; got {entry!r}")
        out.append(f"{parts.scheme}://{parts.netloc.lower()}")
    return tuple(out)


def origin_permitted(origin: str, host: str | None, allowed: tuple[str, ...]) -> bool:
    """True for the chat's own origin (host:port equal to the Host header) and the configured extras."""
    if "*" in allowed or origin.rstrip("/").lower() in allowed:
        return True
    parts = urlsplit(origin)
    return bool(host) and parts.scheme in {"http", "https"} and parts.netloc.lower() == (host or "").lower()


class OriginGuard:
    """ASGI middleware: a request or websocket from a foreign origin gets 403 and never reaches Chainlit."""

    def __init__(self, app: Any, allowed: tuple[str, ...] = ()) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in {"http", "websocket"}:
            headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            origin = headers.get(b"origin")
            if origin is not None and not origin_permitted(origin, headers.get(b"host"), self.allowed):
                await _refuse(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _refuse(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "websocket":
        await receive()  # websocket.connect; closing before accept makes the server answer 403
        await send({"type": "websocket.close", "code": 1008})
        return
    body = b"This origin may not use the chat; see GODOT_RAG_UI_ALLOWED_ORIGINS."
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def install(app: Any, allowed: tuple[str, ...]) -> None:
    """Put the guard outermost on Chainlit's FastAPI app (before its CORS middleware)."""
    app.add_middleware(OriginGuard, allowed=allowed)
