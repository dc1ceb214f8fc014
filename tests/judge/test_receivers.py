"""Receivers, roles and project context, without a database: pure functions over code and scenes."""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
from agent.judge.lexer import lex
from agent.judge.project import build_project_context
from agent.judge.receivers import is_continuation, receiver_type, role_at, scope_of, signal_string_uses

HUD_GD = """extends CanvasLayer

func _on_MessageTimer_timeout():
\t$MessageLabel.hide()
"""
HUD_TSCN = """[gd_scene format=3 uid="uid://b0efehuavobda"]

[ext_resource type="Script" uid="uid://c1g57034r2c0" path="res://hud.gd" id="1"]

[node name="HUD" type="CanvasLayer"]
script = ExtResource("1")

[node name="MessageLabel" type="Label" parent="."]
text = "Dodge"

[node name="Box" type="VBoxContainer" parent="."]

[node name="Start" type="Button" parent="Box"]
"""
G3_TSCN = """[gd_scene load_steps=2 format=2]

[ext_resource path="res://player.gd" type="Script" id=1]

[node name="Player" type="KinematicBody2D"]
script = ExtResource( 1 )

[node name="Sprite" type="Sprite" parent="."]
"""


def _index() -> ApiIndex:
    entries = [
        ApiEntry(V3, "CanvasItem", "hide", "method"), ApiEntry(V3, "CanvasItem", "hide", "signal"),
        ApiEntry(V4, "CanvasItem", "hide", "method"), ApiEntry(V4, "CanvasItem", "hidden", "signal"),
        ApiEntry(V3, "Spatial", "translation", "property"), ApiEntry(V4, "Node3D", "position", "property"),
        *(ApiEntry(v, c, "", "class") for v, c in [(V3, "CanvasItem"), (V3, "Label"), (V3, "Spatial"),
                                                    (V4, "CanvasItem"), (V4, "Label"), (V4, "Node3D")]),
    ]
    classes = [ClassEntry(V3, "Label", "CanvasItem"), ClassEntry(V4, "Label", "CanvasItem")]
    return ApiIndex(entries, classes)


def test_scene_nodes_and_extends_chains():
    ctx = build_project_context({"hud.gd": HUD_GD, "hud.tscn": HUD_TSCN, "player.tscn": G3_TSCN,
                                 "player.gd": "extends KinematicBody2D\n", "base.gd": "class_name Base\nextends Node2D\n",
                                 "enemy.gd": "extends Base\n", "boss.gd": 'extends "res://enemy.gd"\n'})
    assert ctx.node_type("hud.gd", "MessageLabel") == "Label"
    assert ctx.node_type("hud.gd", "Box/Start") == "Button"
    assert ctx.node_type("player.gd", "Sprite") == "Sprite"
    assert ctx.script_class("hud.gd") == "CanvasLayer"
    assert ctx.script_class("enemy.gd") == "Node2D" and ctx.script_class("boss.gd") == "Node2D"


def test_members_built_in_another_function_take_that_class():
    base = "class_name BaseCel\nextends Reference\nvar image_texture\n"
    cel = ("extends BaseCel\nvar tex\nvar shown\nvar mixed\n"
           "func _init(t: ImageTexture = null, shown = null):\n\tif t:\n\t\timage_texture = t\n\telse:\n"
           "\t\timage_texture = ImageTexture.new()\n\tself.tex = Label.new()\n\tshown = Label.new()\n"
           "\tmixed = Label.new()\n\t# mixed = Timer.new()\n\tvar s = \"mixed = Timer.new()\"\n"
           "func f():\n\tvar local\n\tlocal = Label.new()\n\tmixed = Button.new()\n\tlater = Foo.new()\n")
    api = ApiIndex([ApiEntry(v, c, "", "class") for v in (V3, V4)
                    for c in ("ImageTexture", "Label", "Button")], [])
    ctx = build_project_context({"base.gd": base, "cel.gd": cel}, api)
    # a parameter (`shown`) or a local may be what is assigned; two classes (`mixed`) say nothing;
    # comments and strings never count; a user class (`Foo`) has no engine members to resolve
    assert ctx.assigned_types["cel.gd"] == {"image_texture": "ImageTexture", "tex": "Label"}
    assert "base.gd" not in ctx.assigned_types


