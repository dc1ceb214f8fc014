"""Receiver types the judge works out before it decides: per-version chains, initializers, node names,
global functions. On a small index marked complete, with the real chunker and the real evidence judge.
"""

from __future__ import annotations

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry, per_version_type, type_in, type_label
from agent.judge.base import JudgeInput
from agent.judge.evidence import EvidenceJudge
from agent.judge.facts import code_facts
from agent.judge.project import build_project_context
from agent.models import EvidenceBundle, RetrievalHit
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import find_chunk, gd_chunks

_BOTH = [("Object", ""), ("Node", "Object"), ("Node2D", "Node"), ("Control", "Node"), ("Button", "Control"),
         ("World2D", "Object"), ("JSON", "Object"), ("SceneTree", "Object"), ("@GlobalScope", ""), ("@GDScript", "")]


def _index() -> ApiIndex:
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in _BOTH:
            entries.append(ApiEntry(v, cls, "", "class"))
            classes.append(ClassEntry(v, cls, parent))
        entries.append(ApiEntry(v, "Node2D", "get_world_2d", "method", return_type="World2D"))
        entries.append(ApiEntry(v, "Node", "get_parent", "method", return_type="Node"))
        entries.append(ApiEntry(v, "@GlobalScope", "str", "method"))
        entries.append(ApiEntry(v, "Node", "get_tree", "method", return_type="SceneTree"))
    entries += [
        # the space state class was renamed, and its ray query takes one parameters object in 4.x
        ApiEntry(V3, "World2D", "direct_space_state", "property", return_type="Physics2DDirectSpaceState"),
        ApiEntry(V4, "World2D", "direct_space_state", "property", return_type="PhysicsDirectSpaceState2D"),
        ApiEntry(V3, "Physics2DDirectSpaceState", "", "class"), ApiEntry(V4, "PhysicsDirectSpaceState2D", "", "class"),
        ApiEntry(V3, "Physics2DDirectSpaceState", "intersect_ray", "method", arg_count=5, default_count=3,
                 return_type="Dictionary", signature="Dictionary intersect_ray(from: Vector2, to: Vector2, ...)"),
        ApiEntry(V4, "PhysicsDirectSpaceState2D", "intersect_ray", "method", arg_count=1, return_type="Dictionary",
                 signature="Dictionary intersect_ray(parameters: PhysicsRayQueryParameters2D)"),
        # JSON.parse returns a result object in 3.4 and an Error code in 4.x
        ApiEntry(V3, "JSON", "parse", "method", arg_count=1, return_type="JSONParseResult"),
        ApiEntry(V4, "JSON", "parse", "method", arg_count=2, default_count=1, return_type="Error"),
        ApiEntry(V3, "JSONParseResult", "", "class"), ApiEntry(V3, "JSONParseResult", "result", "property"),
        ApiEntry(V4, "JSON", "data", "property"),
        ApiEntry(V3, "Button", "pressed", "property"), ApiEntry(V3, "Button", "pressed", "signal"),
        ApiEntry(V4, "Button", "pressed", "signal"), ApiEntry(V4, "Button", "button_pressed", "property"),
        ApiEntry(V4, "Node", "process_mode", "property"),
        ApiEntry(V3, "Control", "margin_left", "property"),
        ApiEntry(V4, "MarginContainer", "margin_left", "theme-property"),  # a theme item, no `.margin_left`
        ApiEntry(V3, "@GDScript", "parse_json", "method", arg_count=1),
        # drag and drop callbacks: renamed with a leading underscore in 4.x
        ApiEntry(V3, "Control", "get_drag_data", "method", arg_count=1,
                 signature="Variant get_drag_data(position: Vector2) virtual"),
        ApiEntry(V4, "Control", "_get_drag_data", "method", arg_count=1,
                 signature="Variant _get_drag_data(at_position: Vector2) virtual const"),
        ApiEntry(V3, "Control", "get_minimum_size", "method", signature="Vector2 get_minimum_size() const"),
        # members named by strings: `call_deferred("change_scene", p)`, `connect("network_peer_connected", ...)`
        ApiEntry(V3, "SceneTree", "change_scene", "method"), ApiEntry(V4, "SceneTree", "change_scene_to_file", "method"),
        ApiEntry(V3, "Control", "update", "method"), ApiEntry(V4, "Control", "queue_redraw", "method"),
        *(ApiEntry(v, "KinematicCollision2D", "", "class") for v in (V3, V4)),
        ApiEntry(V3, "KinematicCollision2D", "collider", "property"),
        ApiEntry(V4, "KinematicCollision2D", "get_collider", "method"),
        ApiEntry(V3, "SceneTree", "network_peer_connected", "signal"), ApiEntry(V3, "SceneTree", "idle_frame", "signal"),
        ApiEntry(V4, "SceneTree", "process_frame", "signal"),
        # Image.create fills the image in 3.4; in 4.x it is static and returns a new one
        ApiEntry(V3, "Image", "", "class"), ApiEntry(V4, "Image", "", "class"),
        ApiEntry(V3, "Image", "create", "method", arg_count=4,
                 signature="void create(width: int, height: int, use_mipmaps: bool, format: int)"),
        ApiEntry(V4, "Image", "create", "method", arg_count=4, return_type="Image",
                 signature="Image create(width: int, height: int, use_mipmaps: bool, format: Format) static"),
        ApiEntry(V3, "ImageTexture", "", "class"), ApiEntry(V4, "ImageTexture", "", "class"),
        ApiEntry(V3, "ImageTexture", "create_from_image", "method", arg_count=2, default_count=1,
                 signature="void create_from_image(image: Image, flags: int = 7)"),
        ApiEntry(V4, "ImageTexture", "create_from_image", "method", arg_count=1, return_type="ImageTexture",
                 signature="ImageTexture create_from_image(image: Image) static"),
        ApiEntry(V3, "Image", "get_width", "method", signature="int get_width() const"),
        ApiEntry(V3, "Image", "is_empty", "method"), ApiEntry(V4, "Image", "is_empty", "method"),
        # the built-in containers: `empty` became `is_empty`, Array's `remove` became `remove_at`
        *(ApiEntry(v, c, "", "class") for v in (V3, V4) for c in ("Array", "Dictionary", "String")),
        *(ApiEntry(V3, c, "empty", "method") for c in ("Array", "Dictionary", "String")),
        *(ApiEntry(V4, c, "is_empty", "method") for c in ("Array", "Dictionary", "String")),
        ApiEntry(V3, "Array", "remove", "method"), ApiEntry(V4, "Array", "remove_at", "method"),
        # get_children() returns a plain Array in 3.4 and an Array[Node] in 4.x; Node.filename is 3.4's
        ApiEntry(V3, "Node", "get_children", "method", return_type="Array"),
        ApiEntry(V4, "Node", "get_children", "method", return_type="Array[Node]"),
        ApiEntry(V3, "Node", "filename", "property"), ApiEntry(V4, "Node", "scene_file_path", "property"),
        ApiEntry(V3, "Array", "sort_custom", "method", arg_count=2,
                 signature="void sort_custom(obj: Object, func: String)"),
        ApiEntry(V4, "Array", "sort_custom", "method", arg_count=1,
                 signature="void sort_custom(func: Callable)"),
        # constructors: 3.4 builds a String from any value and a Color from an int; 4.x from strings only
        *(ApiEntry(V3, "String", "String", "method", arg_count=1, return_type="String",
                   signature=f"String String(from: {t})") for t in ("bool", "int", "float", "Vector2", "NodePath")),
        ApiEntry(V4, "String", "String", "constructor", return_type="String", signature="String String()"),
        *(ApiEntry(V4, "String", "String", "constructor", arg_count=1, return_type="String",
                   signature=f"String String(from: {t})") for t in ("String", "NodePath", "StringName")),
        ApiEntry(V3, "Color", "Color", "method", arg_count=1, signature="Color Color(from: int)"),
        ApiEntry(V3, "Color", "Color", "method", arg_count=3, signature="Color Color(r: float, g: float, b: float)"),
        ApiEntry(V4, "Color", "Color", "constructor", arg_count=3, signature="Color Color(r: float, g: float, b: float)"),
        ApiEntry(V4, "Color", "Color", "constructor", arg_count=1, signature="Color Color(code: String)"),
        *(ApiEntry(v, c, "", "class") for v in (V3, V4) for c in ("NodePath", "Vector2")),
        ApiEntry(V4, "StringName", "", "class"),
        *(ApiEntry(v, "@GDScript" if v == V3 else "@GlobalScope", "ceil", "method", arg_count=1, return_type="float",
                   signature="float ceil(s: float)") for v in (V3, V4)),
        *(ApiEntry(v, "Array", "size", "method", return_type="int", signature="int size() const") for v in (V3, V4)),
        ApiEntry(V3, "Node", "get_position_in_parent", "method", return_type="int"),
        ApiEntry(V4, "Node", "get_index", "method", return_type="int"),
        # TreeItem.set_custom_draw still takes (column, object, method name) in 4.x
        *(ApiEntry(v, "TreeItem", "", "class") for v in (V3, V4)),
        ApiEntry(V3, "TreeItem", "set_custom_draw", "method", arg_count=3,
                 signature="void set_custom_draw(column: int, object: Object, callback: String)"),
        ApiEntry(V4, "TreeItem", "set_custom_draw", "method", arg_count=3,
                 signature="void set_custom_draw(column: int, object: Object, callback: StringName)"),
        # ResourceSaver.save takes the path first in 3.4 and the resource first in 4.x
        *(ApiEntry(v, c, "", "class") for v in (V3, V4) for c in ("ResourceSaver", "Resource")),
        ApiEntry(V3, "ResourceSaver", "save", "method", arg_count=3, default_count=1,
                 signature="int save(path: String, resource: Resource, flags: int = 0)"),
        ApiEntry(V4, "ResourceSaver", "save", "method", arg_count=3, default_count=2,
                 signature='Error save(resource: Resource, path: String = "", flags: BitField[SaverFlags] = 0)'),
        ApiEntry(V4, "Image", "get_width", "method", signature="int get_width() const"),
        # a class 3.4 documents and 4.x lacks, which no rename table maps
        ApiEntry(V3, "WebSocketClient", "", "class"), ApiEntry(V3, "WebSocketClient", "poll", "method"),
        ApiEntry(V3, "WebSocketClient", "disconnect_from_host", "method"),
        # a member renamed on Panel that an unrelated 4.x Resource still defines
        *(ApiEntry(v, "Panel", "", "class") for v in (V3, V4)), ApiEntry(V4, "Mesher", "", "class"),
        ApiEntry(V3, "Panel", "paint_old", "method"), ApiEntry(V4, "Panel", "paint_new", "method"),
        ApiEntry(V4, "Mesher", "paint_old", "method"),
        # draw_string's fourth parameter is the Color in 3.4 and an alignment enum in 4.x
        *(ApiEntry(v, c, "", "class") for v in (V3, V4) for c in ("Color", "HTTPRequest")),
        ApiEntry(V3, "Node2D", "draw_string", "method", arg_count=5, default_count=2,
                 signature="void draw_string(font: Font, position: Vector2, text: String, modulate: Color = "
                           "Color( 1, 1, 1, 1 ), clip_w: int = -1)"),
        ApiEntry(V4, "Node2D", "draw_string", "method", arg_count=7, default_count=4,
                 signature="void draw_string(font: Font, pos: Vector2, text: String, alignment: "
                           "HorizontalAlignment = 0, width: float = -1, font_size: int = 16, "
                           "modulate: Color = Color(1, 1, 1, 1)) const"),
        # Tween is a node in 3.4 and not in 4.x; AnimatedSprite is a 3.4 node that 4.x renamed
        *(ApiEntry(v, "Tween", "", "class") for v in (V3, V4)), ApiEntry(V3, "Tween", "start", "method"),
        ApiEntry(V4, "Tween", "tween_property", "method"), ApiEntry(V3, "Tween", "stop", "method"),
        # renamed 3D nodes whose names a 2D node may carry: `$Light` may be a PointLight2D, `$Camera` a Camera2D
        ApiEntry(V3, "Light", "", "class"), ApiEntry(V3, "Light", "shadow_color", "property"),
        ApiEntry(V4, "Light3D", "", "class"), ApiEntry(V4, "Light2D", "", "class"),
        ApiEntry(V4, "Light2D", "shadow_color", "property"),
        ApiEntry(V3, "Camera", "", "class"), ApiEntry(V4, "Camera3D", "", "class"),
        ApiEntry(V4, "Camera3D", "position", "property"), ApiEntry(V3, "Node2D", "position", "property"),
        ApiEntry(V4, "Tween", "stop", "method"), ApiEntry(V3, "Tween", "tween_all_completed", "signal"),
        ApiEntry(V4, "Tween", "finished", "signal"),
        ApiEntry(V3, "AnimatedSprite", "", "class"), ApiEntry(V3, "AnimatedSprite", "frames", "property"),
        ApiEntry(V4, "AnimatedSprite2D", "", "class"), ApiEntry(V4, "AnimatedSprite2D", "sprite_frames", "property"),
        # HTTPRequest.request's third parameter: a bool (validate TLS) in 3.4, the method (an enum) in 4.x
        ApiEntry(V3, "HTTPRequest", "request", "method", arg_count=5, default_count=4,
                 signature='int request(url: String, custom_headers: PoolStringArray = PoolStringArray( ), '
                           'ssl_validate_domain: bool = true, method: int = 0, request_data: String = "")'),
        ApiEntry(V4, "HTTPRequest", "request", "method", arg_count=4, default_count=3,
                 signature='Error request(url: String, custom_headers: PackedStringArray = '
                           'PackedStringArray(), method: Method = 0, request_data: String = "")'),
    ]
    classes += [*(ClassEntry(v, "KinematicCollision2D", "Object") for v in (V3, V4)), ClassEntry(V3, "Light", "Node"), ClassEntry(V4, "Light3D", "Node"), ClassEntry(V4, "Light2D", "Node2D"),
                ClassEntry(V3, "Camera", "Node"), ClassEntry(V4, "Camera3D", "Node"),
                ClassEntry(V3, "Tween", "Node"), ClassEntry(V4, "Tween", "Object"),
                ClassEntry(V3, "AnimatedSprite", "Node2D"), ClassEntry(V4, "AnimatedSprite2D", "Node2D"),
                ClassEntry(V3, "WebSocketClient", "Object"), ClassEntry(V3, "Panel", "Object"),
                ClassEntry(V4, "Panel", "Object"), ClassEntry(V4, "Mesher", "Object"),
                ClassEntry(V3, "Image", "Object"), ClassEntry(V4, "Image", "Object"),
                ClassEntry(V3, "ImageTexture", "Object"), ClassEntry(V4, "ImageTexture", "Object"),
                ClassEntry(V3, "Physics2DDirectSpaceState", "Object"), ClassEntry(V4, "PhysicsDirectSpaceState2D", "Object"),
                ClassEntry(V3, "JSONParseResult", "Object"),
                *(ClassEntry(v, c, "") for v in (V3, V4) for c in ("Array", "Dictionary", "String")),
                *(ClassEntry(v, c, "Object") for v in (V3, V4) for c in ("ResourceSaver", "Resource", "TreeItem")),
                *(ClassEntry(v, c, "") for v in (V3, V4) for c in ("NodePath", "Vector2")),
                ClassEntry(V4, "StringName", "")]
    return ApiIndex(entries, classes, complete_v4=True,
                    class_renames={"AnimatedSprite": "AnimatedSprite2D", "Light": "Light3D", "Camera": "Camera3D"})


