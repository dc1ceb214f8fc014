"""Formatters on adversarial reports: every Discord limit holds, detail moves to report files."""

from __future__ import annotations

import json

import discord

from agent.graph.report import DirectAnswer, Report
from bot import format as fmt
from bot import limits
from bot.safety import code_block, neutralize_mentions, redact_secrets
from tests.bot.limits_check import assert_embed_limits, assert_send_limits


def _chunk(i: int, path: str = "player.gd", **extra) -> dict:
    return {
        "chunk_id": f"{path}:function:f{i}",
        "chunk_order": i,
        "source_file": path,
        "chunk_kind": "function",
        "start_line": i * 5 + 1,
        "end_line": i * 5 + 4,
        "status": "done",
        "attempts": 1,
        "completed_at": None,
        "query_terms": ["move_and_slide", "KinematicBody2D"],
        "evidence": [
            {
                "table": "api_mapping",
                "record_id": f"map-{i}",
                "title": "KinematicBody2D",
                "score": 0.9,
                "source_api": "KinematicBody2D",
                "target_api": "CharacterBody2D",
                "source_url": "https://docs.godotengine.org/en/4.4/classes/class_characterbody2d.html",
            }
        ],
        "judgment": {
            "version_signal": "godot3",
            "label": "migration_required",
            "migration_required": True,
            "confidence": 0.9,
            "rationale": "uses KinematicBody2D " * 3,
            "evidence_ids": [f"map-{i}"],
        },
        "state": "done", "name": None, "error": None, "judge_kind": "evidence", "model": None,
        "fallback_reason": None, "validation_failures": [],
        **extra,
    }


def big_report(n_chunks: int = 300, *, long: int = 1) -> Report:
    chunks = [_chunk(i, f"scripts/{'deep/' * long}file_{i % 37}.gd") for i in range(n_chunks)]
    items = [
        {
            "source_file": c["source_file"],
            "start_line": c["start_line"],
            "end_line": c["end_line"],
            "old": "KinematicBody2D" * long,
            "new": "CharacterBody2D" * long,
            "docs_url": "https://docs.godotengine.org/en/4.4/classes/class_characterbody2d.html",
            "evidence_id": "m",
        }
        for c in chunks
    ]
    return Report.model_validate({
        "run_id": "dc-abc",
        "project_id": "p",
        "status": "completed",
        "verdict": {
            "label": "godot3",
            "migration_required": True,
            "counts": {"godot3": n_chunks, "godot4": 0, "neutral": 0},
            "summary": "S" * 5000 * long,
        },
        "files": [
            {"path": f"scripts/file_{i}.gd", "kind": "gdscript", "sha256": "x", "chunks": 8}
            for i in range(37)
        ],
        "excluded_files": [{"path": f"art/{i}.png", "reason": "binary"} for i in range(50)],
        "chunks": chunks,
        "migration_items": items,
        "direct_answer": {
            "answer": "A" * 3000 * long, "label": "godot3", "migration_required": True,
            "suggested_code": "extends CharacterBody2D\n" * 400 * long, "changes": [],
        },
        "prompt": "port this",
        "intent": {"task_type": "migration", "prompt_terms": [], "language": "en"},
        "status_detail": "", "owner": "discord:1", "source": "x", "source_origin": "uploaded_zip",
        "judge": "evidence", "created_at": None, "finished_at": None, "project_signals": {},
        "progress": {"done": n_chunks, "failed": 0, "total": n_chunks},
    })


def test_300_chunk_result_fits_every_limit_and_attaches_the_report():
    report = big_report(300, long=3)
    msg = fmt.result_message(report, top_items=50)
    assert msg.truncated
    (embed,) = msg.embeds
    assert_embed_limits(embed)
    assert_send_limits(msg.kwargs())
    names = [f.filename for f in msg.files]
    assert names == ["godot-rag-dc-abc.md", "godot-rag-dc-abc.json"]
    md = msg.files[0].fp.read().decode()
    assert md.count("\n### ") == 300  # every chunk, with its evidence and judgment
    assert "map-299" in md
    data = json.loads(msg.files[1].fp.read())
    assert len(data["chunks"]) == 300


