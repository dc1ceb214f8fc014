"""The Godot 3 -> 4 change data (agent/data/changes) and its one loader, agent/changes.py.

A new change is one data row there and one row in a table below (`REWRITES`, `FOUND` or `DIMENSIONS`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from agent import changes
from agent.answer.check import GODOT3_MEMBERS, _member_failures
from agent.judge.dimension import dimension_of_name
from agent.judge.lexer import lex
from agent.judge.rewrite import mechanical_rewrite
from agent.judge.syntax_rules import DIRECT_RULES, GDSCRIPT_RULES, GLOBAL_FUNCTION_RENAMES, GRAMMAR, rule_matches

AGENT = Path(changes.__file__).parent
_IDENT = re.compile(r"[A-Za-z_]\w*")
_RULES = {r.name: r for r in (*GDSCRIPT_RULES, *DIRECT_RULES)}
_OTHER_CHECKS = {"godot3_member"}  # agent.answer.check's rule for Godot 3 members


# ---------------------------------------------------------------- one row per change

REWRITES = [
    # (Godot 3 code, what the mechanical rewrite makes of it)
    ("var a = deg2rad(90)\n", "var a = deg_to_rad(90)\n"),
    ("var b = stepify(x, 0.5)\n", "var b = snapped(x, 0.5)\n"),
    ("var bytes = PoolByteArray()\n", "var bytes = PackedByteArray()\n"),
    ("var reals: PoolRealArray\n", "var reals: PackedFloat32Array\n"),
    ("rect_min_size = Vector2(1, 1)\n", "custom_minimum_size = Vector2(1, 1)\n"),
    ("$Panel.rect_rotation = 90\n", "$Panel.rotation_degrees = 90\n"),
    ("var t = OS.get_ticks_msec()\n", "var t = Time.get_ticks_msec()\n"),
    ("var u = OS.get_unix_time()\n", "var u = Time.get_unix_time_from_system()\n"),
    ('OS.set_window_title("x")\n', 'DisplayServer.window_set_title("x")\n'),
    ("OS.window_size = Vector2(1, 2)\n", "DisplayServer.window_set_size(Vector2(1, 2))\n"),
    ("var full = OS.window_fullscreen\n", "var full = DisplayServer.window_get_mode() == DisplayServer.WINDOW_MODE_FULLSCREEN\n"),
    ('b.connect("pressed", self, "f", [], CONNECT_ONESHOT)\n', "b.pressed.connect(f, CONNECT_ONE_SHOT)\n"),
    ('b.connect("pressed", self, "f", [], Object.CONNECT_DEFERRED)\n', "b.pressed.connect(f, Object.CONNECT_DEFERRED)\n"),
    ("var f = File.new()\nf.open(p, File.READ)\n", "var f = FileAccess.open(p, FileAccess.READ)\n"),
    ("var d = Directory.new()\nd.open(p)\n", "var d = DirAccess.open(p)\n"),
    ("if File.file_exists(p):\n\tpass\n", "if FileAccess.file_exists(p):\n\tpass\n"),
    ("func _physics_process(delta):\n\tvelocity = move_and_slide(velocity, Vector2.UP, true)\n",
     "func _physics_process(delta):\n\tup_direction = Vector2.UP\n\tfloor_stop_on_slope = true\n\tmove_and_slide()\n"),
]

FOUND = [
    # (Godot 3 code, the syntax rule or answer check that flags it)
    ("var d = parse_json(s)\n", "renamed_global"),
    ("var p = polar2cartesian(r, a)\n", "renamed_global"),
    ("$Tween.interpolate_method(self, \"f\", 0, 1, 2)\n", "tween_node"),
    ("var v = t.xform_inv(p)\n", "xform"),
    ("var d = OS.get_datetime()\n", "os_time"),
    ("OS.center_window()\n", "os_window"),
    ("remotesync func f():\n\tpass\n", "rpc_keyword"),
    ("func f():\n\tyield(get_tree(), \"idle_frame\")\n\tawait get_tree().idle_frame\n", "godot3_member"),
]

DIMENSIONS = [
    # (class name, project dimension it says)
    ("Spatial", "3d"),
    ("SpatialMaterial", "3d"),
    ("KinematicBody", "3d"),
    ("Area2D", "2d"),
    ("Sprite", "unknown"),
]


@pytest.mark.parametrize(("code", "expected"), REWRITES)
def test_rewrite_row(code: str, expected: str) -> None:
    assert mechanical_rewrite(code, {}, set()) == expected


@pytest.mark.parametrize(("code", "check"), FOUND)
def test_found_row(code: str, check: str) -> None:
    if check == "godot3_member":
        assert _member_failures(code)
        return
    assert next(rule_matches(_RULES[check], lex(code).masked), None), f"{check} misses {code!r}"


@pytest.mark.parametrize(("name", "dimension"), DIMENSIONS)
def test_dimension_row(name: str, dimension: str) -> None:
    assert dimension_of_name(name) == dimension


# ---------------------------------------------------------------- the data


def test_data_files_parse() -> None:
    assert changes.renames() and changes.removed() and changes.syntax().rules and changes.undocumented_in_34()
    assert changes.renames() is changes.renames()  # read once


def test_rows_are_well_formed() -> None:
    for row in (*changes.renames(), *changes.removed()):
        assert row.kind in changes.KINDS, row
        assert _IDENT.fullmatch(row.old), row
        assert all(_IDENT.fullmatch(c) for c in row.classes), row
        assert not row.rule or row.rule in _RULES or row.rule in _OTHER_CHECKS, f"{row}: no such rule"
        assert (row.kind == "global_function") == (row.rule == "renamed_global"), row
        assert not row.classes or row.kind not in ("global_function", "class"), row
    for row in changes.renames():
        assert re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)?", row.new), row
        assert row.new != row.old or row.note, f"{row}: a rename to itself says why it is listed"
        assert row.kind not in ("member", "property", "signal", "constant") or row.classes, f"{row}: whose member?"
    for m in changes.syntax().moved:
        assert m.rule in _RULES and m.prefixes + m.names
        for old, new in changes.renamed(rule=m.rule).items():
            assert new.startswith(m.to + "."), (old, new)


def test_no_duplicate_old_names() -> None:
    seen: dict[tuple[str, str, str], str] = {}
    for file, rows in (("renames", changes.renames()), ("removed", changes.removed())):
        for row in rows:
            for cls in row.classes or ("",):
                key = (row.kind, cls, row.old)
                assert key not in seen, f"{key} in {file}.json and {seen[key]}.json"
                seen[key] = file


def test_every_rule_has_its_facts_and_the_reverse() -> None:
    facts = {f.name: f for f in changes.syntax().rules}
    assert set(facts) == set(_RULES)
    for name, rule in _RULES.items():
        assert (rule.version, rule.old, rule.new, rule.mapping_keys) == (
            facts[name].version, facts[name].old, facts[name].new, facts[name].mapping_keys)
    assert GRAMMAR["godot3"] and GRAMMAR["godot4"]
    assert all(_RULES[n].version == v for v, names in GRAMMAR.items() for n in names)


def _use(row: changes.Rename | changes.Removal) -> str:
    """A Godot 3 use of the row's old name that its rule is about."""
    if row.kind == "global_function":
        return f"var a = {row.old}(1)\n"
    if row.kind == "class":
        return f"var a = {row.old}.new()\n" if row.rule == "file_class" else f"var a: {row.old}\n"
    owner = row.classes[0]
    if row.rule in ("os_time", "os_window"):
        return f"var a = {owner}.{row.old}()\n"
    return f"var a = x.{row.old}(1)\n" if row.kind == "member" else f"x.{row.old} = 1\n"


