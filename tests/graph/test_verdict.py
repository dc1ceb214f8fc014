"""Pure aggregation rules: labels from chunk signals, withheld verdicts, project.godot, routers."""

from __future__ import annotations

from agent.graph.routers import next_window
from agent.graph.state import AnalysisState
from agent.graph.verdict import (
    compute_verdict,
    STALE_FORMAT_NOTE,
    decide_label,
    direct_answer,
    file_versions,
    migration_items,
    project_signals,
    suggested_snippet,
)
from tests.graph.projects import ENEMY_GD_3, PROJECT_GODOT_4, expansion_of, source_file


def _row(i, signal, *, status="done", file="a.gd", migration=False, changes=None, code="", strength=None):
    return {
        "chunk_id": f"{file}:{i}", "source_file": file, "start_line": i, "end_line": i + 1, "status": status,
        "version_signal": signal if status == "done" else None, "code_text": code, "error": None,
        "judgment": None if status != "done" else {
            "version_signal": signal, "label": "migration_required" if migration else "godot4_valid_api",
            "migration_required": migration, "evidence_ids": ["m1"], "suggested_changes": changes or [],
            "strength": strength, "rationale": f"why {i}",
        },
    }


FILES = [{"path": "a.gd", "kind": "gdscript", "included": True, "reason": "ok"},
         {"path": "project.godot", "kind": "project_config", "included": True, "reason": "ok"},
         {"path": "README.md", "kind": "markdown", "included": False, "reason": "documentation"}]


def test_labels():
    assert decide_label({"godot3": 0, "godot4": 0, "neutral": 9}) == "ambiguous"
    assert decide_label({"godot3": 3, "godot4": 0}) == "godot3"
    assert decide_label({"godot3": 0, "godot4": 5}) == "godot4"
    assert decide_label({"godot3": 1, "godot4": 20}) == "mixed"  # mostly 4 plus some 3


def test_verdict_counts_items_and_excluded():
    change = {"old": "KinematicBody2D", "new": "CharacterBody2D", "change_type": "rename", "evidence_id": "m1",
              "docs_url": "https://docs.example/cb2d"}
    rows = [_row(1, "godot4"), _row(3, "godot3", migration=True, changes=[change]), _row(5, "neutral")]
    v = compute_verdict(rows, FILES, {})
    assert v["label"] == "mixed" and v["migration_required"] and v["complete"]
    assert v["counts"] == {"godot3": 1, "godot4": 1, "neutral": 1}
    assert "a.gd:3-4: KinematicBody2D -> CharacterBody2D [https://docs.example/cb2d]" in v["summary"]
    assert "README.md: documentation" in v["summary"]
    assert migration_items(rows)[0]["evidence_id"] == "m1"


def test_verdict_withheld_until_every_chunk_is_done():
    rows = [_row(1, "godot4"), _row(2, None, status="failed"), _row(3, None, status="pending")]
    rows[1]["error"] = "judge: endpoint down"
    v = compute_verdict(rows, FILES, {})
    assert v["complete"] is False and v["label"] == "ambiguous" and v["migration_required"] is False
    assert [m["status"] for m in v["missing"]] == ["failed", "pending"]
    assert "endpoint down" in v["summary"] and "withheld" in v["summary"]


def test_project_godot_decides_where_the_code_is_silent():
    signals = project_signals(expansion_of([source_file("project.godot", PROJECT_GODOT_4, "project_config")]))
    assert signals["config_version"] == 5 and signals["suggests"] == "godot4"
    assert signals["features"] == ["4.2", "Forward Plus"]
    rows = [_row(1, "godot4", file="project.godot"), _row(2, "neutral")]
    v = compute_verdict(rows, FILES, signals)
    assert v["label"] == "godot4" and "config_version=5" in v["basis"]
    # without project.godot's config_version, its chunk signal alone decides nothing
    assert compute_verdict(rows, FILES, {})["label"] == "ambiguous"
    g3 = project_signals(expansion_of([source_file("project.godot", "config_version=4\n", "project_config")]))
    assert g3["suggests"] == "godot3"
    assert project_signals(expansion_of([source_file("a.gd", "extends Node\n", "gdscript")])) == {}