def _derived(source: str, kind: str, target: str | None = None) -> RetrievalHit:
    """An api_mapping candidate derived from the index (what only 3.4 documents), as retrieval returns it."""
    owner = source.split(".")[0]
    return RetrievalHit(table="api_mapping", record_id=f"derived:{source}", title=source, content=source, score=1.0,
                        metadata={"source_api": source, "target_api": target, "change_type": "rename" if target else "removed",
                                  "status": "candidate", "documented_in_godot4": False,
                                  "provenance": {"source": "api_index", "kind": kind, "classes": [owner]}})


_HITS = [_derived("JSONParseResult.result", "property"),
         _derived("Node.get_position_in_parent", "method", "Node.get_index"), _derived("Button.pressed", "property"),
         _derived("Control.margin_left", "property"), _derived("@GDScript.parse_json", "method"),
         _derived("Control.get_drag_data", "method", "Control._get_drag_data"),
         _derived("Control.get_minimum_size", "method"),
         _derived("SceneTree.change_scene", "method", "SceneTree.change_scene_to_file"),
         _derived("Control.update", "method", "Control.queue_redraw"),
         _derived("Array.remove", "method", "Array.remove_at"), _derived("Tween.start", "method"),
         _derived("AnimatedSprite.frames", "property", "AnimatedSprite2D.sprite_frames"),
         _derived("Light.shadow_color", "property"),
         _derived("Node.filename", "property", "Node.scene_file_path"),
         RetrievalHit(table="api_mapping", record_id="converter:empty", title="empty", content="", score=1.0,
                      metadata={"source_api": "empty", "target_api": "is_empty", "change_type": "rename",
                                "status": "candidate", "documented_in_godot4": False,
                                "provenance": {"source": "converter", "kind": "method", "classes": ["Array"]}}),
         RetrievalHit(table="api_mapping", record_id="converter:network_peer_connected", title="network_peer_connected",
                      content="", score=1.0, metadata={
                          "source_api": "network_peer_connected", "target_api": "peer_connected", "change_type": "rename",
                          "status": "candidate", "documented_in_godot4": False,
                          "provenance": {"source": "converter", "kind": "signal", "classes": ["MultiplayerAPI"]}})]


