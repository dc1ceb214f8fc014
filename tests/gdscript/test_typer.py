"""The expression typer: receiver types from the whole script, its project and its scenes, per version."""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
from agent.gdscript.typer import ProjectScripts, Typer

_CLASSES = [("Object", ""), ("Reference", "Object"), ("Node", "Object"), ("CanvasItem", "Node"),
            ("Node2D", "CanvasItem"), ("Control", "CanvasItem"), ("BaseButton", "Control"), ("Button", "BaseButton"),
            ("CheckBox", "Button"), ("UndoRedo", "Object"), ("SceneTree", "Object"), ("World2D", "Object"),
            ("Sprite", "Node2D"), ("Dictionary", ""), ("Array", ""), ("int", ""), ("float", ""), ("String", ""),
            ("@GlobalScope", ""), ("@GDScript", "")]


def _index() -> ApiIndex:
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in _CLASSES:
            if cls == "Sprite" and v == V4:
                continue
            entries.append(ApiEntry(v, cls, "", "class"))
            classes.append(ClassEntry(v, cls, parent))
        entries += [ApiEntry(v, "Node", "get_tree", "method", return_type="SceneTree"),
                    ApiEntry(v, "CanvasItem", "get_world_2d", "method", return_type="World2D"),
                    ApiEntry(v, "Dictionary", "keys", "method", return_type="Array"),
                    ApiEntry(v, "Node", "get_parent", "method", return_type="Node")]
    entries += [ApiEntry(V3, "Physics2DDirectSpaceState", "", "class"),
                ApiEntry(V4, "PhysicsDirectSpaceState2D", "", "class"),
                ApiEntry(V3, "World2D", "direct_space_state", "property", return_type="Physics2DDirectSpaceState"),
                ApiEntry(V4, "World2D", "direct_space_state", "property", return_type="PhysicsDirectSpaceState2D"),
                ApiEntry(V3, "@GDScript", "max", "method", return_type="float"),
                ApiEntry(V4, "@GlobalScope", "max", "method", return_type="Variant")]
    return ApiIndex(entries, classes, complete_v4=True)


_BOARD = '''extends Control
onready var box := $Panel/Box as CheckBox
var undo: UndoRedo
var cells := {}
var level: Level

func apply(value, arg: Node):
    box.pressed = true
    undo.add_do_method(self, "set_value", value)
    get_tree().set_input_as_handled()
    cells.keys().remove(0)
    value.frobnicate()
    arg.get_parent()
    level.undo.commit_action()
    level.get_parent()
    level.rebuild()
    var space = get_world_2d().direct_space_state
    space.intersect_ray(a, b)
    var s := max(1, 2)

func shadow():
    var undo = {}
    undo.clear()
    var n = get_node("Sprite")
    if n is Sprite:
        n.texture = null
    $Panel/Box.text = ""
'''
_LEVEL = '''class_name Level
extends Node2D
var undo := UndoRedo.new()
func rebuild():
    pass
'''


def _receivers(source: str = _BOARD) -> dict[str, str]:
    """The line's text up to the member after the dot (`level.undo`) -> the receiver type (first line that reads so)."""
    scripts = ProjectScripts({"board.gd": source, "level.gd": _LEVEL}, class_paths={"Level": "level.gd"},
                             scene_nodes={"board.gd": {"Panel/Box": "CheckBox", "Sprite": "Sprite"}})
    typer = Typer(scripts, _index())
    data = source.encode()
    out = {}
    for at, t in typer.receivers("board.gd", 0, len(data)).items():  # '' = the project's own member
        line_start = data.rfind(b"\n", 0, at) + 1
        member = re.match(rb"\.\s*(\w+)", data[at:]).group(1)
        key = f"{data[line_start:at].decode().strip()}.{member.decode()}"
        out.setdefault(key, []).append((at, t))
    return {k: min(v)[1] for k, v in out.items()}


