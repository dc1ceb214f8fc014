"""The GDScript 4 checker on the whole shared API index: one case file per rule (checker_cases/<rule>.gd).

A line ending in `# expect: <rule>` must get an error of that rule; every other line must get none. The
fixes the checker offers as safe are applied and checked again: nothing of what they fixed is left.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.gdscript.checker import apply_fixes, check_files
from agent.gdscript.grammar import godot4_grammar_error

CASES = Path(__file__).with_name("checker_cases")
RULES = sorted(p.stem.replace("_", "-") for p in CASES.glob("*.gd"))
_EXPECT = re.compile(r"#\s*expect:\s*([\w-]+)")


def _expected(text: str) -> set[tuple[int, str]]:
    return {(n, m.group(1)) for n, line in enumerate(text.split("\n"), 1) if (m := _EXPECT.search(line))}


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_reports_its_lines_and_no_others(rule: str, full_api) -> None:
    path = f"{rule.replace('-', '_')}.gd"
    text = (CASES / path).read_text()
    report = check_files({path: text}, full_api)
    got = {(d.line, d.rule) for f in report.files for d in f.diagnostics if d.severity == "error"}
    assert got == _expected(text), report.text()
    assert any(r == rule for _, r in got)


def test_every_rule_has_a_case_file() -> None:
    from agent.gdscript import checker

    documented = set(re.findall(r"^- `([a-z0-9-]+)`", checker.__doc__ or "", re.M))
    assert documented - {"syntax", "accessor-in-class"} <= set(RULES), documented - set(RULES)


def test_safe_fixes_leave_nothing_of_what_they_fix(full_api) -> None:
    path = "godot3_member.gd"
    text = (CASES / path).read_text()
    report = check_files({path: text}, full_api)
    fixed = apply_fixes(text, report.files[0].diagnostics)
    assert 'mat.set_shader_parameter("strength", 1.0)' in fixed
    assert 'node.set("size", Vector2.ONE)' in fixed
    # a row the converter leaves off counts on a stated class where the old name is a 3.x member of a class it
    # names; on an unknown receiver it may be a Dictionary key (`node.group`)
    assert 'load("res://enemy.tscn").instantiate()' in fixed and "if kids.is_empty():" in fixed
    assert "print(node.window_title, node.group)" in fixed
    # a scaled property is renamed with its value converted where it is written and read
    assert "box.size = Vector3.ONE * 2" in fixed and "print((box.size / 2).x)" in fixed
    after = check_files({path: fixed}, full_api)
    assert not [d for d in after.files[0].diagnostics if d.rule == "godot3-member"], after.text()


def test_a_moved_member_and_a_call_form_are_safe_fixes(full_api) -> None:
    """A singleton's member moved to another singleton (renames.json) and a call with its Godot 4 form
    (calls.json) are fixed as the migration writes them."""
    text = (CASES / "unknown_member.gd").read_text()
    fixed = apply_fixes(text, check_files({"u.gd": text}, full_api).files[0].diagnostics)
    assert "print(Time.get_unix_time_from_system(), multiplayer.is_server())" in fixed


def test_an_open_on_an_instance_becomes_the_assignment_godot4_needs(full_api) -> None:
    text = (CASES / "static_on_instance.gd").read_text()
    fixed = apply_fixes(text, check_files({"s.gd": text}, full_api).files[0].diagnostics)
    assert 'file = FileAccess.open("user://save.txt", FileAccess.WRITE)  # expect' in fixed
    read = 'extends Node\nvar f: FileAccess\nfunc g():\n\tvar err = f.open("a", FileAccess.READ)\n\treturn err\n'
    fixed = apply_fixes(read, check_files({"r.gd": read}, full_api).files[0].diagnostics)
    assert '\tf = FileAccess.open("a", FileAccess.READ)\n\tvar err = FileAccess.get_open_error()\n' in fixed


def test_migrated_setget_used_in_its_class_gets_a_backing_field(full_api) -> None:
    godot3 = "extends Node\nvar stack = [] setget set_stack # kept\nfunc _init():\n\tstack = []\n" \
             "func set_stack(v):\n\tstack = v\n\temit_signal(\"tree_entered\")\n"
    godot4 = "extends Node\nvar stack = []: set = set_stack  # kept\nfunc _init():\n\tstack = []\n" \
             "func set_stack(v):\n\tstack = v\n\temit_signal(\"tree_entered\")\n"
    report = check_files({"a.gd": godot4}, full_api, godot3_origin={"a.gd": godot3})
    assert [d.rule for d in report.files[0].diagnostics] == ["accessor-in-class"], report.text()
    fixed = apply_fixes(godot4, report.files[0].diagnostics)
    assert fixed.startswith("extends Node\nvar _stack = []  # kept\nvar stack:\n\tset(value):\n\t\tset_stack(value)\n"
                            "\tget:\n\t\treturn _stack\n")
    assert "func _init():\n\t_stack = []\n" in fixed and "\t_stack = v\n" in fixed
    assert godot4_grammar_error(fixed) is None
    assert check_files({"a.gd": fixed}, full_api, godot3_origin={"a.gd": godot3}).errors == 0
    # the same code written for Godot 4 is Godot 4's business: no origin, no report
    assert check_files({"a.gd": godot4}, full_api).errors == 0


def test_a_project_resolves_class_names_autoloads_and_relative_bases(full_api) -> None:
    files = {
        "project.godot": 'config_version=5\n[autoload]\nGame="*res://game.gd"\n',
        "game.gd": "extends Node\nvar score := 0\nfunc add(n: int) -> void:\n\tscore += n\n",
        "base/_.gd": "extends RefCounted\nconst _Helpers = preload('helpers.gd')\nvar shared := 1\n",
        "base/helpers.gd": "extends RefCounted\nstatic func twice(x): return x * 2\n",
        "base/user.gd": 'extends "_.gd"\nclass_name User\nfunc f():\n\tGame.add(shared)\n\treturn _Helpers.twice(2)\n',
        "other.gd": "extends Node\nfunc g(u: User):\n\treturn u.f() + u.shared\n",
    }
    report = check_files(files, full_api)
    assert report.errors == 0, report.text()


def test_broken_grammar_is_a_warning_not_an_error(full_api) -> None:
    text = 'extends Node\nfunc f(a, b, c):\n\tif not (a == b != c):\n\t\tpass\n'  # Godot 4 reads it; gdtoolkit not
    report = check_files({"w.gd": text}, full_api)
    assert report.errors == 0 and report.complete_api


def test_a_partial_index_reports_no_unknown_name(kb_settings) -> None:
    from agent.apiindex import read_index
    from agent.storage import connection

    with connection(kb_settings) as conn:
        api = read_index(conn)
    report = check_files({"u.gd": "extends Node\nfunc f():\n\tprint(no_such_name)\n"}, api)
    assert not report.complete_api and report.errors == 0
    assert "partial" in report.text()
