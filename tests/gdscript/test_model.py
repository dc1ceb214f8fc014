"""The script model: every declaration of a script on the tree-sitter AST, with its line and type."""

from __future__ import annotations

from agent.gdscript.model import ScriptModel

_SCRIPT = '''extends Control
class_name Board
export var speed := 10.0
onready var box := $Panel/Box as CheckBox
var undo: UndoRedo
enum State { IDLE, RUN }
signal moved(to)

func f(a: int, b = 2, c := Vector2()) -> void:
    var s := max(a, b)
    for i in range(3):
        var s2: String = str(i)

static func g():
    pass

class Cell extends Node:
    var q: int
'''


def test_members_keep_their_types_initializers_and_keywords():
    m = ScriptModel.build(_SCRIPT)
    assert (m.extends, m.class_name) == ("Control", "Board")
    assert m.members["undo"].type_text == "UndoRedo"
    assert m.members["speed"].inferred and not m.members["speed"].type_text
    assert m.members["box"].onready and m.members["box"].value.type == "binary_operator"
    assert {m.members[n].kind for n in ("State", "moved", "f", "Cell")} == {"enum", "signal", "func", "class"}
    assert {"IDLE", "RUN"} <= m.enum_values and m.declares("IDLE")


def test_functions_hold_parameters_and_locals_of_every_block():
    m = ScriptModel.build(_SCRIPT)
    f = m.function_at(11)
    assert f is not None and (f.name, f.first_line, f.return_type) == ("f", 9, "void")
    assert f.params["a"].type_text == "int" and f.params["b"].value.type == "integer"
    assert not f.params["c"].type_text  # `c := Vector2()`: inferred, no type named
    assert f.locals["s"][0].inferred
    assert f.locals["i"][0].kind == "loop" and f.locals["s2"][0].type_text == "String"
    assert m.function_at(14).name == "g" and m.function_at(1) is None


def test_inner_classes_are_models_of_their_own():
    inner = ScriptModel.build(_SCRIPT).inner["Cell"]
    assert inner.extends == "Node" and inner.members["q"].type_text == "int"


def test_a_broken_script_still_gives_what_parses():
    m = ScriptModel.build("extends Node\nvar a: Timer\nfunc f(:\n    pass\nvar b := 1\n")
    assert m.extends == "Node" and "a" in m.members


def test_a_godot3_export_hint_types_the_member():
    m = ScriptModel.build("extends Node\nexport(PackedScene) var scene\nexport(int, 1, 3) var n = 2\nexport var x = 1\n")
    assert m.members["scene"].type_text == "PackedScene" and m.members["n"].type_text == "int"
    assert not m.members["x"].type_text