_LISTING_RULES = ("renamed_global", "pool_array", "rect_properties", "os_time", "os_window", "tween_node", "xform")


@pytest.mark.parametrize("row", [r for r in (*changes.renames(), *changes.removed())
                                 if r.rule in _LISTING_RULES or (r.rule == "file_class" and r.kind == "class")],
                         ids=lambda r: f"{r.rule}:{r.old}")
def test_a_rule_finds_every_old_name_it_lists(row) -> None:
    code = _use(row)
    assert next(rule_matches(_RULES[row.rule], lex(code).masked), None), f"{row.rule} misses {code!r}"


def test_public_tables_read_the_data() -> None:
    assert GLOBAL_FUNCTION_RENAMES == changes.renamed(kind="global_function")
    assert GODOT3_MEMBERS == changes.renamed(rule="godot3_member")


# ---------------------------------------------------------------- no fact written in Python

KNOWN_PAIRS = {("deg2rad", "deg_to_rad"), ("rect_position", "position"), ("idle_frame", "process_frame"),
               ("PoolByteArray", "PackedByteArray"), ("KinematicBody2D", "CharacterBody2D"), ("Spatial", "Node3D"),
               ("CONNECT_ONESHOT", "CONNECT_ONE_SHOT"), ("get_ticks_msec", "Time.get_ticks_msec"),
               ("instance", "instantiate"), ("change_scene", "change_scene_to_file")}