def test_receiver_types_from_scene_declarations_and_constructors():
    code = ('var f: File\nvar t = Thread.new()\nonready var label = $MessageLabel\n'
            'func g(e: InputEvent):\n\t$MessageLabel.hide()\n\tget_node("Box/Start").show()\n'
            '\tf.open()\n\tt.start()\n\tlabel.text = ""\n\tself.hide()\n\tVector2(1, 2).x\n\tfoo().bar()\n\te.pressed\n')
    masked = lex(code).masked
    scope = scope_of(code, masked, "", own_class="CanvasLayer",
                     node_types={"MessageLabel": "Label", "Box/Start": "Button"},
                     classes=frozenset({"File", "Thread", "Vector2", "InputEvent"}))

    def at(needle: str) -> str | None:
        return receiver_type(code, masked, code.index(needle) + needle.index("."), scope)

    assert at("$MessageLabel.hide") == "Label"
    assert at('get_node("Box/Start").show') == "Button"
    assert at("f.open") == "File"
    assert at("t.start") == "Thread"
    assert at("label.text") == "Label"
    assert at("self.hide") == "CanvasLayer"
    assert at("Vector2(1, 2).x") == "Vector2"
    assert at("foo().bar") is None
    assert at("e.pressed") == "InputEvent"


def test_roles_of_member_uses():
    code = 'a.hide()\na.hide.connect(f)\na.text = 1\nconnect("hide", self, "f")\nemit_signal("spun")\nprint("hide")\n'
    masked = lex(code).masked
    assert role_at(masked, code.index("hide") + 4) == "call"
    assert role_at(masked, code.index("hide.connect") + 4) == "signal"
    assert role_at(masked, code.index("text") + 4) == "property"
    uses = signal_string_uses(masked, lex(code).strings)
    assert set(uses) == {"hide", "spun"}  # print("hide") is no signal use
    code = ("await $Button.pressed\nawait get_tree().create_timer(1.0).timeout\nawait $A.pressed.x\nif $B.pressed:\n"
            "var ok = await check() and $C.pressed\n")
    masked = lex(code).masked
    ends = [m.end() for m in re.finditer(r"pressed|timeout", code)]
    assert [role_at(masked, e) for e in ends] == ["signal", "signal", "property", "property", "property"]


def test_dot_lines_continue_an_expression_or_call_the_parent():
    g4_indented = "func f():\n\tvar t = create_tween()\n\t\t.tween_property(self, \"m\", 1.0, 0.6)\n"
    g4_parens = "func f():\n\tvar a = (b\n\t.filter(func(s): return s))\n"
    g4_backslash = "func f():\n\tvar t = create_tween() \\\n\t.tween_property(self, \"m\", 1.0, 0.6)\n"
    g3_first = "func _ready():\n\t._ready()\n"
    g3_after = "func _ready():\n\tprint(1)\n\t._ready()\n"
    for code in (g4_indented, g4_parens, g4_backslash):
        masked = lex(code).masked
        assert is_continuation(masked, masked.rindex("\t.") + 1), code
    for code in (g3_first, g3_after):
        masked = lex(code).masked
        assert not is_continuation(masked, masked.rindex("\t.") + 1), code


def test_index_walks_each_versions_chain():
    index = _index()
    assert index.lookup(V4, "Label", "hide", ["method"]) is not None
    assert index.lookup(V4, "Label", "hide", ["signal"]) is None
    assert index.lookup(V3, "Label", "hide", ["signal"]) is not None
    assert not index.defined_anywhere(V4, "translation")
    assert index.defined_anywhere(V3, "translation", ["property"])
    assert not index.complete_v4  # a handful of classes is a subset: absence proves nothing
    assert ApiIndex([], [], complete_v4=True).complete_v4


def test_res_paths_resolve_from_the_projects_own_folder():
    """An upload or a repository often holds the project one folder down (`game/project.godot`)."""
    files = {"game/project.godot": "config_version=4\n", "game/src/actor.gd": "extends KinematicBody2D\n",
             "game/src/player.gd": 'extends "res://src/actor.gd"\n', "game/player.tscn": G3_TSCN.replace(
                 "res://player.gd", "res://src/player.gd"), "other/base.gd": "extends Node2D\n",
             "other/enemy.gd": 'extends "res://base.gd"\n', "demo/b/base.gd": "extends Node3D\n",
             "demo/b/deep/enemy.gd": 'extends "res://base.gd"\n'}
    ctx = build_project_context(files)
    assert ctx.script_class("game/src/player.gd") == "KinematicBody2D"
    assert ctx.node_type("game/src/player.gd", "Sprite") == "Sprite"
    assert ctx.script_class("other/enemy.gd") == "Node2D"  # no project.godot: the nearest folder above that has it
    assert ctx.script_class("demo/b/deep/enemy.gd") == "Node3D"
