"""Scenes, resources and project.godot in their Godot 4 form, from data (no knowledge base needed)."""

from __future__ import annotations

from agent.migrate.resources import migrate_project_godot, migrate_resource

SCENE = """[gd_scene load_steps=4 format=2]

[ext_resource path="res://coin.png" type="Texture" id=1]
[ext_resource path="res://coin.tres" type="SpriteFrames" id=2]

[sub_resource type="RectangleShape2D" id=1]
extents = Vector2( 8, 4.5 )

[node name="Coin" type="Area2D"]
pause_mode = 2

[node name="Sprite" type="Sprite" parent="."]
texture = ExtResource( 1 )

[node name="Anim" type="AnimatedSprite" parent="."]
frames = ExtResource( 2 )

[node name="Shape" type="CollisionShape2D" parent="."]
shape = SubResource( 1 )

[node name="Label" type="Label" parent="."]
margin_right = 40.0
rect_min_size = Vector2( 10, 10 )
custom_colors/font_color = Color( 1, 1, 1, 1 )
text = "ExtResource( 1 ) rect_min_size"

[node name="Instanced" parent="." instance=ExtResource( 2 )]
rect_position = Vector2( 3, 4 )
"""


def test_a_godot3_scene_gets_types_properties_and_ids_of_godot4():
    out = migrate_resource("coin.tscn", SCENE).text
    assert out.startswith("[gd_scene load_steps=4 format=3]")
    assert '[ext_resource path="res://coin.png" type="Texture2D" id="1"]' in out
    assert '[sub_resource type="RectangleShape2D" id="1"]' in out
    assert "size = Vector2(16, 9)" in out and "extents" not in out  # a half size became a size
    assert 'type="Sprite2D"' in out and 'type="AnimatedSprite2D"' in out
    assert "texture = ExtResource(\"1\")" in out and 'shape = SubResource("1")' in out
    assert "offset_right = 40.0" in out and "custom_minimum_size = Vector2( 10, 10 )" in out
    assert "theme_override_colors/font_color" in out
    assert "process_mode = 3" in out  # pause_mode 2 (process) is process_mode 3 (always)
    assert 'text = "ExtResource( 1 ) rect_min_size"' in out  # strings stay as they are
    assert "position = Vector2( 3, 4 )" in out  # rect_position belongs to Control alone
    assert migrate_resource("coin.tscn", out).text == out  # format=3: nothing more to do


def test_an_embedded_script_is_marked_not_rewritten():
    text = ('[gd_resource type="GDScript" format=2]\n\n[sub_resource type="GDScript" id=1]\n'
            'script/source = "extends Node\nfunc f():\n\tyield(get_tree(), \\"idle_frame\\")\n"\n')
    res = migrate_resource("x.tres", text)
    assert res.todos and "TODO(godot-rag)" in res.text and 'yield(get_tree(), \\"idle_frame\\")' in res.text


PROJECT = """config_version=4

_global_script_classes=[  ]

[application]

config/name="Coins"

[display]

window/size/width=640
window/vsync/use_vsync=false
window/stretch/mode="2d"

[input]

jump={
"deadzone": 0.5,
"events": [ Object(InputEventKey,"resource_local_to_scene":false,"resource_name":"","device":0,"alt":false,"shift":false,"control":false,"meta":false,"command":false,"pressed":false,"scancode":32,"physical_scancode":0,"unicode":0,"echo":false,"script":null)
 ]
}

[physics]

common/physics_fps=30
"""


def test_project_godot_gets_config_version_settings_and_the_input_map():
    out = migrate_project_godot(PROJECT).text
    assert "config_version=5" in out
    assert "window/size/viewport_width=640" in out and "window/vsync/vsync_mode=0" in out
    assert 'window/stretch/mode="canvas_items"' in out
    assert '"keycode":32' in out and '"physical_keycode":0' in out and '"scancode"' not in out
    assert '"alt_pressed":false' in out and '"ctrl_pressed":false' in out
    assert "common/physics_ticks_per_second=30" in out
    assert migrate_project_godot(out).text == out


def test_a_godot4_project_file_is_left_alone():
    text = 'config_version=5\n\n[application]\nconfig/name="x"\n'
    assert migrate_project_godot(text).text == text and migrate_project_godot(text).edits == 0


def test_a_node_type_godot4_has_no_node_for_gets_a_todo():
    text = '[gd_scene load_steps=1 format=2]\n\n[node name="Menu" type="Control"]\n\n[node name="Tween" type="Tween" parent="."]\n'
    res = migrate_resource("menu.tscn", text)
    lines = res.text.split("\n")
    assert res.todos and lines[res.todos[0][0] - 1].startswith("; TODO(godot-rag): Tween is no longer a node")
    assert lines[res.todos[0][0]] == '[node name="Tween" type="Tween" parent="."]'