def _facts(code: str, needle: str, files: dict[str, str] | None = None):
    chunk = find_chunk(gd_chunks(code), needle)
    project = build_project_context(files or {"player.gd": code}, _index())
    bundle = EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=_HITS)
    return chunk, project, code_facts(chunk, bundle, project), bundle


def _godot3(code: str, needle: str, files: dict[str, str] | None = None) -> list[tuple[str, bool, str | None]]:
    return [(f.name, f.weak, f.receiver) for f in _facts(code, needle, files)[2].godot3]


def test_a_per_version_type_reads_each_versions_side():
    pair = per_version_type("Physics2DDirectSpaceState", "PhysicsDirectSpaceState2D")
    assert type_in(V3, pair) == "Physics2DDirectSpaceState" and type_in(V4, pair) == "PhysicsDirectSpaceState2D"
    assert per_version_type("Node", "Node") == "Node" and type_label("|Error") == "Error"
    index = _index()
    assert index.has_class(V3, pair) and index.has_class(V4, pair)
    assert index.lookup(V4, pair, "intersect_ray").arg_count == 1


def test_a_renamed_return_class_still_types_the_chain_in_each_version():
    """`space.intersect_ray(from, to, [self])`: the 3.4 signature takes it, the 4.x one does not."""
    g3 = ("extends Node2D\n\nfunc ray():\n\tvar space = get_world_2d().direct_space_state\n"
          "\treturn space.intersect_ray(position, position * 2, [self])\n")
    chunk, project, facts, bundle = _facts(g3, "intersect_ray")
    (finding,) = [f for f in facts.godot3 if f.name == "call_form"]
    assert finding.receiver == "Physics2DDirectSpaceState"
    inp = JudgeInput(prompt="is this Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, evidence=bundle,
                     project=project)
    inp.facts = facts
    judgment = EvidenceJudge().decide(inp)
    assert judgment.version_signal == "godot3"
    (change,) = judgment.suggested_changes
    # Godot 4's form of the call (calls.json), the excluded objects as their RIDs
    assert change.new == "space.intersect_ray(PhysicsRayQueryParameters2D.create(position, position * 2, 4294967295, " \
                         "[self.get_rid()]))"
    g4 = ("extends Node2D\n\nfunc ray(query):\n\tvar space = get_world_2d().direct_space_state\n"
          "\treturn space.intersect_ray(query)\n")
    assert not _godot3(g4, "intersect_ray")


