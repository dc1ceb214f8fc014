"""/status, /resume, /runs, /help, rate limits and the error handlers, through the real cogs."""

from __future__ import annotations

import asyncio

import pytest
from discord import app_commands

from tests.bot.conftest import TEST_CONFIG, wait_done
from tests.bot.fakes import FakeCDN, FakeChannel, FakeInteraction, FakeUser, Recorder, make_attachment
from tests.bot.limits_check import assert_embed_limits
from tests.bot.projects import GODOT3_SNIPPET, project_zip

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _ephemeral(rec: Recorder) -> list[dict]:
    return [kw for _t, n, kw in rec.calls if n in ("response.send_message", "followup.send")]


async def _snippet_run(h, user_id: int) -> tuple[str, FakeChannel]:
    rec = Recorder()
    channel = FakeChannel(rec)
    cog = h.cog("AnalyzeCog")
    await cog.analyze.callback(
        cog, FakeInteraction(rec, user=FakeUser(user_id), channel=channel), code=GODOT3_SNIPPET
    )
    await h.wait_runs()
    return channel.threads[0].sent[-1].embeds[0].footer.text.split()[1], channel


async def test_status_runs_help_show_only_the_users_own_runs(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    run_id, _ = await _snippet_run(h, 1001)
    runs_cog, help_cog = h.cog("RunsCog"), h.cog("HelpCog")

    rec = Recorder()
    inter = FakeInteraction(rec, user=FakeUser(1001), channel=FakeChannel(rec))
    await runs_cog.status.callback(runs_cog, inter, run_id=run_id)
    assert rec.names() == ["response.defer", "followup.send"]
    (kw,) = _ephemeral(rec)
    assert kw["ephemeral"] and "completed" in kw["embed"].title and "Verdict" in kw["embed"].description
    assert_embed_limits(kw["embed"])

    rec = Recorder()
    inter = FakeInteraction(rec, user=FakeUser(2002), channel=FakeChannel(rec))
    await runs_cog.status.callback(runs_cog, inter, run_id=run_id)
    (kw,) = _ephemeral(rec)
    assert "No run" in kw["content"] and "embed" not in kw  # another user's run does not exist for them

    rec = Recorder()
    await runs_cog.runs.callback(
        runs_cog, FakeInteraction(rec, user=FakeUser(1001), channel=FakeChannel(rec))
    )
    assert run_id in _ephemeral(rec)[0]["embed"].description
    rec = Recorder()
    await runs_cog.runs.callback(
        runs_cog, FakeInteraction(rec, user=FakeUser(2002), channel=FakeChannel(rec))
    )
    assert "No runs yet" in _ephemeral(rec)[0]["embed"].description

    rec = Recorder()
    await runs_cog.resume.callback(
        runs_cog, FakeInteraction(rec, user=FakeUser(1001), channel=FakeChannel(rec)), run_id=run_id
    )
    assert "already complete" in _ephemeral(rec)[0]["content"]

    rec = Recorder()
    await help_cog.help.callback(help_cog, FakeInteraction(rec, user=FakeUser(3), channel=FakeChannel(rec)))
    (kw,) = _ephemeral(rec)
    assert (
        rec.names() == ["response.send_message"]
        and kw["ephemeral"]
        and "/analyze" in kw["embed"].fields[0].name
    )


async def test_resume_command_continues_an_interrupted_run_in_its_thread(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    rec = Recorder()
    channel = FakeChannel(rec)
    cog = h.cog("AnalyzeCog")
    await cog.analyze.callback(
        cog,
        FakeInteraction(rec, user=FakeUser(1101), channel=channel),
        file=make_attachment(FakeCDN(rec), "p.zip", project_zip(6, 4)),
    )
    (run_id,) = h.bot.coordinator.tasks
    await wait_done(h.service, run_id, 5)
    task = h.bot.coordinator.tasks[run_id]
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert (await h.service.report(run_id))["status"] == "interrupted"

    runs_cog = h.cog("RunsCog")
    h.bot.fetch_channel = lambda cid: asyncio.sleep(0, result=channel.threads[0])  # type: ignore
    rec2 = Recorder()
    other = FakeInteraction(rec2, user=FakeUser(9999), channel=FakeChannel(rec2))
    await runs_cog.resume.callback(runs_cog, other, run_id=run_id)
    assert "No run" in _ephemeral(rec2)[0]["content"] and not h.bot.coordinator.tasks

    rec3 = Recorder()
    mine = FakeInteraction(rec3, user=FakeUser(1101), channel=FakeChannel(rec3))
    await runs_cog.resume.callback(runs_cog, mine, run_id=run_id)
    assert rec3.names()[0] == "response.defer" and "Resuming" in _ephemeral(rec3)[0]["content"]
    await h.wait_runs()
    thread = channel.threads[0]
    posts = [m for m in thread.sent if m.embeds]
    assert len(posts) == 1 and posts[0].embeds[0].title.startswith("Verdict")  # a completed run
    assert (await h.service.report(run_id))["status"] == "completed"


async def test_rate_limits_and_run_cap_refuse_before_deferring(kb_db_factory, make_bot):
    config = TEST_CONFIG.with_(user_rate=(1, 60), guild_rate=(2, 60), max_concurrent_runs=1)
    h = await make_bot(kb_db_factory(), config)
    cog = h.cog("AnalyzeCog")
    rec = Recorder()
    first = FakeInteraction(rec, user=FakeUser(1), channel=FakeChannel(rec), guild_id=50)
    await cog.analyze.callback(cog, first, code=GODOT3_SNIPPET)  # running now

    rec_busy = Recorder()
    busy = FakeInteraction(rec_busy, user=FakeUser(2), channel=FakeChannel(rec_busy), guild_id=51)
    await cog.analyze.callback(cog, busy, code=GODOT3_SNIPPET)
    assert rec_busy.names() == ["response.send_message"] and "busy" in rec_busy.calls[0][2]["content"]
    await h.wait_runs()

    rec_user = Recorder()
    again = FakeInteraction(rec_user, user=FakeUser(1), channel=FakeChannel(rec_user), guild_id=50)
    await cog.analyze.callback(cog, again, code=GODOT3_SNIPPET)
    assert rec_user.names() == ["response.send_message"] and "too fast" in rec_user.calls[0][2]["content"]
    assert rec_user.calls[0][2]["ephemeral"]

    rec_ok = Recorder()
    await cog.analyze.callback(
        cog,
        FakeInteraction(rec_ok, user=FakeUser(3), channel=FakeChannel(rec_ok), guild_id=50),
        code=GODOT3_SNIPPET,
    )
    await h.wait_runs()
    rec_guild = Recorder()
    await cog.analyze.callback(
        cog,
        FakeInteraction(rec_guild, user=FakeUser(4), channel=FakeChannel(rec_guild), guild_id=50),
        code=GODOT3_SNIPPET,
    )
    assert "server" in rec_guild.calls[0][2]["content"] and rec_guild.names() == ["response.send_message"]


async def test_errors_answer_once_briefly_and_never_leak(kb_settings, make_bot, caplog):
    h = await make_bot(kb_settings)
    cog = h.cog("AnalyzeCog")
    rec = Recorder()
    inter = FakeInteraction(rec, user=FakeUser(5), channel=FakeChannel(rec))
    token = h.bot.settings.discord_token or "MTA" + "x" * 21 + ".GabcdE." + "y" * 30
    boom = app_commands.CommandInvokeError(cog.analyze, RuntimeError(f"db exploded with {token}"))
    await cog.cog_app_command_error(inter, boom)  # the cog handler ...
    await h.bot.tree.on_error(inter, boom)  # ... then discord.py calls the global one for the same error
    (kw,) = _ephemeral(rec)
    assert kw["ephemeral"] and "went wrong" in kw["content"]
    assert "exploded" not in kw["content"] and token not in kw["content"] and "Traceback" not in kw["content"]
    assert "command failed" in caplog.text  # logged in full for the operator

    rec2 = Recorder()
    inter2 = FakeInteraction(rec2, user=FakeUser(5), channel=FakeChannel(rec2))
    await inter2.response.defer(ephemeral=True, thinking=True)
    await h.bot.tree.on_error(inter2, app_commands.CheckFailure("nope"))
    assert rec2.names() == [
        "response.defer",
        "followup.send",
    ]  # after a defer: the followup, not a 2nd response
