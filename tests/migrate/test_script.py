"""A script in its Godot 4 form: complete where every change is known, a TODO where not, validated, stable."""

from __future__ import annotations

import pytest

from agent.migrate import TODO_TAG, migrate_files, migrate_snippet
from agent.migrate.script import parse_errors
from agent.models import Judgment

PLAYER = """extends KinematicBody2D

export var speed = 200
var velocity = Vector2()

func _physics_process(delta):
    velocity.x = Input.get_action_strength("ui_right") * speed
    velocity = move_and_slide(velocity, Vector2.UP)
    yield(get_tree().create_timer(1.0), "timeout")
"""


def test_the_seven_line_snippet_comes_out_as_complete_godot4_code(kb):
    m = migrate_snippet(PLAYER, kb)
    assert m.status == "migrated" and not m.todos and not m.failures, m
    code = m.migrated
    assert code.startswith("extends CharacterBody2D\n")
    assert "@export var speed = 200" in code
    assert "var velocity" not in code  # CharacterBody2D has it: a redeclaration would not load
    assert "up_direction = Vector2.UP\n    move_and_slide()\n" in code
    assert "await get_tree().create_timer(1.0).timeout" in code
    assert "yield" not in code and "move_and_slide(velocity" not in code
    assert m.flagged == m.complete == 3
    assert not parse_errors(code)
    assert migrate_snippet(code, kb).migrated is None  # migrating the output again changes nothing


def test_each_hunk_traces_to_its_items_and_evidence(kb):
    m = migrate_snippet(PLAYER, kb)
    func = next(h for h in m.hunks if h.name == "_physics_process")
    assert func.status == "migrated" and (func.start_line, func.end_line) == (6, 9)
    assert any("yield" in c.old for c in func.items) and func.evidence_ids


def test_comments_and_strings_are_never_rewritten(kb):
    code = ('extends Node\n\n# yield(get_tree(), "idle_frame") stays a comment\n'
            'func f():\n\tprint("onready var x")\n\tyield(get_tree().create_timer(1.0), "timeout")\n')
    m = migrate_snippet(code, kb)
    assert '# yield(get_tree(), "idle_frame") stays a comment' in m.migrated
    assert 'print("onready var x")' in m.migrated
    assert "\tawait get_tree().create_timer(1.0).timeout\n" in m.migrated


def test_what_is_not_mechanical_stays_with_a_todo_that_says_why(kb):
    # File.open's error code is read: FileAccess.open returns the file, so this needs a person
    code = 'extends Node\n\nfunc load_it(path):\n\tvar f = File.new()\n\tif f.open(path, File.READ) != OK:\n\t\treturn\n'
    m = migrate_snippet(code, kb)
    assert m.status == "todo" and m.todos
    lines = m.migrated.split("\n")
    todo = lines[m.todos[0].line - 1]
    assert todo.startswith(f"# {TODO_TAG}: ") and "File" in todo
    assert "\tif f.open(path, File.READ) != OK:\n" in m.migrated  # left as it was
    again = migrate_snippet(m.migrated, kb)
    assert again.migrated is None  # the TODO is not written twice


def test_a_rewrite_that_fails_validation_falls_back_to_the_original_with_a_todo(kb, monkeypatch):
    from agent.judge.evidence import EvidenceJudge

    real = EvidenceJudge.decide

    def broken(self, inp):
        j = real(self, inp)
        return j.model_copy(update={"suggested_code": "func _physics_process(delta:\n    await (("}) \
            if j.suggested_code and "yield" in inp.chunk.code_text else j
    monkeypatch.setattr(EvidenceJudge, "decide", broken)
    m = migrate_snippet(PLAYER, kb)
    assert m.failures and "does not parse" in m.failures[0]
    assert 'yield(get_tree().create_timer(1.0), "timeout")' in m.migrated  # the original lines
    assert any("not kept" in t.reason for t in m.todos)
    assert len(parse_errors(m.migrated)) <= len(parse_errors(PLAYER))
    assert "extends CharacterBody2D" in m.migrated  # the other chunks keep their validated rewrite


def test_a_project_migrates_scripts_scenes_and_project_godot_together(kb):
    files = {
        "project.godot": 'config_version=4\n\n[application]\n\nrun/main_scene="res://main.tscn"\n',
        "main.tscn": '[gd_scene load_steps=2 format=2]\n\n[ext_resource path="res://player.gd" type="Script" id=1]\n\n'
                     '[node name="Player" type="KinematicBody2D"]\nscript = ExtResource( 1 )\n',
        "player.gd": PLAYER,
        "notes.txt": "hello",
    }
    m = migrate_files(files, kb)
    by = {f.path: f for f in m.files}
    assert by["player.gd"].status == "migrated"
    assert 'type="CharacterBody2D"' in by["main.tscn"].migrated and 'ExtResource("1")' in by["main.tscn"].migrated
    assert "config_version=5" in by["project.godot"].migrated
    assert by["notes.txt"].status == "skipped" and by["notes.txt"].reason
    assert m.summary.files_changed == 3 and m.summary.todos == 0


@pytest.mark.parametrize("code", ["", "   \n", "extends Node2D\n\nfunc _ready():\n\tpass\n"])
def test_empty_or_godot4_input_is_left_alone(kb, code):
    m = migrate_snippet(code, kb)
    assert m.migrated is None and m.status == "unchanged" and not m.todos


def test_a_judgment_type_is_what_the_plans_read():
    assert "suggested_code" in Judgment.model_fields


def test_a_chunks_suggested_code_is_its_span_of_the_migrated_file(kb):
    from agent.graph.report import ChunkReport, JudgmentView, _code_from_migration

    m = migrate_files({"player.gd": PLAYER}, kb).model_dump(mode="json")
    view = JudgmentView(version_signal="godot3", label="migration_required", migration_required=True, confidence=0.9,
                        rationale="", evidence_ids=[], suggested_code="something else")
    chunk = ChunkReport(chunk_id="c", chunk_order=2, source_file="player.gd", chunk_kind="function", start_line=6,
                        end_line=9, status="done", attempts=1, completed_at=None, query_terms=[], evidence=[],
                        judgment=view, state="done", name="_physics_process", error=None, judge_kind="evidence",
                        model=None, fallback_reason=None, validation_failures=[])
    _code_from_migration([chunk], m)
    assert chunk.judgment.suggested_code.startswith("func _physics_process(delta):\n")
    assert chunk.judgment.suggested_code.endswith("await get_tree().create_timer(1.0).timeout")
