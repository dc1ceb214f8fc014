"""Follow-up answers come from the stored run plus retrieval, never from a new analysis."""

from __future__ import annotations

from pathlib import Path

from agent.followup import answer_for_run, godot4_version, is_followup
from agent.followup_query import resolve

FIXTURES = Path(__file__).parent / "fixtures"


def test_what_counts_as_a_followup():
    assert is_followup("why is mob.gd flagged?", has_run=True)
    assert is_followup("explain chunk 4", has_run=True)
    assert not is_followup("explain chunk 4", has_run=False)
    assert not is_followup("extends Node\nfunc _ready():\n\tpass", has_run=True)
    assert not is_followup("https://github.com/o/r", has_run=True)


def test_chunks_are_found_by_number_file_or_name():
    report = {"chunks": [
        {"chunk_id": "a.gd:class_extends:1", "chunk_order": 0, "chunk_kind": "class_extends", "source_file": "a.gd"},
        {"chunk_id": "mob.gd:function:_physics_process", "chunk_order": 1, "chunk_kind": "function",
         "source_file": "enemies/mob.gd"},
    ]}
    assert resolve("explain chunk 2", report).chunks[0]["chunk_order"] == 1
    assert resolve("청크 1 설명해줘", report).chunks[0]["chunk_order"] == 0
    assert resolve("1번 청크 설명해줘", report).chunks[0]["chunk_order"] == 0
    assert resolve("第2块", report).chunks[0]["chunk_order"] == 1
    assert resolve("объясни 2-й фрагмент", report).chunks[0]["chunk_order"] == 1
    assert resolve("why is mob.gd flagged?", report).target == "file"
    q = resolve("show me the Godot 4 version of _physics_process", report)
    assert (q.target, q.want) == ("name", "code")
    assert resolve("hello", report).target == "none"
    assert resolve("explain chunk 9", report).number == 9  # a number the run does not have


def test_renames_skip_comments_and_partial_names():
    code = "extends KinematicBody2D\n# KinematicBody2D was renamed\nvar k = MyKinematicBody2D.new()\n"
    out = godot4_version(code, [{"old": "KinematicBody2D", "new": "CharacterBody2D"}])
    assert out.splitlines() == ["extends CharacterBody2D", "# KinematicBody2D was renamed",
                                "var k = MyKinematicBody2D.new()"]


async def test_followups_on_a_stored_run(kb_db_factory):
    from agent.graph.service import AnalysisService
    from agent.intake import intake_snippet

    settings = kb_db_factory()
    project = "".join(f"# {name}\n{(FIXTURES / 'mixed_project' / name).read_text()}\n" for name in ("mob.gd", "hud.gd"))
    svc = await AnalysisService.create(settings)
    try:
        report = await svc.analyze(intake_snippet(project, settings=settings), owner="test:followup")
        runs_before = len(await svc.list_runs(owner="test:followup"))

        why = await answer_for_run(svc, report["run_id"], "why is mob.gd flagged?")
        assert "mob.gd is flagged" in why.text.replace("`", "")
        assert "KinematicBody2D" in why.text and why.chunk_ids

        hud = await answer_for_run(svc, report["run_id"], "why is hud.gd flagged?")
        assert "not flagged" in hud.text

        first = await answer_for_run(svc, report["run_id"], "explain chunk 1")
        assert first.text.startswith("**#1 hud.gd L1**") and "What the code does" in first.text

        code = await answer_for_run(svc, report["run_id"], "show me the Godot 4 version of _physics_process")
        assert "_physics_process" in code.text and "move_and_slide" in code.text

        assert len(await svc.list_runs(owner="test:followup")) == runs_before  # nothing re-ran
    finally:
        await svc.close()