def test_an_untyped_variable_takes_its_initializers_type():
    g3 = "extends Node\n\nfunc load_it(text):\n\tvar parsed = JSON.parse(text)\n\treturn parsed.result\n"
    assert _godot3(g3, "parsed.result") == [("JSONParseResult.result", False, "JSONParseResult")]
    mixed = "extends Node\n\nfunc load_it(text, other):\n\tvar parsed = other + JSON.parse(text)\n\treturn parsed.result\n"
    assert [w for _, w, _ in _godot3(mixed, "parsed.result")] == [True]  # not a plain chain: receiver unknown


def test_chained_calls_resolve_call_by_call():
    code = "extends Node\n\nfunc f():\n\tget_parent().get_parent().process_mode = 0\n"
    assert [f.name for f in _facts(code, "process_mode")[2].godot4] == ["Node.process_mode"]


def test_a_node_named_after_a_class_both_versions_have_is_taken_as_that_class():
    code = "extends Node\n\nfunc press():\n\t$Box/Button.pressed = true\n"
    assert _godot3(code, "pressed") == [("Button.pressed", False, "Button")]
    scene = ('[gd_scene format=2]\n\n[ext_resource path="res://player.gd" type="Script" id=1]\n\n'
             '[node name="Main" type="Node"]\nscript = ExtResource( 1 )\n\n[node name="Box" type="Node" parent="."]\n\n'
             '[node name="Button" type="Node2D" parent="Box"]\n')
    assert not _godot3(code, "pressed", {"player.gd": code, "main.tscn": scene})  # the scene says otherwise
    assert not _godot3("extends Node\n\nfunc press():\n\t$Box/Button.pressed.connect(f)\n", "pressed")  # the 4.x signal
    assert [w for _, w, _ in _godot3("extends Node\n\nfunc press():\n\t$Thing.pressed = true\n", "pressed")] == [True]


def test_a_node_named_after_a_class_4x_has_but_not_as_a_node_is_the_34_class():
    """`$Tween` is a 3.4 Tween: in 4.x a Tween is no node."""
    assert _godot3("extends Node\n\nfunc go():\n\t$Tween.start()\n", "start") == [("Tween.start", False, "Tween")]
    assert not _godot3("extends Node\n\nfunc go():\n\t$Tween.stop()\n", "stop")  # both versions have it


def test_a_node_named_after_a_renamed_class_is_that_class_in_each_version():
    """A converted Godot 4 project keeps the node's name on its AnimatedSprite2D: `$AnimatedSprite` is 3.4's
    AnimatedSprite and 4.x's AnimatedSprite2D, so only a member one side lacks says which version it is."""
    facts = _facts("extends Node\n\nfunc go():\n\t$AnimatedSprite.frames = null\n", "frames")[2]
    assert [(f.name, f.weak) for f in facts.godot3] == [("AnimatedSprite.frames", False)]
    facts = _facts("extends Node\n\nfunc go():\n\t$AnimatedSprite.sprite_frames = null\n", "sprite_frames")[2]
    assert not facts.godot3 and [f.name for f in facts.godot4] == ["AnimatedSprite2D.sprite_frames"]
    assert "AnimatedSprite" not in ApiIndex([], [], complete_v4=True).node_name_types()  # no rename known: untyped


def test_a_node_name_another_node_class_may_carry_proves_nothing_about_members_both_have():
    """A Godot 4 `$Light` may be a PointLight2D (which has `shadow_color`), a Godot 3 `$Camera` a Camera2D
    (which has `position`): neither is a Godot 3 use nor a Godot 4 cue."""
    facts = _facts("extends Node\n\nfunc go():\n\t$Light.shadow_color = Color(0, 0, 0)\n", "shadow_color")[2]
    assert not [f for f in facts.godot3 if not f.weak]
    facts = _facts("extends Node\n\nfunc go():\n\t$Camera.position = Vector2(1, 2)\n", "position")[2]
    assert not facts.godot4


def test_a_theme_item_is_no_property_of_that_name():
    """`panel.margin_left`: MarginContainer's 4.x theme constant of that name does not make it a 4.x property."""
    code = "extends Node\n\nfunc f(panel):\n\tpanel.margin_left = 4\n"
    assert _godot3(code, "margin_left") == [("Control.margin_left", True, None)]


def test_a_global_function_only_3_4_documents():
    code = "extends Node\n\nfunc f(text):\n\treturn parse_json(text)\n"
    assert ("@GDScript.parse_json", False, None) in _godot3(code, "parse_json")
    own = "extends Node\n\nfunc parse_json(text):\n\treturn text\n\n\nfunc f(text):\n\treturn parse_json(text)\n"
    assert not [n for n, _, _ in _godot3(own, "return parse_json") if n == "@GDScript.parse_json"]


def test_a_later_use_on_a_known_receiver_outweighs_an_earlier_unknown_one():
    code = "func f(thing):\n\tthing.pressed = false\n\t$Button.pressed = true\n"
    assert _godot3(code, "thing.pressed") == [("Button.pressed", False, "Button")]


def test_a_member_variable_is_typed_by_its_initializer_for_every_function():
    code = ("extends Node\n\nvar parsed = JSON.parse(\"[]\")\n\n\nfunc first():\n\treturn parsed.result\n")
    assert _godot3(code, "parsed.result") == [("JSONParseResult.result", False, "JSONParseResult")]


def test_an_is_test_narrows_a_variable_and_typed_arrays_are_arrays():
    from agent.judge.lexer import lex
    from agent.judge.receivers import infer_var_types, scope_of

    code = "func _input(event):\n\tif event is InputEventKey and event.scancode == 1:\n\t\tpass\n"
    masked = lex(code).masked
    scope = scope_of(code, masked, "", own_class="Node", node_types={}, classes=frozenset({"InputEventKey"}))
    infer_var_types(code, masked, scope)
    assert scope.var_types["event"] == "InputEventKey"
    chain = "func _input(event):\n\tif event is InputEventKey:\n\t\tpass\n\telif event is InputEventMouseButton:\n\t\tpass\n"
    masked = lex(chain).masked
    scope = scope_of(chain, masked, "", own_class="Node", node_types={},
                     classes=frozenset({"InputEventKey", "InputEventMouseButton"}))
    infer_var_types(chain, masked, scope)
    assert "event" not in scope.var_types


def test_a_typed_4x_array_is_the_array_class():
    from agent.judge.facts import _member_type

    index = ApiIndex([*(ApiEntry(v, c, "", "class") for v in (V3, V4) for c in ("Node", "Array")),
                      ApiEntry(V3, "Node", "get_children", "method", return_type="Array"),
                      ApiEntry(V4, "Node", "get_children", "method", return_type="Array[Node]")], [],
                     complete_v4=True)
    assert _member_type(index, index.class_names())("Node", "get_children") == "Array"


