"""Restart safety: a run cut off mid-way is resumed by a new bot instance and posted exactly once."""

from __future__ import annotations

import asyncio

import pytest

from agent.graph.service import EVIDENCE_WINDOW
from tests.bot.conftest import wait_done
from tests.bot.fakes import FakeCDN, FakeChannel, FakeInteraction, FakeUser, Recorder, make_attachment
from tests.bot.limits_check import assert_send_limits
from tests.bot.projects import project_zip

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _posts(thread) -> list:
    return [m for m in thread.sent if m.embeds]


async def test_restart_mid_run_resumes_from_checkpoint_and_posts_once(kb_db_factory, make_bot):
    settings = kb_db_factory()
    a = await make_bot(settings)
    rec = Recorder()
    channel = FakeChannel(rec)
    inter = FakeInteraction(rec, user=FakeUser(901), channel=channel)
    cog = a.cog("AnalyzeCog")
    await cog.analyze.callback(cog, inter, file=make_attachment(FakeCDN(rec), "big.zip", project_zip(10, 6)))
    (run_id,) = a.bot.coordinator.tasks
    task = a.bot.coordinator.tasks[run_id]
    await wait_done(a.service, run_id, 12)
    task.cancel()  # the bot process dies mid-run
    await asyncio.gather(task, return_exceptions=True)
    before = await a.service.report(run_id)
    done_before = {c["chunk_id"] for c in before["chunks"] if c["status"] == "done"}
    assert 12 <= len(done_before) < len(before["chunks"])
    await a.close()
    (thread,) = channel.threads
    assert _posts(thread) == []
    progress_msg = thread.sent[0]
    edits_before = len(progress_msg.edits)

    # a new process: new service, new store, new bot; the gateway hands back the thread by id
    b = await make_bot(settings)
    known = {thread.id: thread, channel.id: channel}

    async def fetch_channel(channel_id: int):
        rec.add("bot.fetch_channel", channel_id=channel_id)
        return known[channel_id]

    b.bot.fetch_channel = fetch_channel  # type: ignore[method-assign]
    tasks = await b.bot.resume_owned_runs()
    assert len(tasks) == 1
    await asyncio.gather(*tasks)

    after = await b.service.report(run_id)
    assert after["status"] == "completed"
    assert all(c["status"] == "done" for c in after["chunks"])
    attempts = {c["chunk_id"]: c["attempts"] for c in after["chunks"]}
    assert all(attempts[cid] == 1 for cid in done_before)  # finished chunks were not judged again
    # only chunks in flight at the kill: the rest of the one window claimed then
    assert sum(1 for n in attempts.values() if n > 1) <= EVIDENCE_WINDOW
    (post,) = _posts(thread)  # posted once, where it was asked
    assert run_id in post.embeds[0].footer.text
    assert_send_limits(post.kwargs)
    assert rec.first("channel.fetch_message")[2]["message_id"] == progress_msg.id
    assert len(progress_msg.edits) > edits_before and "finished" in progress_msg.content
    row = await b.store.get(run_id)
    assert row.state == "posted" and row.result_message_id == post.id

    # a second start-up (or a second bot) finds nothing left to do
    assert await b.bot.resume_owned_runs() == []
    c = await make_bot(settings)
    c.bot.fetch_channel = fetch_channel  # type: ignore[method-assign]
    assert await c.bot.resume_owned_runs() == []
    assert len(_posts(thread)) == 1


async def test_finished_but_unposted_run_is_posted_without_rejudging(kb_db_factory, make_bot):
    """The process died between the last chunk and the post: the next start posts, judging nothing."""
    settings = kb_db_factory()
    a = await make_bot(settings)
    rec = Recorder()
    channel = FakeChannel(rec)
    inter = FakeInteraction(rec, user=FakeUser(902), channel=channel)
    cog = a.cog("AnalyzeCog")
    await cog.analyze.callback(cog, inter, code="```\nextends KinematicBody2D\n```")
    await a.wait_runs()
    (thread,) = channel.threads
    run_id = thread.sent[-1].embeds[0].footer.text.split()[1]
    await a.store.reopen(run_id)  # as if the post never happened
    await a.store.claim_post(run_id)  # ... and the process died right after claiming it
    before = await a.service.report(run_id)
    await a.close()

    b = await make_bot(settings)
    b.bot.fetch_channel = lambda cid: asyncio.sleep(0, result={thread.id: thread}.get(cid))  # type: ignore
    await asyncio.gather(*await b.bot.resume_owned_runs())
    after = await b.service.report(run_id)
    assert [c["attempts"] for c in after["chunks"]] == [c["attempts"] for c in before["chunks"]]
    assert len(_posts(thread)) == 2 and (await b.store.get(run_id)).state == "posted"
