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
    # File.open's error code read in a loop's condition: Godot 4 has no statement before it to open in
    code = 'extends Node\n\nfunc load_it(path):\n\tvar f = File.new()\n\twhile f.open(path, File.READ) != OK:\n\t\treturn\n'
    m = migrate_snippet(code, kb)
    assert m.status == "todo" and m.todos
    lines = m.migrated.split("\n")
    todo = lines[m.todos[0].line - 1]
    assert todo.startswith(f"# {TODO_TAG}: ") and "File" in todo
    assert "\twhile f.open(path, File.READ) != OK:\n" in m.migrated  # left as it was
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


FILES_3 = """extends Node

func load_it(path):
\tvar file = File.new()
\tif not file.file_exists(path):
\t\treturn null
\tvar err = file.open(path, File.READ)
\tif err != OK:
\t\treturn null
\treturn file.get_as_text()

func ensure(dirpath):
\tvar dir = Directory.new()
\tif not dir.dir_exists(dirpath):
\t\tdir.make_dir_recursive(dirpath)

func names(path):
\tvar out = []
\tvar dir = Directory.new()
\tif dir.open(path) == OK:
\t\tdir.list_dir_begin(true, true)
\t\tvar f = dir.get_next()
\t\twhile f != "":
\t\t\tout.append(f)
\t\t\tf = dir.get_next()
\treturn out
"""


def test_file_and_directory_objects_become_their_godot4_static_opens(kb):
    """An open whose error code is read gets `get_open_error()`; a Directory never opened, the static calls;
    `list_dir_begin(true, true)` is Godot 4's default."""
    m = migrate_snippet(FILES_3, kb)
    assert m.status == "migrated" and not m.todos, m.migrated
    assert "\tif not FileAccess.file_exists(path):\n" in m.migrated
    assert "\tvar file: FileAccess\n" in m.migrated and "\tfile = FileAccess.open(path, FileAccess.READ)\n" \
        "\tvar err = FileAccess.get_open_error()\n" in m.migrated
    assert "\tif not DirAccess.dir_exists_absolute(dirpath):\n\t\tDirAccess.make_dir_recursive_absolute(dirpath)\n" \
        in m.migrated and "Directory.new()" not in m.migrated
    assert "\tvar dir = DirAccess.open(path)\n\tif DirAccess.get_open_error() == OK:\n\t\tdir.list_dir_begin()\n" \
        in m.migrated
    assert migrate_snippet(m.migrated, kb).migrated is None


REWRITES = [
    ("coroutine", 'extends Node\n\nfunc go():\n\tvar r = yield(do_it(3), "completed")\n\treturn r\n\nfunc do_it(n):\n'
     '\tyield(get_tree().create_timer(0.5), "timeout")\n\treturn n\n',
     ["\tvar r = await do_it(3)\n", "\tawait get_tree().create_timer(0.5).timeout\n"]),
    ("function state", 'extends Node\n\nfunc use():\n\tvar ret = do_it(1)\n\tif ret is GDScriptFunctionState: # working\n'
     '\t\tret = yield(ret, "completed")\n\tprint(ret)\n\nfunc do_it(n):\n\tyield(get_tree(), "idle_frame")\n\treturn n\n',
     ["\tvar ret = await do_it(1)\n\tprint(ret)\n"]),
    ("init super", 'extends "res://base.gd"\n\nfunc _init(a).(a, 1):\n\tprint(a)\n', ["func _init(a):\n\tsuper(a, 1)\n\tprint(a)\n"]),
    ("state on owner", "extends Node\n\nvar v = Vector2.ZERO\n\nfunc physics_process(delta):\n"
     "\tv = owner.move_and_slide_with_snap(v, Vector2.DOWN * 8, Vector2.UP)\n",
     ["\towner.velocity = v\n\towner.floor_snap_length = (Vector2.DOWN * 8).length()\n\towner.up_direction = Vector2.UP\n"
      "\towner.move_and_slide()\n\tv = owner.velocity\n"]),
    ("tween node", 'extends Node2D\n\nonready var tween = $Tween\n\nfunc fade():\n'
     '\t$Tween.interpolate_property(self, "modulate", Color(1, 1, 1, 1), Color(1, 1, 1, 0), 0.5)\n'
     '\t$Tween.interpolate_callback(self, 0.5, "queue_free")\n\t$Tween.start()\n'
     '\tyield($Tween, "tween_all_completed")\n\tprint("gone")\n',
     ["\tvar created_tween := create_tween().set_parallel(true)\n"
      '\tcreated_tween.tween_property(self, "modulate", Color(1, 1, 1, 0), 0.5).from(Color(1, 1, 1, 1))\n'
      "\tcreated_tween.tween_callback(queue_free).set_delay(0.5)\n\tawait created_tween.finished\n"]),
]


@pytest.mark.parametrize("name,code,wanted", REWRITES, ids=[r[0] for r in REWRITES])
def test_godot3_idioms_come_out_whole(kb, name, code, wanted):
    """Idioms of Godot 3 code written by others, each migrated completely, then left alone by a second run."""
    m = migrate_snippet(code, kb)
    assert m.status == "migrated" and not m.todos, m.migrated
    for w in wanted:
        assert w in m.migrated, m.migrated
    assert migrate_snippet(m.migrated, kb).migrated is None


def test_a_yield_on_a_base_scripts_string_constant_and_on_a_kept_call(kb):
    """GUT's `yield(yield_for(1), YIELD)` (`const YIELD = 'timeout'` in the test base) names the `timeout`
    signal; a call's state awaited right after it is the call awaited; one awaited later stays with a person."""
    base = "extends Node\n\nconst YIELD = 'timeout'\n\nfunc yield_for(t):\n\treturn self\n"
    test = ('extends "res://addons/gut/test.gd"\n\nfunc test_wait():\n\tyield(yield_for(0.1), YIELD)\n'
            '\tvar state = run()\n\tyield(state, "completed")\n\tassert(true)\n\nfunc run():\n'
            '\tyield(yield_for(0.2), YIELD)\n\nfunc later():\n\tvar s = run()\n\tprint(s)\n'
            '\tyield(s, "completed")\n')
    m = migrate_files({"addons/gut/test.gd": base, "tests/test_a.gd": test}, kb)
    (f,) = [f for f in m.files if f.path == "tests/test_a.gd"]
    assert "\tawait yield_for(0.1).timeout\n\tvar state = await run()\n\tassert(true)\n" in f.migrated, f.migrated
    assert "func run():\n\tawait yield_for(0.2).timeout\n" in f.migrated
    (todo,) = [h for h in f.hunks if h.status == "todo"]
    assert todo.name == "later" and "completion of a value" in todo.why