"""Pairs a Python literal must never map, whatever the data holds today."""


def _pairs() -> set[tuple[str, str]]:
    return KNOWN_PAIRS | {(r.old, r.new) for r in changes.renames() if r.old != r.new}


def _old_names() -> set[str]:
    syntax = changes.syntax()
    return ({r.old for r in (*changes.renames(), *changes.removed())} | {p.old for p in syntax.os_window_properties}
            | {n for m in syntax.moved for n in m.names})


def _strings(nodes) -> list[str]:
    return [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def hard_coded_facts(source: str, pairs: set[tuple[str, str]], olds: set[str]) -> list[str]:
    """Literals in Python source that spell a Godot 3 -> 4 fact: a rename pair, or a list of Godot 3 names."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            keys, values = _strings(k for k in node.keys if k is not None), _strings(node.values)
            out += [f"line {node.lineno}: {{{k!r}: {v!r}}}" for k, v in zip(keys, values) if (k, v) in pairs]
            names = set(keys) & olds
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = _strings(node.elts)
            if len(node.elts) == 2 and tuple(items) in pairs:
                out.append(f"line {node.lineno}: {tuple(items)!r}")
            names = set(items) & olds
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "|" in node.value:
            names = {w for w in re.findall(r"[A-Za-z_]\w*", node.value) if w in olds}  # a regex alternation
            names = names if len(re.findall(r"\|", node.value)) >= 2 else set()
        else:
            continue
        if len(names) >= 3:
            out.append(f"line {node.lineno}: a list of Godot 3 names {sorted(names)}")
    return out


def test_the_meta_test_sees_facts_written_in_python() -> None:
    pairs, olds = _pairs(), _old_names()
    assert hard_coded_facts('R = {"deg2rad": "deg_to_rad"}', pairs, olds)
    assert hard_coded_facts('R = (("idle_frame", "process_frame"),)', pairs, olds)
    assert hard_coded_facts('S = {"Spatial", "KinematicBody", "RigidBody"}', pairs, olds)
    assert hard_coded_facts('P = r"(rand_range|deg2rad|stepify)\\s*\\("', pairs, olds)
    assert not hard_coded_facts('S = {"File", "Directory", "Tween", "OS"}', pairs, olds)


def test_no_rename_or_syntax_fact_is_written_in_python() -> None:
    """A Godot change is a data row in agent/data/changes, never a literal in a module."""
    pairs, olds = _pairs(), _old_names()
    found = {}
    for path in sorted(AGENT.rglob("*.py")):
        if path == Path(changes.__file__):
            continue
        facts = hard_coded_facts(path.read_text(encoding="utf-8"), pairs, olds)
        if facts:
            found[str(path.relative_to(AGENT.parent))] = facts
    assert not found, f"move these to agent/data/changes: {found}"