def test_an_override_of_a_callback_only_one_version_has():
    """`func get_drag_data(position)` in a Control script stops being called in 4.x; `_get_drag_data` is 4.x's."""
    g3 = "extends Control\n\nfunc get_drag_data(position):\n\treturn 1\n"
    assert _godot3(g3, "get_drag_data") == [("Control.get_drag_data", False, "Control")]
    g4 = "extends Control\n\nfunc _get_drag_data(at_position):\n\treturn 1\n"
    facts = _facts(g4, "_get_drag_data")[2]
    assert not facts.godot3 and [f.name for f in facts.godot4] == ["Control._get_drag_data (4.x callback)"]
    both = g4 + "\n\nfunc get_drag_data(p):\n\treturn 2\n"  # the 4.x callback is there: the old name is a helper
    assert not _godot3(both, "func get_drag_data")
    assert not _godot3("extends Control\n\nfunc get_minimum_size():\n\treturn 1\n", "get_minimum_size")  # not virtual
    assert not _godot3("extends Node\n\nfunc get_drag_data(position):\n\treturn 1\n", "get_drag_data")
    # a script in GDScript 2 grammar is a Godot 4 script: the old name is its own method (KoBeWi's editors)
    own = "@tool\nextends Control\n\nfunc get_drag_data(at_position: Vector2):\n\treturn 1\n"
    assert not _godot3(own, "func get_drag_data")
    assert not _godot3("extends Control\n\nstatic func get_drag_data(p):\n\treturn 1\n", "get_drag_data")


def _decide(code: str, needle: str):
    chunk, project, facts, bundle = _facts(code, needle)
    inp = JudgeInput(prompt="is this Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, evidence=bundle,
                     project=project)
    inp.facts = facts
    return EvidenceJudge().decide(inp)


def test_a_member_named_by_a_string_is_a_use_of_it():
    """`get_tree().call_deferred("change_scene", p)` calls SceneTree.change_scene as surely as `.change_scene(p)`."""
    code = ('extends Control\n\nfunc f():\n\tget_tree().call_deferred("change_scene", "res://a.tscn")\n'
            '\tcall_deferred("update")\n')
    assert _godot3(code, "call_deferred") == [("SceneTree.change_scene", False, "SceneTree"),
                                              ("Control.update", False, "Control")]
    judgment = _decide(code, "call_deferred")
    assert [(c.old, c.new) for c in judgment.suggested_changes] == [
        ('get_tree().call_deferred("change_scene", "res://a.tscn")',
         'get_tree().call_deferred("change_scene_to_file", "res://a.tscn")'),
        ('call_deferred("update")', 'call_deferred("queue_redraw")')]
    assert 'call_deferred("change_scene_to_file", "res://a.tscn")' in judgment.suggested_code
    assert 'call_deferred("queue_redraw")' in judgment.suggested_code


def test_a_string_that_names_no_engine_member_is_no_finding():
    """The script's own `update()`, a dictionary key, an unknown receiver and plain text say nothing."""
    own = 'extends Control\n\nfunc update():\n\tpass\n\n\nfunc f():\n\tcall_deferred("update")\n'
    assert not _godot3(own, 'call_deferred("update")')
    other = ('extends Control\n\nfunc f(data, thing):\n\tdata.get("update")\n\tthing.call("change_scene")\n'
             '\tprint("update")\n\tcall_deferred("queue_redraw")\n')
    assert not _godot3(other, "data.get")


def test_a_string_connect_to_a_signal_that_moved_is_rewritten_where_it_went():
    """`get_tree().connect("network_peer_connected", ...)`: 4.x's SceneTree has no such signal, so
    `get_tree().network_peer_connected.connect(...)` would not run; the item says where it is, and the code
    connects there (agent/data/changes/calls.json `signals`)."""
    code = 'extends Node\n\nfunc f():\n\tget_tree().connect("network_peer_connected", self, "_on_peer")\n'
    judgment = _decide(code, "connect")
    assert [(c.old, c.new) for c in judgment.suggested_changes] == [
        ('get_tree().connect("network_peer_connected", self, "_on_peer")', "MultiplayerAPI.peer_connected")]
    assert "converter:network_peer_connected" in judgment.suggested_changes[0].note
    assert judgment.suggested_code == "func f():\n\tget_tree().get_multiplayer().peer_connected.connect(_on_peer)"
    elsewhere = 'extends Node\n\nfunc f(t):\n\tt.connect("network_peer_connected", self, "_on_peer")\n'
    assert "network_peer_connected.connect" not in (_decide(elsewhere, "connect").suggested_code or "")
    kept = 'extends Node\n\nfunc f():\n\t$Button.connect("pressed", self, "_on_p")\n'
    assert _decide(kept, "connect").suggested_changes[0].new == "$Button.pressed.connect(_on_p)"


def test_a_yield_on_a_signal_4x_lacks_is_not_rewritten_to_an_await_on_it():
    """`yield($Tween, "tween_all_completed")`: no 4.x Tween has that signal (nor is one a node), so
    `await $Tween.tween_all_completed` would not run; the item says so and offers no one-line rewrite."""
    code = 'extends Node\n\nfunc f():\n\tyield($Tween, "tween_all_completed")\n\tqueue_free()\n'
    judgment = _decide(code, "yield")
    assert [(c.old, c.new, c.change_type) for c in judgment.suggested_changes] == [
        ('yield($Tween, "tween_all_completed")', None, "syntax_change")]
    assert "Godot 4 has no signal Tween.tween_all_completed" in judgment.suggested_changes[0].note
    assert judgment.suggested_code is None
    kept = 'extends Node\n\nfunc f():\n\tyield(get_tree().create_timer(1.0), "timeout")\n'
    assert _decide(kept, "yield").suggested_changes[0].new == "await get_tree().create_timer(1.0).timeout"
    by_path = 'extends Node\n\nfunc f():\n\tyield(get_node("Tween"), "tween_all_completed")\n'  # the signal, not "Tween"
    assert [c.new for c in _decide(by_path, "yield").suggested_changes] == [None]


def test_a_read_only_property_4x_reads_through_its_getter_is_rewritten_at_the_use():
    """`c.collider.name` -> `c.get_collider().name`, not the class-qualified `KinematicCollision2D.get_collider()`."""
    code = 'extends Node\n\nfunc f(c: KinematicCollision2D):\n\tprint(c.collider.name)\n'
    chunk, project, facts, bundle = _facts(code, "collider")
    row = _derived("KinematicCollision2D.collider", "property", "KinematicCollision2D.get_collider()")
    row.metadata["change_type"] = "signature_change"
    bundle = bundle.model_copy(update={"api_mapping_evidence": [*bundle.api_mapping_evidence, row]})
    facts = code_facts(chunk, bundle, project)
    inp = JudgeInput(prompt="is this Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, evidence=bundle,
                     project=project)
    inp.facts = facts
    changes = EvidenceJudge().decide(inp).suggested_changes
    assert [(c.old, c.new) for c in changes] == [("c.collider.name", "c.get_collider().name")]