def test_embed_shows_verdict_counts_items_and_excluded_count():
    report = big_report(12)
    report.verdict.summary = "Godot 3 project."
    report.direct_answer = None
    msg = fmt.result_message(report, top_items=5)
    embed = msg.embeds[0]
    assert "godot3" in embed.title and "migration required" in embed.title
    assert "godot3 12" in embed.description and "**Excluded files:** 50" in embed.description
    item_fields = [f for f in embed.fields if f.name.startswith("scripts/")]
    assert len(item_fields) == 5
    assert "`KinematicBody2D` → `CharacterBody2D`" in item_fields[0].value
    assert "[docs](https://docs.godotengine.org/" in item_fields[0].value
    assert embed.fields[-1].name == "More migration items" and "7 more" in embed.fields[-1].value
    assert msg.files  # more items than shown: the full list is attached


def test_single_snippet_fits_inline_with_code_block_and_no_file():
    report = big_report(1)
    report.verdict.summary = "One chunk."
    report.direct_answer = DirectAnswer(answer="Use CharacterBody2D.", label="godot3", migration_required=True,
                                        suggested_code="extends CharacterBody2D\n", changes=[])
    report.excluded_files = []
    msg = fmt.result_message(report)
    assert not msg.files and not msg.truncated
    desc = msg.embeds[0].description
    assert "```gdscript\nextends CharacterBody2D\n```" in desc
    assert any(f.name == "Evidence" for f in msg.embeds[0].fields)


def test_field_and_title_limits_with_huge_strings():
    report = big_report(3, long=200)
    msg = fmt.result_message(report, top_items=30)
    for e in msg.embeds:
        assert_embed_limits(e)
    assert msg.truncated and msg.files


def test_report_file_is_cut_at_upload_cap():
    report = big_report(40)
    for c in report.chunks:
        c.judgment.rationale = "R" * 300_000
    files = fmt.report_files(report)
    assert len(files) == 1  # md alone is over the cap: no JSON twin
    files[0].fp.seek(0, 2)
    assert files[0].fp.tell() <= limits.FILE_BYTES


def test_progress_text_format_and_limit():
    state = {"done": 12, "total": 40, "stage": "judging", "current": ("player.gd", 20, 34)}
    assert fmt.progress_text(state) == "Analyzing: 12/40 chunks, player.gd L20-L34 processing"
    state["current"] = ("@everyone" * 500, 1, 1)
    text = fmt.progress_text(state, "x")
    assert len(text) <= limits.CONTENT and "@everyone" not in text


def test_status_runs_help_embeds_fit():
    report = big_report(30)
    report.status = "interrupted"
    report.chunks[5].status = "pending"
    e = fmt.status_embed(report)
    assert_embed_limits(e)
    assert "29/30" in e.description and "/resume dc-abc" in e.description
    runs = [
        {
            "run_id": f"r{i}",
            "status": "completed",
            "verdict": "godot4",
            "source": "@here" * 50,
            "created_at": "2026-11-30T19:00:00",
        }
        for i in range(200)
    ]
    e = fmt.runs_embed(runs)
    assert_embed_limits(e)
    assert "@here" not in e.description and "older runs" in e.description
    assert_embed_limits(fmt.help_embed())


def test_mentions_neutralized_and_fences_kept_closed():
    assert "@everyone" not in neutralize_mentions("hi @everyone and @here")
    assert "<@&123>" not in neutralize_mentions("<@&123> <@456> <@!7>")
    block = code_block("print('```')\n@everyone", limit=200)
    assert block.startswith("```gdscript\n") and block.endswith("\n```")
    assert block.count("```") == 2 and "@everyone" not in block
    assert len(code_block("x\n" * 5000, limit=500)) <= 500


