"""Follow-ups in the analysis thread: a message that mentions the bot, and /ask, on the real bot and service.

Only Discord's network boundary is faked (tests/bot/fakes.py), as in the other bot tests: the
commands.Bot, its cogs, discord.AllowedMentions and the rate-limit windows are the real ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from tests.bot.conftest import TEST_CONFIG
from tests.bot.fakes import FakeChannel, FakeInteraction, FakeUser, Recorder, assert_no_mentions_allowed
from tests.bot.limits_check import assert_send_limits
from tests.bot.projects import GODOT3_SNIPPET

pytestmark = pytest.mark.asyncio(loop_scope="session")

BOT_ID = 4242


@dataclass
class Author:
    id: int
    bot: bool = False


@dataclass
class Guild:
    id: int = 1


@dataclass
class MentionMessage:
    """What discord.py hands `on_message` for a message that mentions the bot (the fields the cog reads)."""

    content: str
    channel: Any
    author: Author
    mentions: list[Any] = field(default_factory=list)
    guild: Guild | None = field(default_factory=Guild)


async def _thread_with_run(h, rec):
    channel = FakeChannel(rec)
    inter = FakeInteraction(rec, user=FakeUser(111), channel=channel)
    cog = h.cog("AnalyzeCog")
    await cog.analyze.callback(cog, inter, code=f"```gdscript\n{GODOT3_SNIPPET}```", question="port this?")
    await h.wait_runs()
    (thread,) = channel.threads
    return channel, thread


async def test_mention_in_the_thread_is_answered_from_the_stored_run(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    h.bot._connection.user = Author(BOT_ID, bot=True)  # what login would set
    rec = Recorder()
    channel, thread = await _thread_with_run(h, rec)
    runs_before = len(await h.service.list_runs())
    ask = h.cog("AskCog")

    msg = MentionMessage(f"<@{BOT_ID}> show me the Godot 4 version @everyone", thread, Author(111), [Author(BOT_ID)])
    await ask.on_message(msg)
    reply = thread.sent[-1]
    print("\n" + reply.content)
    assert reply.content.count("```gdscript") == 1 and "CharacterBody2D" in reply.content
    assert "@everyone" not in reply.content  # neutralized
    # a question elsewhere, one without a mention, or from a bot is ignored
    for other in (MentionMessage(f"<@{BOT_ID}> hi", channel, Author(111), [Author(BOT_ID)]),
                  MentionMessage("explain chunk 1", thread, Author(111), []),
                  MentionMessage(f"<@{BOT_ID}> explain chunk 1", thread, Author(7, bot=True), [Author(BOT_ID)])):
        before = len(rec.calls)
        await ask.on_message(other)
        assert len(rec.calls) == before
    # the thread's conversation memory holds the exchange
    from agent.answer.memory import ConversationMemory

    turns = await ConversationMemory(h.service.url).turns(f"discord:{thread.id}")
    assert turns[0] == ("user", "show me the Godot 4 version @everyone")
    assert len(await h.service.list_runs()) == runs_before  # answered from the stored run
    assert_no_mentions_allowed(rec)
    for _t, name, kw in rec.calls:
        if name in ("channel.send", "message.edit"):
            assert_send_limits(kw)


async def test_slash_ask_inside_and_outside_a_thread(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    rec = Recorder()
    channel, thread = await _thread_with_run(h, rec)
    ask = h.cog("AskCog")

    inter = FakeInteraction(rec, user=FakeUser(111), channel=thread)
    await ask.ask.callback(ask, inter, question="왜 표시됐어? explain chunk 1")
    (sent,) = inter.followup.sent
    assert sent.kwargs["allowed_mentions"].to_dict() == {"parse": []}
    assert "**#1" in sent.content and re.search(r"[\uac00-\ud7a3]", sent.content)  # answered in Korean
    assert not sent.kwargs.get("ephemeral")  # the thread sees the answer

    outside = FakeInteraction(rec, user=FakeUser(111), channel=channel)
    await ask.ask.callback(ask, outside, question="explain chunk 1")
    assert outside.ephemeral_texts()[-1].startswith("Ask inside the thread")


async def test_a_thread_understands_followups_as_users_write_them(kb_db_factory, make_bot):
    """The same follow-up understanding as the web chat: a construct, a line, a chunk number before its word."""
    h = await make_bot(kb_db_factory())
    h.bot._connection.user = Author(BOT_ID, bot=True)
    rec = Recorder()
    _channel, thread = await _thread_with_run(h, rec)
    ask = h.cog("AskCog")
    for question, shows in (("what do I use instead of move_and_slide?", "move_and_slide()"),
                            ("line 1 ??", "CharacterBody2D"),
                            ("2번 청크 설명해줘", "**#2 ")):
        await ask.on_message(MentionMessage(f"<@{BOT_ID}> {question}", thread, Author(111), [Author(BOT_ID)]))
        assert shows in thread.sent[-1].content, (question, thread.sent[-1].content)


async def test_followups_share_the_rate_limits(kb_db_factory, make_bot):
    config = replace(TEST_CONFIG, user_rate=(1, 60.0))
    h = await make_bot(kb_db_factory(), config)
    h.bot._connection.user = Author(BOT_ID, bot=True)
    rec = Recorder()
    _, thread = await _thread_with_run(h, rec)
    ask = h.cog("AskCog")
    await ask.on_message(MentionMessage(f"<@{BOT_ID}> explain chunk 1", thread, Author(555), [Author(BOT_ID)]))
    await ask.on_message(MentionMessage(f"<@{BOT_ID}> explain chunk 2", thread, Author(555), [Author(BOT_ID)]))
    assert thread.sent[-1].content.startswith("You are asking too fast")