def test_a_yield_on_a_signal_renamed_on_its_class_awaits_the_new_name():
    """`yield(get_tree(), "idle_frame")` is `await get_tree().process_frame`: SceneTree renamed the signal."""
    code = 'extends Node\n\nfunc f():\n\tyield(get_tree(), "idle_frame")\n'
    chunk, project, facts, bundle = _facts(code, "yield")
    row = _derived("SceneTree.idle_frame", "signal", "SceneTree.process_frame")
    bundle = bundle.model_copy(update={"api_mapping_evidence": [*bundle.api_mapping_evidence, row]})
    facts = code_facts(chunk, bundle, project)
    inp = JudgeInput(prompt="is this Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, evidence=bundle,
                     project=project)
    inp.facts = facts
    [change] = EvidenceJudge().decide(inp).suggested_changes
    assert (change.old, change.new) == ('yield(get_tree(), "idle_frame")', "await get_tree().process_frame")
    assert "SceneTree.idle_frame is process_frame in Godot 4" in change.note


def test_an_in_place_call_of_a_method_godot_4_made_static():
    """`image.create(...)` as a statement fills `image` in 3.4; Godot 4 would build a new Image and drop it."""
    code = ('extends Node\n\nfunc f():\n\tvar image := Image.new()\n\timage.create(\n\t\t16, 16, false, 5\n\t)\n'
            '\treturn image\n')
    judgment = _decide(code, "image.create")
    assert judgment.version_signal == "godot3", judgment.rationale
    (change,) = judgment.suggested_changes
    assert change.new == "image = Image.create(16, 16, false, 5)" and "static" in change.note
    for godot4 in ("func f():\n\tvar image := Image.create(16, 16, false, 5)\n\treturn image\n",
                   "func f(image: Image):\n\tvar other = image.create(1, 1, false, 5)\n\treturn other\n",
                   "func f(image: Image):\n\tprint(image.get_width())\n"):
        assert not _godot3(godot4, "func f"), godot4


def test_a_member_variable_of_a_project_base_script_types_its_uses():
    """`image_texture` is declared (typed) in the base script `BaseCel`; the subclass uses it."""
    base = "class_name BaseCel\nextends Node\n\nvar image_texture: ImageTexture\n"
    cel = "extends BaseCel\n\nfunc set_content(image):\n\timage_texture.create_from_image(image, 0)\n"
    files = {"base_cel.gd": base, "player.gd": cel}
    assert _godot3(cel, "set_content", files) == [("call_form", False, "ImageTexture")]
    change = _facts(cel, "set_content", files)[2].godot3[0].rule.new
    assert change == "image_texture = ImageTexture.create_from_image(image: Image)"  # 4.x takes no flags
    assert not _godot3(cel, "set_content")  # without the base script the receiver is unknown


def test_a_member_built_in_another_function_types_its_uses():
    """Pixelorama's cel builds `image_texture = ImageTexture.new()` in `_init` and uses it in a setter."""
    cel = ("extends Reference\n\nvar image_texture\n\nfunc _init(t = null):\n\tif t:\n\t\timage_texture = t\n"
           "\telse:\n\t\timage_texture = ImageTexture.new()\n\nfunc set_content(image):\n"
           "\timage_texture.create_from_image(image, 0)\n")
    assert _godot3(cel, "set_content") == [("call_form", False, "ImageTexture")]
    head = "func set_content(image):\n"
    local = cel.replace(head, head + "\tvar image_texture = load(\"x\")\n")
    assert not _godot3(local, "set_content")  # a local of that name is not the member


def test_is_with_a_variable_on_the_right_is_godot_3():
    """Godot 4's `is` takes a type; a parameter or a variable needs `is_instance_of(x, t)`."""
    code = 'extends Node\n\nstatic func f(p_obj, p_type):\n\tif p_obj is p_type:\n\t\treturn p_obj\n'
    assert [name for name, _, _ in _godot3(code, "p_obj is")] == ["is_variable_type"]
    judgment = _decide(code, "p_obj is")
    assert [(c.old, c.new) for c in judgment.suggested_changes] == [("p_obj is p_type", "is_instance_of(p_obj, p_type)")]
    assert "if is_instance_of(p_obj, p_type):" in judgment.suggested_code
    fine = ('extends Node\n\nconst Enemy = preload("res://enemy.gd")\n\nfunc f(x):\n'
            '\tif x is int or x is Enemy or x is not Node or x is Node2D:\n\t\treturn 1\n')
    assert not _godot3(fine, "func f")


def test_a_literal_initializer_types_its_variable():
    """`var items = []` is an Array and `{}` a Dictionary in both versions; each use is its own item."""
    code = ('extends Node\n\nvar items = [1, [2, 3], {"a": 4}]\nvar table = {\n\t"k": 1,\n}\n\n\n'
            'func f():\n\titems.remove(0)\n\titems.remove(1)\n\tif table.empty():\n\t\tpass\n')
    found = _godot3(code, "func f")
    assert [(n, w, r) for n, w, r in found if n == "Array.remove"] == [("Array.remove", False, "Array")] * 2
    assert ("empty", False, "Dictionary") in found  # Array's rename: the index shows it on Dictionary too
    judgment = _decide(code, "func f")
    assert "items.remove_at(1)" in judgment.suggested_code and "table.is_empty()" in judgment.suggested_code
    guess = "extends Node\n\nfunc f(thing):\n\tthing.remove(0)\n\tvar t = {}\n\treturn t.empty()\n"
    unknown = _decide(guess, "func f")
    assert unknown.version_signal == "godot3" and unknown.suggested_code is None  # a guess is no Godot 4 code
    for untyped in ("var items = [1][0]", "var items = [] + other"):  # not the literal itself: nothing known
        assert [w for n, w, _ in _godot3(f"extends Node\n\nfunc f(other):\n\t{untyped}\n\titems.remove(0)\n",
                                         "func f") if n == "Array.remove"] == [True], untyped


def test_a_rename_listed_for_one_class_applies_where_the_index_shows_the_same_change():
    """`empty -> is_empty` is listed for Array; a String changed the same way, an Image did not."""
    code = 'extends Node\n\nfunc f(image: Image):\n\tvar title = "x"\n\tprint(title.empty(), image.empty())\n'
    assert [(n, r) for n, _, r in _godot3(code, "func f")] == [("empty", "String")]