def test_suggested_snippet_renames_whole_identifiers_only():
    change = {"old": "KinematicBody2D", "new": "CharacterBody2D"}
    rows = [_row(1, "godot3", migration=True, changes=[change])]
    text = ENEMY_GD_3 + '# a "KinematicBody2D" string and MyKinematicBody2DThing stay\n'
    out = suggested_snippet(text, rows)
    assert out.startswith("extends CharacterBody2D\n")
    assert '"KinematicBody2D"' in out and "MyKinematicBody2DThing" in out
    assert suggested_snippet(text, [_row(1, "godot4")]) is None
    ans = direct_answer(text, rows, compute_verdict(rows, FILES[:1], {}))
    assert ans["migration_required"] and "KinematicBody2D -> CharacterBody2D" in ans["answer"]


def test_router_loops_while_chunks_are_pending():
    assert next_window(AnalysisState(run_id="r", remaining=3)) == "analyze"
    assert next_window(AnalysisState(run_id="r", remaining=0)) == "aggregate"


KINDS = [{"path": p, "kind": k, "included": True, "reason": "ok"} for p, k in (
    ("player.gd", "gdscript"), ("menu.gd", "gdscript"), ("old.gd", "gdscript"), ("level.tscn", "scene"),
    ("project.godot", "project_config"))]
CONFIG_4 = {"config_version": 5, "suggests": "godot4"}


def test_godot4_project_lists_leftovers_and_stale_scenes_instead_of_mixed():
    rows = [_row(1, "godot4", file="player.gd", strength="decisive"),
            _row(5, "godot3", file="menu.gd", strength="strong", migration=True),  # dialog.window_title
            _row(1, "godot3", file="level.tscn", strength="strong", migration=True),  # format=2, never re-saved
            _row(9, "godot3", file="old.gd", strength="weak", migration=True)]  # `colors.green`: a hint only
    v = compute_verdict(rows, KINDS, CONFIG_4)
    assert v["label"] == "godot4" and v["migration_required"]
    assert [(x["source_file"], x["start_line"]) for x in v["leftovers"]] == [("menu.gd", 5)]
    assert v["notes"] == [{"source_file": "level.tscn", "note": STALE_FORMAT_NOTE}]
    assert "leftovers to check (1)" in v["summary"] and "menu.gd:5-6: why 5" in v["summary"]
    assert v["godot3_files"] == [] and v["godot4_files"] == ["player.gd"]


def test_only_a_stale_scene_needs_no_migration_in_a_godot4_project():
    rows = [_row(1, "godot4", file="player.gd", strength="decisive"),
            _row(1, "godot3", file="level.tscn", strength="strong", migration=True)]
    v = compute_verdict(rows, KINDS, {})
    assert v["label"] == "godot4" and not v["migration_required"] and v["leftovers"] == []


def test_godot3_scripts_dropped_into_a_godot4_project_are_mixed():
    rows = [_row(1, "godot4", file="player.gd", strength="decisive"),
            _row(3, "godot3", file="old.gd", strength="decisive", migration=True)]
    v = compute_verdict(rows, KINDS, {})
    assert v["label"] == "mixed" and v["godot3_files"] == ["old.gd"]
    assert "Scripts only Godot 3 loads (1):" in v["summary"]
    # against project.godot's config_version=5 as well
    assert compute_verdict(rows[1:], KINDS, CONFIG_4)["label"] == "mixed"


def test_godot3_project_with_config_version_3_and_api_only_scripts():
    rows = [_row(1, "godot3", file="player.gd", strength="strong", migration=True),
            _row(1, "godot3", file="level.tscn", strength="strong", migration=True)]
    assert compute_verdict(rows, KINDS, {"config_version": 3, "suggests": "godot3"})["label"] == "godot3"
    assert compute_verdict(rows, KINDS, {})["label"] == "godot3"  # no config: the sure API uses decide


def test_weak_signals_never_decide_and_scenes_decide_only_when_scripts_are_silent():
    weak = [_row(1, "godot3", file="player.gd", strength="weak", migration=True)]
    assert compute_verdict(weak, KINDS, {})["label"] == "ambiguous"
    scenes = [_row(1, "godot3", file="level.tscn", strength="strong", migration=True), _row(2, "neutral")]
    v = compute_verdict(scenes, KINDS, {})
    assert v["label"] == "godot3" and "scenes" in v["basis"]


def test_a_file_with_both_grammars_is_a_half_migrated_file():
    rows = [_row(1, "godot4", file="player.gd", strength="decisive"),
            _row(3, "godot3", file="player.gd", strength="decisive", migration=True)]
    per = file_versions(rows, KINDS)
    assert per["player.gd"]["version"] == "mixed"
    assert compute_verdict(rows, KINDS, CONFIG_4)["label"] == "mixed"
