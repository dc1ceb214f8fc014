"""Origins: only the chat's own origin and GODOT_RAG_UI_ALLOWED_ORIGINS may use a session (fast, no server)."""

from __future__ import annotations

import asyncio

import pytest

from agent.origins import OriginGuard, allowed_origins, origin_permitted


def test_default_is_the_chats_own_origin_only():
    assert origin_permitted("http://127.0.0.1:8000", "127.0.0.1:8000", ())
    assert not origin_permitted("http://127.0.0.1:8001", "127.0.0.1:8000", ())
    assert not origin_permitted("http://evil.example", "127.0.0.1:8000", ())
    assert not origin_permitted("null", "127.0.0.1:8000", ())
    assert not origin_permitted("http://127.0.0.1:8000", None, ())


def test_the_environment_widens_it():
    extra = allowed_origins({"GODOT_RAG_UI_ALLOWED_ORIGINS": "https://Chat.Example, http://localhost:3000/"})
    assert extra == ("https://chat.example", "http://localhost:3000")
    assert origin_permitted("https://chat.example", "127.0.0.1:8000", extra)
    assert not origin_permitted("https://other.example", "127.0.0.1:8000", extra)
    assert origin_permitted("https://any.example", "h", allowed_origins({"GODOT_RAG_UI_ALLOWED_ORIGINS": "*"}))


@pytest.mark.parametrize("entry", ["chat.example", "ftp://chat.example", "https://chat.example/app", "https://u@x.example"])
def test_malformed_origins_are_errors(entry):
    with pytest.raises(ValueError, match="GODOT_RAG_UI_ALLOWED_ORIGINS"):
        allowed_origins({"GODOT_RAG_UI_ALLOWED_ORIGINS": entry})


def _call(kind: str, headers: dict[str, str]) -> tuple[list[dict], bool]:
    reached = []

    async def app(scope, receive, send):
        reached.append(True)

    sent: list[dict] = []

    async def receive():
        return {"type": "websocket.connect"}

    async def send(message):
        sent.append(message)

    scope = {"type": kind, "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    asyncio.run(OriginGuard(app)(scope, receive, send))
    return sent, bool(reached)


def test_guard_refuses_foreign_requests_and_websockets_before_chainlit():
    sent, reached = _call("http", {"host": "127.0.0.1:8000", "origin": "http://evil.example"})
    assert not reached and sent[0]["status"] == 403
    sent, reached = _call("websocket", {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:9999"})
    assert not reached and sent == [{"type": "websocket.close", "code": 1008}]
    for headers in ({"host": "127.0.0.1:8000"}, {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000"}):
        sent, reached = _call("http", headers)
        assert reached and not sent