def test_a_member_3_4_also_documents_is_no_godot4_cue_on_its_receiver():
    """`image.is_empty()` is Godot 3 too on an Image; `rng.randf_range()` is in both versions' RNG; and on a
    receiver nobody resolved, `items.is_empty()` may be 3.x's `Image.is_empty()`: no cue either."""
    def cues(body: str) -> list[str]:
        return [f.name for f in _facts(f"extends Node\n\nvar image: Image\n\n\nfunc f(items, rng):\n{body}",
                                       "func f")[2].godot4]

    assert cues("\tif image.is_empty():\n\t\tprint(rng.randf_range(0.0, 1.0))\n") == []
    assert cues("\tif image.is_empty() or items.is_empty():\n\t\tpass\n") == []
    assert cues("\tprint(randf_range(0.0, 1.0))\n") == ["godot4_api"]  # the 4.x global function


def test_a_literal_argument_only_the_3_4_signature_takes_is_a_call_form_change():
    """`ResourceSaver.save("res://a.tres", res)`: a String where 4.x wants the Resource; a variable says nothing."""
    code = ('extends Node\n\nfunc f(res):\n\tResourceSaver.save("res://a.tres", res)\n'
            '\tResourceSaver.save("b.tres", res)\n')
    assert _godot3(code, "func f") == [("call_form", False, "ResourceSaver")] * 2
    own = 'extends Node\n\nfunc save(res):\n\tvar err = ResourceSaver.save("res://a.tres", res)\n'
    assert _godot3(own, "func save") == [("call_form", False, "ResourceSaver")]  # not the script's save()
    for godot4 in ('ResourceSaver.save(res, "res://a.tres")', "ResourceSaver.save(path, res)"):
        assert not _godot3(f"extends Node\n\nfunc f(res, path):\n\t{godot4}\n", "func f"), godot4


def test_a_constructed_argument_where_4x_takes_an_enum_is_a_call_form_change():
    """A bare call is a call on the script's own class; `Color(...)` is no alignment. A bool is no
    finding: Godot 4.0's `request(url, headers, tls_validate_domain: bool)` took it where 4.4 takes
    the method."""
    code = ('extends Node2D\n\nfunc _draw():\n\tdraw_string(font, Vector2(1, 1), "hi", Color(1, 0, 0))\n\n'
            'func fetch(http: HTTPRequest):\n\thttp.request("https://a", [], true)\n')
    assert _godot3(code, "func _draw") == [("call_form", False, "Node2D")]
    assert _godot3(code, "func fetch") == []
    for godot4 in ('draw_string(font, Vector2(1, 1), "h", HORIZONTAL_ALIGNMENT_LEFT, -1, 16, Color(1, 0, 0))',
                   'draw_string(font, Vector2(1, 1), "hi")', 'http.request("https://a", [], true)',
                   'http.request("https://a", [], HTTPClient.METHOD_GET)'):
        code = f"extends Node2D\n\nfunc f(http: HTTPRequest, font, flag):\n\t{godot4}\n"
        assert not _godot3(code, "func f"), godot4
    own = ('extends Node2D\n\nfunc draw_string(a, b, c, d):\n\tpass\n\n'
           'func _draw():\n\tdraw_string(font, Vector2(1, 1), "hi", Color(1, 0, 0))\n')
    assert not _godot3(own, "func _draw")  # the script's own draw_string


def test_a_class_only_3_4_documents_is_godot_3_where_no_table_renames_it():
    code = "extends Node\n\nvar client: WebSocketClient = WebSocketClient.new()\n"
    hits = [_derived("WebSocketClient", "class")]

    def found(code: str, files: dict[str, str] | None = None) -> list[tuple[str, bool]]:
        chunk = find_chunk(gd_chunks(code), "var client")
        project = build_project_context(files or {"player.gd": code}, _index())
        bundle = EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=hits)
        return [(f.name, f.weak) for f in code_facts(chunk, bundle, project).godot3]

    assert found(code) == [("WebSocketClient", False)] * 2  # every use is its own item
    uses = code + "\nfunc close(other):\n\tclient.poll()\n\tclient.disconnect_from_host()\n\tother.poll()\n"
    chunk = find_chunk(gd_chunks(uses), "func close")
    bundle = EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=hits)
    facts = code_facts(chunk, bundle, build_project_context({"player.gd": uses}, _index()))
    assert [(f.name, f.text) for f in facts.godot3] == [("WebSocketClient", "client.poll")]  # each object once
    own = "class_name WebSocketClient\nextends Node\n"
    assert found(code, {"player.gd": code, "ws.gd": own}) == []  # the project's own class of that name


def test_a_rename_another_4x_class_still_has_the_old_name_for_applies_to_a_typed_receiver():
    """`paint_old` is documented in 4.x (on Mesher), but not on a Panel: a typed Panel's use is Godot 3."""
    row = RetrievalHit(
        table="api_mapping", record_id="converter:paint", title="paint_old", content="", score=1.0,
        metadata={"source_api": "paint_old", "target_api": "paint_new", "change_type": "rename",
                  "status": "candidate", "documented_in_godot4": True,
                  "provenance": {"source": "converter", "kind": "method", "classes": ["Panel"]}})

    def names(param: str) -> list[str]:
        code = f"extends Node\n\nfunc f(p{param}):\n\tp.paint_old()\n"
        chunk = find_chunk(gd_chunks(code), "func f")
        project = build_project_context({"player.gd": code}, _index())
        bundle = EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=[row])
        return [f.name for f in code_facts(chunk, bundle, project).godot3]

    assert names(": Panel") == ["paint_old"]
    assert names(": Mesher") == [] and names("") == []  # Mesher has it in 4.x; an unknown receiver may be one


def test_no_finding_for_the_scripts_own_function_or_an_autoloads_member():
    """`self.paint_old()` may be the script's own `func paint_old()`; `WebSocketClient.reset()` is an
    autoload's (3.4's class has no `reset`)."""
    row = RetrievalHit(
        table="api_mapping", record_id="converter:paint", title="paint_old", content="", score=1.0,
        metadata={"source_api": "paint_old", "target_api": "paint_new", "change_type": "rename",
                  "status": "candidate", "documented_in_godot4": True,
                  "provenance": {"source": "converter", "kind": "method", "classes": ["Panel"]}})
    code = ("extends Panel\n\nfunc f():\n\tself.paint_old()\n\tWebSocketClient.reset()\n\n"
            "func paint_old():\n\tpass\n")
    chunk = find_chunk(gd_chunks(code), "func f")
    bundle = EvidenceBundle(query_id="q", task_type="version_check",
                            api_mapping_evidence=[row, _derived("WebSocketClient", "class")])
    assert code_facts(chunk, bundle, build_project_context({"player.gd": code}, _index())).godot3 == []


