"""A 300-chunk project: progress edits stay under Discord's rate limit, the result fits every limit."""

from __future__ import annotations

import json
import re
import sys
import time

import pytest

from bot import limits
from tests.bot.conftest import TEST_CONFIG
from tests.bot.fakes import FakeCDN, FakeChannel, FakeInteraction, FakeUser, Recorder, make_attachment
from tests.bot.limits_check import assert_embed_limits, assert_send_limits
from tests.bot.projects import project_zip

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_300_chunk_project_progress_and_result(kb_db_factory, make_bot):
    config = TEST_CONFIG.with_(progress_interval=1.5)  # the production default
    h = await make_bot(kb_db_factory(), config)
    rec = Recorder()
    channel = FakeChannel(rec)
    inter = FakeInteraction(rec, user=FakeUser(31337), channel=channel)
    cog = h.cog("AnalyzeCog")
    zipped = project_zip(30, 8)  # 30 scripts x (extends + declarations + 8 functions) = 300 chunks
    started = time.monotonic()
    await cog.analyze.callback(cog, inter, file=make_attachment(FakeCDN(rec), "big_game.zip", zipped))
    await h.wait_runs()
    elapsed = time.monotonic() - started

    (thread,) = channel.threads
    progress, post = thread.sent[0], thread.sent[-1]
    edit_times = [t for t, _ in progress.edits]
    assert len(edit_times) >= 3
    gaps = [b - a for a, b in zip(edit_times, edit_times[1:], strict=False)]
    assert min(gaps) >= 1.5 - 0.01, gaps  # never more than one edit per 1.5 s on the message
    contents = [kw["content"] for _t, kw in progress.edits]
    line = re.compile(
        r"^Analyzing big_game\.zip: \d+/30\d chunks, scripts/mover_\d+\.gd L\d+-L\d+ processing$"
    )
    assert any(line.match(c) for c in contents), contents
    assert "finished" in progress.content

    (embed,) = post.embeds
    assert_embed_limits(embed)
    assert_send_limits(post.kwargs)
    for _t, name, kw in rec.calls:
        if name in ("channel.send", "message.edit", "followup.send"):
            assert_send_limits(kw)
    md_file, json_file, patch_file = post.files  # the report, and the migration's patch within the upload limit
    patch_file.fp.seek(0)
    assert patch_file.filename.endswith(".diff") and len(patch_file.fp.read()) <= limits.FILE_BYTES
    json_file.fp.seek(0)
    report = json.loads(json_file.fp.read())
    assert len(report["chunks"]) >= 300
    assert all(c["status"] == "done" for c in report["chunks"])
    md_file.fp.seek(0)
    assert len(re.findall(r"\n### \d+\. ", md_file.fp.read().decode())) == len(report["chunks"])
    items = [f for f in embed.fields if f.name.startswith("scripts/")]
    assert 0 < len(items) <= config.top_items
    assert (
        embed.fields[-1].name == "More migration items" or len(report["migration_items"]) <= config.top_items
    )
    assert len(embed) <= limits.EMBED_TOTAL
    print(
        f"\n300-chunk project via the bot: {len(report['chunks'])} chunks in {elapsed:.1f} s, "
        f"{len(edit_times)} progress edits (min gap {min(gaps):.2f} s), embed {len(embed)} chars, "
        f"{len(embed.fields)} fields, report files {[f.filename for f in post.files]}",
        file=sys.stderr,
    )
