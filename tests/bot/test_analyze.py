"""/analyze (snippet, file, zip, repo) and the context menu, end to end on the real service and DB.

Only Discord's network boundary is faked (tests/bot/fakes.py). Each test checks that the
interaction is deferred first, within Discord's 3 s window, before any download, clone,
thread or database work, and that every message respects Discord's limits and pings no one.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.bot.fakes import (
    FakeCDN,
    FakeChannel,
    FakeInteraction,
    FakeSourceMessage,
    FakeUser,
    Recorder,
    assert_no_mentions_allowed,
    every_text,
    make_attachment,
)
from tests.bot.limits_check import assert_send_limits
from tests.bot.projects import GODOT3_SNIPPET, GODOT4_SCRIPT, project_zip

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _sends_and_edits(rec: Recorder):
    return [
        kw
        for _t, name, kw in rec.calls
        if name in ("channel.send", "message.edit", "followup.send", "response.send_message")
    ]


def assert_deferred_first(rec: Recorder, inter: FakeInteraction) -> None:
    names = rec.names()
    assert names[0] == "response.defer", names[:5]
    t_defer = rec.first("response.defer")[0]
    assert t_defer - inter.created < 3.0
    assert rec.first("response.defer")[2] == {"ephemeral": True, "thinking": True}


def result_posts(thread) -> list:
    return [m for m in thread.sent if m.embeds]


async def test_snippet_mode_defers_first_and_posts_verdict_in_a_thread(
    kb_db_factory, make_bot, artifacts_dir
):
    h = await make_bot(kb_db_factory())
    rec = Recorder()
    channel = FakeChannel(rec)
    inter = FakeInteraction(rec, user=FakeUser(111), channel=channel)
    cog = h.cog("AnalyzeCog")
    await cog.analyze.callback(
        cog, inter, code=f"```gdscript\n{GODOT3_SNIPPET}```", question="How do I port this?"
    )
    await h.wait_runs()

    assert_deferred_first(rec, inter)
    names = rec.names()
    assert names.index("response.defer") < names.index("channel.create_thread") < names.index("channel.send")
    (thread,) = channel.threads
    assert rec.first("channel.create_thread")[2]["name"] == "godot-rag: snippet"
    (post,) = result_posts(thread)
    embed = post.embeds[0]
    assert "godot3" in embed.title and "migration required" in embed.title
    assert "How do I port this?" in embed.description
    # The written answer is the message's content, said once (not again in the embed), with its code.
    answer = post.content
    assert "**Answer:**" not in embed.description
    assert "Godot 3" in answer.split("\n")[0] and "[1]" in answer, answer
    assert "CharacterBody2D" in answer.split("```gdscript")[1]
    assert "<https://docs.godotengine.org/" in answer  # sources as links that do not unfurl
    (artifacts_dir / "bot_snippet_embed.json").write_text(json.dumps(embed.to_dict(), indent=1))
    progress = thread.sent[0]
    assert progress.edits and "finished" in progress.content
    (followup,) = inter.followup.sent
    assert followup.kwargs["ephemeral"] and thread.mention in followup.content
    for kw in _sends_and_edits(rec):
        assert_send_limits(kw)
    row = await h.store.get(embed.footer.text.split()[1])
    assert row.state == "posted" and row.thread_id == thread.id and row.owner == "discord:111"


async def test_file_and_zip_modes_download_only_after_deferring(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    rec = Recorder()
    cdn = FakeCDN(rec)
    channel = FakeChannel(rec)
    cog = h.cog("AnalyzeCog")

    inter = FakeInteraction(rec, user=FakeUser(222), channel=channel)
    att = make_attachment(cdn, "player.gd", GODOT4_SCRIPT.encode())
    await cog.analyze.callback(cog, inter, file=att)
    await h.wait_runs()
    assert_deferred_first(rec, inter)
    assert rec.names().index("response.defer") < rec.names().index("cdn.get")
    post = result_posts(channel.threads[0])[0]
    assert "godot4" in post.embeds[0].title

    rec2 = Recorder()
    cdn2 = FakeCDN(rec2)
    channel2 = FakeChannel(rec2)
    inter2 = FakeInteraction(rec2, user=FakeUser(222), channel=channel2)
    att2 = make_attachment(cdn2, "game.zip", project_zip(3, 2))
    await cog.analyze.callback(cog, inter2, file=att2)
    await h.wait_runs()
    assert_deferred_first(rec2, inter2)
    assert rec2.names().index("response.defer") < rec2.names().index("cdn.get")
    embed = result_posts(channel2.threads[0])[0].embeds[0]
    assert "mixed" in embed.title or "godot3" in embed.title
    assert "**Excluded files:** 1" in embed.description  # the README
    files = result_posts(channel2.threads[0])[0].files
    assert [f.filename.rsplit(".", 1)[1] for f in files] == [
        "md",
        "json",
        "diff",
    ]  # many chunks: full report attached, and the Godot 3 scripts' migration as a patch
    patch = files[2].fp.read().decode()
    assert "# godot-rag: " in patch and "--- a/" in patch and "\n+++ b/" in patch
    for kw in _sends_and_edits(rec2):
        assert_send_limits(kw)


def _local_repo(root) -> str:
    repo = root / "origin"
    (repo / "scripts").mkdir(parents=True)
    (repo / "project.godot").write_text('config_version=5\n\n[application]\nconfig/name="Repo"\n')
    (repo / "scripts" / "enemy.gd").write_text(GODOT3_SNIPPET)
    (repo / "scripts" / "player.gd").write_text(GODOT4_SCRIPT)
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
        "HOME": str(root),
        "PATH": "/usr/bin:/bin",
    }
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "."],
        ["git", "commit", "-q", "-m", "init"],
    ):
        subprocess.run(cmd, cwd=repo, env=env, check=True)
    return f"file://{repo}"


async def test_repo_mode_clones_after_deferring(kb_db_factory, make_bot, tmp_path):
    h = await make_bot(kb_db_factory())
    h.bot.coordinator.github_origin_for_tests = _local_repo(tmp_path)
    rec = Recorder()
    channel = FakeChannel(rec)
    inter = FakeInteraction(rec, user=FakeUser(333), channel=channel)
    cog = h.cog("AnalyzeCog")
    await cog.analyze.callback(cog, inter, repo="https://github.com/example/dodge-game")
    await h.wait_runs()
    assert_deferred_first(rec, inter)
    assert rec.first("channel.create_thread")[2]["name"] == "godot-rag: example/dodge-game"
    embed = result_posts(channel.threads[0])[0].embeds[0]
    assert "mixed" in embed.title or "godot3" in embed.title
    assert any("enemy.gd" in f.name for f in embed.fields)  # a migration item with file:lines


@pytest.mark.parametrize(
    "url",
    [
        "https://gitlab.com/a/b",
        "file:///etc",
        "http://github.com/a/b",
        "https://127.0.0.1/a/b",
        "git@github.com:a/b.git",
        "https://user:secretpass@github.com/a/b",
    ],
)
async def test_non_github_url_is_refused_at_once(kb_settings, make_bot, url):
    h = await make_bot(kb_settings)
    rec = Recorder()
    inter = FakeInteraction(rec, user=FakeUser(444), channel=FakeChannel(rec))
    cog = h.cog("AnalyzeCog")
    await cog.analyze.callback(cog, inter, repo=url)
    assert rec.names() == ["response.send_message"]  # no defer, no thread, no clone
    kw = rec.calls[0][2]
    assert kw["ephemeral"] and "github.com" in kw["content"] and "Traceback" not in kw["content"]
    assert "secretpass" not in kw["content"]
    assert not h.bot.coordinator.tasks


async def test_context_menu_on_a_code_block_and_on_an_attachment(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    rec = Recorder()
    channel = FakeChannel(rec)
    cog = h.cog("AnalyzeCog")
    source = FakeSourceMessage(rec, channel, f"why does this fail?\n```\n{GODOT3_SNIPPET}```")
    inter = FakeInteraction(rec, user=FakeUser(555), channel=channel)
    await cog.context_menu.callback(inter, source)
    await h.wait_runs()
    assert_deferred_first(rec, inter)
    assert "message.create_thread" in rec.names()  # the thread hangs off the analyzed message
    (thread,) = channel.threads
    assert "godot3" in result_posts(thread)[0].embeds[0].title

    rec2 = Recorder()
    channel2 = FakeChannel(rec2)
    att = make_attachment(FakeCDN(rec2), "player.gd", GODOT4_SCRIPT.encode())
    inter2 = FakeInteraction(rec2, user=FakeUser(555), channel=channel2)
    await cog.context_menu.callback(inter2, FakeSourceMessage(rec2, channel2, "", [att]))
    await h.wait_runs()
    assert_deferred_first(rec2, inter2)
    assert "godot4" in result_posts(channel2.threads[0])[0].embeds[0].title

    rec3 = Recorder()
    inter3 = FakeInteraction(rec3, user=FakeUser(555), channel=FakeChannel(rec3))
    await cog.context_menu.callback(inter3, FakeSourceMessage(rec3, channel2, "no code here"))
    assert rec3.names() == ["response.send_message"] and rec3.calls[0][2]["ephemeral"]


async def test_oversized_attachment_refused_without_download(kb_settings, make_bot):
    h = await make_bot(kb_settings)
    rec = Recorder()
    cdn = FakeCDN(rec)
    inter = FakeInteraction(rec, user=FakeUser(666), channel=FakeChannel(rec))
    cog = h.cog("AnalyzeCog")
    big = make_attachment(cdn, "huge.zip", b"PK", size=h.bot.config.max_zip_bytes + 1)
    await cog.analyze.callback(cog, inter, file=big)
    assert rec.names() == ["response.send_message"]
    assert "limit" in rec.calls[0][2]["content"] and rec.calls[0][2]["ephemeral"]
    # a file whose metadata understates its size is caught after download
    rec2 = Recorder()
    cdn2 = FakeCDN(rec2)
    inter2 = FakeInteraction(rec2, user=FakeUser(666), channel=FakeChannel(rec2))
    liar = make_attachment(cdn2, "player.gd", b"#" * (h.bot.config.max_attachment_bytes + 10), size=10)
    await cog.analyze.callback(cog, inter2, file=liar)
    assert rec2.names() == ["response.defer", "cdn.get", "followup.send"]
    assert "size limit" in rec2.calls[-1][2]["content"] and not h.bot.coordinator.tasks


async def test_mentions_in_code_question_and_file_names_never_ping(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    rec = Recorder()
    cdn = FakeCDN(rec)
    channel = FakeChannel(rec)
    cog = h.cog("AnalyzeCog")
    nasty = "# @everyone look <@&42> <@7>\n" + GODOT3_SNIPPET.replace("velocity", "velocity")
    zipped = project_zip(1, 1, extra={"@everyone.gd": nasty, "@here/<@&42>.gd": GODOT4_SCRIPT})
    inter = FakeInteraction(rec, user=FakeUser(777), channel=channel)
    await cog.analyze.callback(
        cog, inter, file=make_attachment(cdn, "@everyone.zip", zipped), question="@here is this ok? <@&42>"
    )
    inter2 = FakeInteraction(rec, user=FakeUser(778), channel=channel)
    await cog.analyze.callback(cog, inter2, code=f"```\n{nasty}```", question="@everyone")
    await h.wait_runs()
    texts = every_text(rec)
    assert len(channel.threads) == 2 and all(result_posts(t) for t in channel.threads)
    joined = "\n".join(texts)
    assert "everyone" in joined  # the names are shown ...
    for bad in ("@everyone", "@here", "<@&42>", "<@7>"):
        assert bad not in joined  # ... but can never ping
    assert_no_mentions_allowed(rec)


async def test_analyze_without_options_opens_a_paste_box_that_keeps_newlines(kb_db_factory, make_bot):
    h = await make_bot(kb_db_factory())
    rec = Recorder()
    channel = FakeChannel(rec)
    cog = h.cog("AnalyzeCog")
    await cog.analyze.callback(
        cog, FakeInteraction(rec, user=FakeUser(808), channel=channel), question="port?"
    )
    assert rec.names() == ["response.send_modal"]  # the modal is the one response
    modal = rec.calls[0][2]["modal"]
    assert modal.question.default == "port?"
    modal.code._refresh_state(None, {"value": GODOT3_SNIPPET})  # what discord.py does on submit
    modal.question._refresh_state(None, {"value": "port?"})
    submit = FakeInteraction(rec, user=FakeUser(808), channel=channel)
    await modal.on_submit(submit)
    await h.wait_runs()
    assert rec.names()[1] == "response.defer"
    embed = result_posts(channel.threads[0])[0].embeds[0]
    assert "godot3" in embed.title and "port?" in embed.description