def test_secrets_redacted():
    token = "MTA" + "x" * 21 + ".GabcdE." + "y" * 30
    text = redact_secrets(f"bad {token} https://user:pw@github.com/a/b ghp_{'a' * 36}", ("hunter2secret",))
    assert token not in text and "pw@" not in text and "ghp_" not in text
    assert "hunter2secret" not in redact_secrets("pw hunter2secret", ("hunter2secret",))


def test_outgoing_message_kwargs_are_real_discord_types():
    msg = fmt.result_message(big_report(2))
    kw = msg.kwargs()
    assert isinstance(kw["embeds"][0], discord.Embed) and isinstance(kw["files"][0], discord.File)
    assert kw["allowed_mentions"].to_dict() == {"parse": []}


def test_the_written_answer_is_the_message_content_with_links_that_do_not_unfurl():
    report = big_report(1)
    report.excluded_files = []
    report.answer = {"markdown": "This is Godot 3 code [1]. Ping @everyone\n\nSources:\n"
                                 "[1] CharacterBody2D — https://docs.godotengine.org/en/4.4/classes/class_characterbody2d.html",
                     "language": "en", "citations": []}
    msg = fmt.result_message(report)
    assert msg.content.startswith("This is Godot 3 code [1].")
    assert "<https://docs.godotengine.org/en/4.4/classes/class_characterbody2d.html>" in msg.content
    assert "@everyone" not in msg.content
    assert "**Answer:**" not in msg.embeds[0].description  # said once, as the content
    assert_send_limits(msg.kwargs())
    assert "## Answer\n\nThis is Godot 3 code [1]." in fmt.report_markdown(report)


def test_a_long_answer_is_cut_at_a_paragraph_with_its_fence_closed_and_the_report_attached():
    report = big_report(1)
    code = "\n".join(f"\tprint({i})" for i in range(400))
    report.answer = {"markdown": "Steps.\n\n" + "Why it matters. " * 40 + "\n\n```gdscript\nfunc f():\n" + code + "\n```"}
    msg = fmt.result_message(report)
    assert len(msg.content) <= limits.CONTENT and msg.content.count("```") % 2 == 0
    assert msg.content.endswith(fmt.FULL_ANSWER_ATTACHED)
    assert msg.truncated and msg.files
    assert_send_limits(msg.kwargs())


def test_an_item_without_new_code_is_called_removed_only_when_its_change_is_a_removal():
    from agent.graph.verdict import compute_verdict
    from agent.present import Citations
    from ui.render import migration_markdown

    report = big_report(2)
    report.migration_items[0].new, report.migration_items[0].change_type = None, "removed"
    report.migration_items[1].new, report.migration_items[1].change_type = None, "behavior_change"
    fields = [fmt._item_field(it)[1] for it in report.migration_items]
    table = migration_markdown(report.model_dump(mode="json"), Citations()).splitlines()[-2:]
    rows = []
    for c, change in zip(report.chunks, ("removed", "behavior_change")):
        row = c.model_dump(mode="json")
        row["judgment"]["suggested_changes"] = [{"old": "x.f()", "new": None, "change_type": change}]
        rows.append(row)
    text = compute_verdict(rows, [])["summary"].splitlines()[-2:]
    for removed, changed in (fields, table, text):
        assert "removed in Godot 4" in removed and "removed" not in changed
        assert "no one-line replacement" in changed


def test_result_says_when_evidence_was_partial():
    from agent.graph.report import KnowledgeState

    report = big_report(3)
    assert "Evidence is still partial" not in fmt.result_message(report).embeds[0].description
    report.knowledge = KnowledgeState(complete=False, embedded=3120, total=14800)
    description = fmt.result_message(report).embeds[0].description
    assert "Evidence is still partial: 3,120 of 14,800 knowledge-base entries embedded" in description
    assert report.to_dict()["knowledge"] == {"complete": False, "embedded": 3120, "total": 14800}