def test_members_declared_anywhere_in_the_file_type_their_uses():
    found = _receivers()
    assert found["box.pressed"] == "CheckBox"  # `onready var box := $Panel/Box as CheckBox`
    assert found["undo.add_do_method"] == "UndoRedo"  # a member of another function's script
    assert found["cells.keys"] == "Dictionary" and found["cells.keys().remove"] == "Array"


def test_engine_return_types_and_per_version_types():
    found = _receivers()
    assert found["get_tree().set_input_as_handled"] == "SceneTree"
    assert found["space.intersect_ray"] == "Physics2DDirectSpaceState|PhysicsDirectSpaceState2D"


def test_project_classes_in_other_files():
    found = _receivers()
    assert found["level.undo.commit_action"] == "UndoRedo"  # Level's script declares `var undo := UndoRedo.new()`
    assert found["level.get_parent"] == "Node2D"  # `level.get_parent()`: an engine member, on Level's engine base
    assert found["level.rebuild"] == "" and found["level.undo"] == ""  # the project's own function is no engine member


def test_unknown_stays_unknown_and_locals_shadow_members():
    found = _receivers()
    assert "value.frobnicate" not in found  # an untyped parameter
    assert found["arg.get_parent"] == "Node"
    assert found["undo.add_do_method"] == "UndoRedo"  # the member in apply() ...
    shadowed = _receivers(_BOARD.replace("    undo.add_do_method(self, \"set_value\", value)\n", ""))
    assert shadowed["undo.clear"] == "Dictionary"  # ... and the local `var undo = {}` in shadow()


def test_scenes_and_is_narrowing():
    found = _receivers()
    assert found["n.texture"] == "Sprite"  # `if n is Sprite:`
    assert found["$Panel/Box.text"] == "CheckBox"


def test_godot4_inference_errors():
    scripts = ProjectScripts({"board.gd": _BOARD, "level.gd": _LEVEL}, class_paths={"Level": "level.gd"})
    typer = Typer(scripts, _index())
    assert [(d.name, t.v3, t.v4) for d, t in typer.inference_errors("board.gd", 1, 40)] == [("s", "float", "Variant")]
    assert typer.inference_errors("board.gd", 1, 5) == []


def test_a_declared_engine_class_may_hold_a_project_script():
    """`-> Control` returning the project's editors: their own `can_drop_data()` is no engine member."""
    editor = "extends Control\nfunc can_drop_data(at, data) -> bool:\n    return true\n"
    host = ("extends Control\nfunc sub() -> Control:\n    return null\n"
            "func f(at, data):\n    sub().can_drop_data(at, data)\n    sub().get_parent()\n    get_tree().get_parent()\n")
    scripts = ProjectScripts({"host.gd": host, "editor.gd": editor})
    typer = Typer(scripts, _index())
    data = host.encode()
    found = {data[data.rfind(b"\n", 0, at) + 1 : at].decode().strip() + data[at:at + 12].decode(): t
             for at, t in typer.receivers("host.gd", 0, len(data)).items()}
    assert found["sub().can_drop_da"] == ""  # a name a project script declares: maybe that script's
    assert found["sub().get_parent("] == "Control"  # an engine member stays the declared class's
    assert found["get_tree().get_parent("] == "SceneTree"


def test_is_tests_narrow_through_and_and_early_exits(full_api):
    src = ("extends Node\nfunc _input(event):\n\tif event is InputEventKey && event.pressed:\n\t\tprint(event.keycode)\n"
           "\tif not event is InputEventMouseButton:\n\t\treturn\n\tprint(event.button_index)\n")
    typer = Typer(ProjectScripts({"n.gd": src}), full_api)
    found = {(src[:at].count("\n") + 1, member): t.v4 for at, (t, member) in typer.dot_types("n.gd").items()}
    assert found == {(3, "pressed"): "InputEventKey", (4, "keycode"): "InputEventKey",
                     (7, "button_index"): "InputEventMouseButton"}
