"""The progress message: coalesced edits, never two within the interval, final state always shown."""

from __future__ import annotations

import asyncio

from agent.graph.events import ProgressEvent
from bot.progress import ProgressReporter
from tests.bot.fakes import FakeChannel, Recorder


async def test_burst_of_events_is_coalesced_under_the_rate_limit():
    rec = Recorder()
    msg = await FakeChannel(rec).send("start")
    rep = ProgressReporter(msg, interval=0.2, label="demo")
    await rep.on_event(ProgressEvent(run_id="r", kind="run_started", done=0, total=0))
    for i in range(300):
        await rep.on_event(
            ProgressEvent(
                run_id="r",
                kind="chunk_status",
                done=i,
                total=300,
                status="processing",
                source_file="player.gd",
                start_line=i,
                end_line=i + 3,
            )
        )
        await rep.on_event(
            ProgressEvent(
                run_id="r",
                kind="chunk_status",
                done=i + 1,
                total=300,
                status="done",
                source_file="player.gd",
                start_line=i,
                end_line=i + 3,
            )
        )
        if i % 50 == 0:
            await asyncio.sleep(0.07)
    await rep.on_event(ProgressEvent(run_id="r", kind="run_finished", done=300, total=300))
    await rep.close()
    times = [t for t, _ in msg.edits]
    assert 2 <= len(times) <= 10  # 600 events, a handful of edits
    assert all(b - a >= 0.2 - 1e-3 for a, b in zip(times, times[1:], strict=False))
    assert msg.content.startswith("Analyzing demo: 300/300 chunks") and "finished" in msg.content


async def test_the_answer_streams_into_the_progress_message_then_leaves_it():
    rec = Recorder()
    msg = await FakeChannel(rec).send("start")
    rep = ProgressReporter(msg, interval=0.05, label="demo")
    await rep.on_event(ProgressEvent(run_id="r", kind="chunk_status", done=3, total=3, status="done",
                                     source_file="a.gd", start_line=1, end_line=2))
    for piece in ("This is ", "Godot 3 ", "code."):
        await rep.on_event(ProgressEvent(run_id="r", kind="answer_token", done=3, total=3, message=piece))
        await asyncio.sleep(0.06)
    assert "writing the answer" in msg.content and msg.content.endswith("This is Godot 3 code.")
    await rep.on_event(ProgressEvent(run_id="r", kind="answer", done=3, total=3, message="This is Godot 3 code."))
    await rep.on_event(ProgressEvent(run_id="r", kind="run_finished", done=3, total=3))
    await rep.close()
    assert msg.content == "Analyzing demo: 3/3 chunks, finished"  # the validated answer comes with the result
