"""The migration with the Godot 4 checker as its gate (the whole API index): what it writes is what Godot 4 takes.

A hunk is `migrated` only when gdtoolkit 4 reads the file and the checker reports nothing in it; certain
renames are made whatever the receiver; a TODO hunk keeps every safe edit, so the file still parses.
"""

from __future__ import annotations

import pytest

from agent.gdscript.checker import check_files
from agent.gdscript.grammar import godot4_grammar_error
from agent.judge.project import build_project_context
from agent.migrate import TODO_TAG, migrate_files, migrate_snippet


@pytest.fixture(scope="module")
def kb_full(kb, full_api):
    """The test knowledge base's mapping rows and pages, with the whole API index (the checker's gate is on)."""
    ctx = build_project_context({}, full_api)
    ctx.mappings, ctx.pages = kb.mappings, kb.pages
    return ctx


def _godot4(m, api) -> str:
    code = m.migrated
    assert code is not None and godot4_grammar_error(code) is None, code
    return code


def test_a_file_member_opened_in_another_function_stays_declared_and_is_opened_there(kb_full, full_api):
    code = ('extends Node\nvar file = File.new()\n\nfunc save(text):\n\tfile.open("user://a.txt", File.WRITE)\n'
            '\tfile.store_string(text)\n\tfile.close()\n')
    m = migrate_snippet(code, kb_full)
    out = _godot4(m, full_api)
    assert "var file: FileAccess\n" in out
    assert '\tfile = FileAccess.open("user://a.txt", FileAccess.WRITE)\n' in out
    assert m.status == "migrated" and check_files({"snippet.gd": out}, full_api).errors == 0


def test_setget_used_in_its_class_keeps_godot3_behaviour_with_a_backing_field(kb_full, full_api):
    code = ("extends Node\nvar stack = [] setget set_stack, get_stack # the undo stack\n\nfunc _init():\n"
            "\tstack = []\n\nfunc set_stack(value):\n\tstack = value\n\nfunc get_stack():\n\treturn stack\n")
    out = _godot4(migrate_snippet(code, kb_full), full_api)
    assert "var _stack = []  # the undo stack\nvar stack:\n" in out
    assert "\t\tset_stack(value)\n" in out and "\t\treturn get_stack()\n" in out
    assert "func _init():\n\t_stack = []\n" in out and "\t_stack = value\n" in out and "\treturn _stack\n" in out


def test_operators_keep_their_precedence():
    from agent.judge.templates import template_edit

    code = "return get_transform().xform(rect_position + rect_size)"
    start = code.index("xform")
    assert template_edit("Transform2D.xform", code, start)[2] == "(get_transform() * (rect_position + rect_size))"
    code = "return t.xform(v)"
    assert template_edit("Transform2D.xform", code, code.index("xform"))[2] == "(t * v)"


def test_a_null_start_means_the_current_value():
    from agent.judge.rewrite import _tweener

    assert _tweener("interpolate_property", ["self", '"modulate"', "null", "Color.RED", "1.0"], "tween") == \
        'tween.tween_property(self, "modulate", Color.RED, 1.0)'


def test_certain_renames_are_made_whatever_the_receiver(kb_full, full_api):
    code = ("extends Node\nfunc f(mat, shape, node):\n\tmat.set_shader_param(\"k\", 1)\n"
            "\tnode.set(\"rect_size\", Vector2.ONE)\n\tnode.call_deferred(\"set_shader_param\", \"k\", 2)\n"
            "\tprint(shape.extents)\n")
    m = migrate_snippet(code, kb_full)
    out = _godot4(m, full_api)
    assert 'mat.set_shader_parameter("k", 1)' in out and 'node.set("size", Vector2.ONE)' in out
    assert 'call_deferred("set_shader_parameter", "k", 2)' in out
    assert "set_shader_param(" not in out and '"rect_size"' not in out
    assert any(i.old == "set_shader_param" and i.new == "set_shader_parameter" for h in m.hunks for i in h.items)