def test_an_unresolved_use_is_one_weak_item_whichever_classes_had_the_member():
    code = "extends Node\n\nfunc f(thing):\n\treturn thing.empty()\n"
    chunk = find_chunk(gd_chunks(code), "func f")
    project = build_project_context({"player.gd": code}, _index())
    hits = [_derived(f"{c}.empty", "method", f"{c}.is_empty") for c in ("Array", "Dictionary", "String")]
    facts = code_facts(chunk, EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=hits), project)
    assert [(f.name, f.weak) for f in facts.godot3] == [("Array.empty", True)]


def test_suggested_code_is_never_half_migrated():
    """A use left as it was (receiver unknown): no whole Godot 4 code; a reshaped call with a known form: whole."""
    left = "extends Node\n\nfunc f(thing):\n\tvar a = []\n\ta.remove(0)\n\tthing.remove(1)\n"
    judgment = _decide(left, "func f")
    assert [c.new for c in judgment.suggested_changes] == ["a.remove_at(0)"]
    assert judgment.suggested_code is None
    # a call whose arguments change, with its Godot 4 form (calls.json): whole code, both items in it
    call = 'extends Node\n\nfunc f(res):\n\tvar a = []\n\ta.remove(0)\n\tResourceSaver.save("a.tres", res)\n'
    judgment = _decide(call, "func f")
    assert len(judgment.suggested_changes) == 2
    assert judgment.suggested_code.endswith('\ta.remove_at(0)\n\tResourceSaver.save(res, "a.tres")')


def test_a_trailing_comma_adds_no_argument():
    """Godot 4's `items.sort_custom(\n\tfunc(a, b): ...,\n)` takes one Callable, like 4.x's signature."""
    code = ("extends Node\n\nfunc f():\n\tvar items = []\n"
            "\titems.sort_custom(\n\t\tfunc(a, b): return a < b,\n\t)\n")
    assert not _godot3(code, "func f")
    assert _godot3(code.replace("func(a, b): return a < b,", 'self, "by_name",'), "func f") == [
        ("call_form", False, "Array")]


def test_a_loop_over_a_typed_list_types_its_variable():
    """`for child in get_children()`: 4.x documents the items as Nodes; loops that disagree say nothing."""
    code = "extends Node\n\nfunc f():\n\tfor child in get_children():\n\t\tprint(child.filename)\n"
    assert _godot3(code, "func f") == [("Node.filename", False, "Node")]
    assert "child.scene_file_path" in _decide(code, "func f").suggested_code
    mixed = code + "\tfor child in [1]:\n\t\tprint(child)\n"
    assert [w for _, w, _ in _godot3(mixed, "func f")] == [True]  # which child? unknown: a weak item


def test_a_string_built_from_a_value_is_godot_3_and_becomes_str():
    """3.4 has `String(from: int)`; 4.x builds a String from a string type only: `str(x)` from any value."""
    code = ("extends Node\n\nvar score = 0\n\nfunc f(value, items, p: NodePath):\n"
            "\tprint(String(5), String(score), String(ceil(value)))\n\tvar n = []\n\tprint(String(n.size()))\n"
            "\tprint(String(p), String(\"a\"), String(value))\n")
    assert [f.text for f in _facts(code, "func f")[2].godot3] == [
        "String(5)", "String(score)", "String(ceil(value))", "String(n.size())"]  # not a string, nor unknown
    judgment = _decide(code, "func f")
    assert [c.new for c in judgment.suggested_changes][:2] == ["str(5)", "str(score)"]
    assert "print(str(5), str(score), str(int(ceil(value))))" in judgment.suggested_code  # a whole float prints as Godot 3 did
    # any one argument: str() gives the same String in Godot 3, and is valid in Godot 4 for every type
    assert 'print(str(p), str("a"), str(value))' in judgment.suggested_code
    ok = "extends Node\n\nfunc f(p: NodePath, n: StringName):\n\tprint(String(p), String(n), String())\n"
    assert _facts(ok, "func f")[2].godot3 == []


def test_a_color_from_an_int_is_no_version_cue():
    """Godot 4 still builds a Color from an RGBA int through Variant (godot-docs#8690: `Color(0xFF0000FF) ==
    Color.RED` in 4.2; Pixelorama, a Godot 4 app, writes `Color(0)`), whatever its constructor list says."""
    code = "extends Node\n\nfunc f():\n\tmodulate = Color(0xff0000ff)\n\tvar c = Color(1, 0, 0)\n"
    assert _facts(code, "func f")[2].godot3 == []


def test_a_project_class_is_its_engine_base_except_for_what_it_declares():
    """`var root: Node25D` (a `class_name` extending Node2D): `root.get_position_in_parent()` is Node's,
    unless the project's class declares that function itself."""
    base = "extends Node2D\nclass_name Node25D\n\nfunc set_view_mode(i):\n\tpass\n"
    code = "extends Node\n\nvar root: Node25D\n\nfunc f():\n\tprint(root.get_position_in_parent())\n"
    files = {"node25d.gd": base, "player.gd": code}
    assert _godot3(code, "func f", files) == [("Node.get_position_in_parent", False, "Node2D")]
    own = base + "\nfunc get_position_in_parent():\n\treturn 0\n"
    assert [weak for _, weak, _ in _godot3(code, "func f", {**files, "node25d.gd": own})] == [True]  # never decides


def test_a_typed_receiver_is_not_the_scripts_own_function_of_that_name():
    """The script declares `func remove`; `queue.remove(i)` on an Array literal is still Array's."""
    code = "extends Node\n\nfunc remove(x):\n\tvar queue = []\n\tqueue.remove(queue.find(x))\n\tother.remove(1)\n"
    assert _godot3(code, "func remove") == [("Array.remove", False, "Array")]


def test_an_object_and_method_name_pair_on_an_unknown_receiver_is_godot_3():
    """`nodes.sort_custom(self, "by_y")`: every 3.4 sort_custom takes (object, name), every 4.x one a Callable."""
    code = ("extends Node\n\nfunc by_y(a, b):\n\treturn a < b\n\nfunc f(nodes, item):\n"
            "\tnodes.sort_custom(self, \"by_y\")\n\tnodes.sort_custom(Sorter, \"by_x\")\n"
            "\tnodes.sort_custom(self, \"missing\")\n\titem.set_custom_draw(0, self, \"by_y\")\n"
            "\tnodes.sort_custom(by_y)\n")
    found = _facts(code, "func f")[2].godot3
    assert [(f.name, f.text) for f in found] == [("call_form", 'sort_custom(self, "by_y")'),
                                                ("call_form", 'sort_custom(Sorter, "by_x")')]
    assert found[0].rule.new == "Array.sort_custom(func: Callable)"


def test_a_dictionary_key_is_never_a_class_member():
    """`size.rect_size` on `var size := {}` reads a key: no rect_* rule, no rename (dev: dialogic, Pixelorama)."""
    code = "extends Node\n\nfunc f():\n\tvar size := {}\n\tprint(size.rect_size)\n"
    assert not _facts(code, "size.rect_size")[2].godot3
