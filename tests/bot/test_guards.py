"""Rate limits, the run cap, and cheap input checks (all before any network or database work)."""

from __future__ import annotations

import pytest

from bot.config import BotConfig
from bot.errors import UserError
from bot.inputs import check_repo_allowed, extract_code_blocks, spec_from_message, spec_from_options
from bot.ratelimit import Guard
from tests.bot.fakes import (
    FakeCDN,
    FakeChannel,
    FakeRole,
    FakeSourceMessage,
    FakeUser,
    Recorder,
    make_attachment,
)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_user_window_refuses_then_recovers():
    clock = Clock()
    g = Guard((2, 60), (100, 60), 10, clock=clock)
    assert g.admit(1, 9) is None and g.admit(1, 9) is None
    refusal = g.admit(1, 9)
    assert refusal and "too fast" in refusal.message and 59 <= refusal.retry_after <= 60
    assert g.admit(2, 9) is None  # another user is not affected
    clock.t += 61
    assert g.admit(1, 9) is None


def test_guild_window_and_concurrency_cap():
    clock = Clock()
    g = Guard((100, 60), (3, 60), 2, clock=clock)
    for uid in (1, 2, 3):
        assert g.admit(uid, 7) is None
    assert "server" in g.admit(4, 7).message
    assert g.admit(4, 8) is None  # another server
    g.start("a")
    g.start("b")
    assert "busy" in g.admit(5, 9).message
    g.finish("a")
    assert g.admit(5, 9) is None


def test_refused_check_does_not_count_against_window():
    clock = Clock()
    g = Guard((1, 60), (100, 60), 0, clock=clock)
    assert "busy" in g.admit(1, None).message
    g.max_concurrent = 1
    assert g.admit(1, None) is None


def test_config_from_env(monkeypatch):
    monkeypatch.setenv("GODOT_RAG_BOT_USER_RATE", "5/30")
    monkeypatch.setenv("GODOT_RAG_BOT_REPO_ROLES", "123, Maintainers")
    monkeypatch.setenv("GODOT_RAG_BOT_REPO_CHANNELS", "42")
    monkeypatch.setenv("GODOT_RAG_BOT_SYNC", "0")
    c = BotConfig.from_env()
    assert c.user_rate == (5, 30.0) and c.repo_roles == {"123", "Maintainers"} and c.repo_channels == {"42"}
    assert c.sync_commands is False
    monkeypatch.setenv("GODOT_RAG_BOT_USER_RATE", "five")
    with pytest.raises(ValueError, match="COUNT/SECONDS"):
        BotConfig.from_env()


def test_repo_restricted_to_roles_and_channels():
    config = BotConfig(repo_roles=frozenset({"Maintainers"}), repo_channels=frozenset({"42"}))
    member = FakeUser(1, roles=[FakeRole(5, "Maintainers")])
    check_repo_allowed(member, 42, config)
    with pytest.raises(UserError, match="channel"):
        check_repo_allowed(member, 43, config)
    with pytest.raises(UserError, match="roles"):
        check_repo_allowed(FakeUser(2, roles=[FakeRole(6, "everyone")]), 42, config)
    check_repo_allowed(FakeUser(3, roles=[FakeRole(5, "x")]), 42, config.with_(repo_roles=frozenset({"5"})))


def test_options_need_exactly_one_source():
    config = BotConfig()
    with pytest.raises(UserError, match="one of"):
        spec_from_options(code=None, file=None, repo=None, member=None, channel_id=1, config=config)
    with pytest.raises(UserError, match="only one"):
        spec_from_options(
            code="x", file=None, repo="https://github.com/a/b", member=None, channel_id=1, config=config
        )
    spec = spec_from_options(
        code="```gdscript\nextends Node\n```", file=None, repo=None, member=None, channel_id=1, config=config
    )
    assert spec.kind == "snippet" and spec.text == "extends Node\n"


def test_attachment_type_and_size_checked_from_metadata_only():
    rec = Recorder()
    cdn = FakeCDN(rec)
    config = BotConfig(max_attachment_bytes=100, max_zip_bytes=1000)
    big = make_attachment(cdn, "player.gd", b"x", size=101)
    with pytest.raises(UserError, match="101 bytes.*100"):
        spec_from_options(code=None, file=big, repo=None, member=None, channel_id=1, config=config)
    with pytest.raises(UserError, match="Attach a .gd"):
        spec_from_options(
            code=None,
            file=make_attachment(cdn, "evil.exe", b"MZ"),
            repo=None,
            member=None,
            channel_id=1,
            config=config,
        )
    ok = make_attachment(cdn, "game.zip", b"x", size=900)
    assert (
        spec_from_options(code=None, file=ok, repo=None, member=None, channel_id=1, config=config).kind
        == "file"
    )
    assert rec.calls == []  # nothing was downloaded


def test_code_blocks_and_context_menu_sources():
    assert extract_code_blocks("a\n```gdscript\nx = 1\n```\nb ```\ny\n```") == ["x = 1\n", "y\n"]
    rec = Recorder()
    ch = FakeChannel(rec)
    msg = FakeSourceMessage(rec, ch, "look:\n```\nextends Node2D\n```")
    assert spec_from_message(msg, BotConfig()).text == "extends Node2D\n"
    with pytest.raises(UserError, match="no ``` code block"):
        spec_from_message(FakeSourceMessage(rec, ch, "just words"), BotConfig())
    att = make_attachment(FakeCDN(rec), "project.godot", b"config_version=5\n")
    assert spec_from_message(FakeSourceMessage(rec, ch, "", [att]), BotConfig()).kind == "file"


def test_minimal_intents_and_no_mentions_default():
    from bot.client import GodotRagBot, minimal_intents

    intents = minimal_intents()
    assert intents.guilds and not intents.message_content and not intents.members and not intents.presences
    # guild_messages is not privileged: mentions of the bot arrive with their content (thread follow-ups)
    assert intents.value == __import__("discord").Intents(guilds=True, guild_messages=True).value
    bot = GodotRagBot(service=None, store=None, config=BotConfig(), settings=None)  # type: ignore[arg-type]
    assert bot.allowed_mentions.to_dict() == {"parse": []}


def test_cli_registers_bot_and_refuses_without_token(monkeypatch, capsys):
    from agent.cli import build_parser

    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    args = build_parser().parse_args(["bot", "--no-sync", "--guild", "5"])
    assert args.no_sync and args.guild == 5
    assert args.func(args) == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err
