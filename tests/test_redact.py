"""Issue 16 item 3: each front door shows a refused URL without its credentials, and a 10 KB URL shortened.

The CLI's stderr is checked in tests/cli/test_failures.py; here the web chat's reply (through the
handler the UI registers, with Chainlit's message class recorded) and the Discord bot's reply text.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from agent.redact import redact

PASSWORD = "pa55-w0rd-secret"
TOKEN = "ghp_" + "Q1w2E3r4" * 5
HOSTILE = [
    f"https://user:{PASSWORD}@github.com/a/b",
    f"https://{TOKEN}@github.com/a/b",
    "https://github.com/a/b/blob/main/" + "y" * 10_000,
]


def _assert_clean(text: str) -> None:
    assert PASSWORD not in text and TOKEN not in text
    assert "y" * 300 not in text and len(text) < 1_000


class _Recorded:
    """Stands in for `chainlit.Message`: records what would be sent (and stored in the thread)."""

    sent: list[str] = []

    def __init__(self, content: str = "", **_kwargs: object) -> None:
        self.content = content

    async def send(self) -> None:
        _Recorded.sent.append(self.content)


@pytest.mark.parametrize("url", HOSTILE)
def test_web_chat_reply_is_redacted(monkeypatch, url):
    import chainlit as cl

    from ui import chat, runtime
    from agent.settings import Settings

    _Recorded.sent = []
    monkeypatch.setattr(cl, "Message", _Recorded)
    monkeypatch.setattr(cl, "user_session", {})
    monkeypatch.setattr(runtime, "settings", lambda: Settings.from_env().with_(front_door="ui"))
    asyncio.run(chat.on_message(SimpleNamespace(content=f"is this godot 4? {url}", elements=[])))
    (reply,) = _Recorded.sent
    assert reply.startswith("⚠️ Refused"), reply
    _assert_clean(reply)


@pytest.mark.parametrize("url", HOSTILE)
def test_discord_reply_is_redacted(url):
    from bot.config import BotConfig
    from bot.errors import UserError
    from bot.inputs import spec_from_options
    from bot.safety import safe_text

    with pytest.raises(UserError) as err:
        spec_from_options(code=None, file=None, repo=url, member=None, channel_id=None, config=BotConfig())
    reply = safe_text(str(err.value))  # what Coordinator.clean sends
    assert "Refused" in reply
    _assert_clean(reply)
    _assert_clean(safe_text(f"echo of the raw input: {url}"))  # even text that never went through intake


def test_known_secret_values_are_masked_everywhere():
    db = "postgresql://godot:longpassword@db.internal:5432/godot_rag"
    assert redact(f"cannot connect to {db}: refused", [db]) == "cannot connect to ***: refused"
    assert "longpassword" not in redact(f"cannot connect to {db}")  # even without knowing the value