def test_godot3_grammar_the_engine_had_no_rule_for_comes_out_as_godot4(kb_full, full_api):
    code = ('extends Node\nenum State {\n\tIDLE\n\tRUN\n}\nvar table = {"a": 1, b = 2}\n\n'
            'func f(var x: String):\n\treturn x\n')
    out = _godot4(migrate_snippet(code, kb_full), full_api)
    assert "\tIDLE,\n\tRUN\n" in out and '{"a": 1, "b": 2}' in out and "func f(x: String):" in out


def test_a_todo_hunk_keeps_its_safe_edits_and_the_file_parses(kb_full, full_api):
    code = ("extends Node\nexport(String, 'A', 'B') var process_mode = 'A'\n\nfunc _draw():\n\t._draw()\n"
            "\tvar t = Tween.new()\n\tt.interpolate_property(self, \"modulate\", null, Color.red, 1.0)\n")
    m = migrate_snippet(code, kb_full)
    out = _godot4(m, full_api)
    assert m.status == "todo" and f"# {TODO_TAG}:" in out
    lines = [x.strip() for x in out.split("\n") if x.strip() and not x.strip().startswith("#")]
    assert "super._draw()" in lines and "._draw()" not in lines
    assert not any(x.startswith("export(") for x in lines)
    todo_reasons = " ".join(t.reason for t in m.todos)
    assert "process_mode" in todo_reasons or "process_mode" in " ".join(m.failures)


def test_a_second_migration_changes_nothing(kb_full):
    code = ("extends Node\nvar stack = [] setget set_stack\nvar file = File.new()\nfunc _init():\n\tstack = []\n"
            "func set_stack(v):\n\tstack = v\nfunc g(mat):\n\tmat.set_shader_param('a', 1)\n"
            "\tfile.open('user://x', File.READ)\n")
    first = migrate_snippet(code, kb_full).migrated
    assert migrate_snippet(first, kb_full).migrated is None


def test_a_godot4_project_is_left_as_it_is(kb_full):
    files = {"project.godot": "config_version=5\n",
             "a.gd": "extends Node\n@export var speed := 2.0\nfunc _ready() -> void:\n\tawait get_tree().process_frame\n"}
    m = migrate_files(files, kb_full)
    assert all(f.migrated is None for f in m.files)


def test_a_backing_field_used_three_times_is_written_once(kb_full, full_api):
    code = ("extends Node\nvar health = 10 setget set_health\n\nfunc _ready():\n\thealth = 5\n\tprint(health)\n"
            "\thealth += 1\n\nfunc set_health(v):\n\thealth = v\n")
    out = _godot4(migrate_snippet(code, kb_full), full_api)
    assert out.count("var _health = 10") == 1 and out.count("set(value):") == 1
    assert "\t_health = 5\n\tprint(_health)\n\t_health += 1\n" in out and "_healthh" not in out


def test_enum_values_are_never_split(kb_full, full_api):
    code = ("extends Node\nconst SIZE = 2\nenum Kind {SMALL = SIZE, BIG}\nenum Mask {\n\tA = 1 << SIZE\n\tB\n}\n"
            "func f():\n\tyield(get_tree(), \"idle_frame\")\n")
    out = _godot4(migrate_snippet(code, kb_full), full_api)
    assert "enum Kind {SMALL = SIZE, BIG}" in out and "\tA = 1 << SIZE,\n\tB\n" in out


def test_a_setget_on_a_node_path_keeps_the_path(kb_full, full_api):
    code = ("extends Node2D\nonready var collider: CollisionShape2D = $CollisionShape2D setget ,get_collider\n\n"
            "func get_collider() -> CollisionShape2D:\n\treturn collider\n")
    out = _godot4(migrate_snippet(code, kb_full), full_api)
    assert "= $CollisionShape2D: get = get_collider" in out or "= $CollisionShape2D" in out and "$:" not in out


def test_godot3_grammar_in_a_chunk_the_judge_lets_pass_is_written_as_godot4(kb_full, full_api):
    code = "extends Node\nenum Side {\n\tLEFT\n\tRIGHT  # the other one\n}\n\nfunc f():\n\treturn Side.LEFT\n"
    m = migrate_snippet(code, kb_full)
    assert "\tLEFT,\n\tRIGHT  # the other one\n" in _godot4(m, full_api) and m.status == "migrated"
