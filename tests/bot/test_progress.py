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
