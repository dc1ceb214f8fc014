"""Pure aggregation rules: labels from chunk signals, withheld verdicts, project.godot, routers."""

from __future__ import annotations

from agent.graph.routers import next_window
from agent.graph.state import AnalysisState
from agent.graph.verdict import (
    compute_verdict,
    decide_label,
    direct_answer,
    migration_items,
    project_signals,
    suggested_snippet,
)
from tests.graph.projects import ENEMY_GD_3, PROJECT_GODOT_4, expansion_of, source_file


def _row(i, signal, *, status="done", file="a.gd", migration=False, changes=None, code=""):
    return {
        "chunk_id": f"{file}:{i}", "source_file": file, "start_line": i, "end_line": i + 1, "status": status,
        "version_signal": signal if status == "done" else None, "code_text": code, "error": None,
        "judgment": None if status != "done" else {
            "version_signal": signal, "label": "migration_required" if migration else "godot4_valid_api",
            "migration_required": migration, "evidence_ids": ["m1"], "suggested_changes": changes or [],
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


def test_project_godot_never_decides_alone():
    signals = project_signals(expansion_of([source_file("project.godot", PROJECT_GODOT_4, "project_config")]))
    assert signals["config_version"] == 5 and signals["suggests"] == "godot4"
    assert signals["features"] == ["4.2", "Forward Plus"]
    # a godot4 signal that only comes from the config file does not make the project godot4
    rows = [_row(1, "godot4", file="project.godot"), _row(2, "neutral")]
    assert compute_verdict(rows, FILES, signals)["label"] == "ambiguous"
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
