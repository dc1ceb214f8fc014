"""Untyped parameters typed by the script's own calls (`agent.judge.call_sites`), and only when nothing
else may call the function. On a small index marked complete, with the real chunker and the evidence judge.
"""

from __future__ import annotations

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
from agent.judge.evidence import EvidenceJudge
from agent.judge.facts import code_facts
from agent.judge.project import build_project_context
from agent.judge.base import JudgeInput
from agent.models import EvidenceBundle, RetrievalHit
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import find_chunk, gd_chunks


def _index() -> ApiIndex:
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in (("Object", ""), ("Node", "Object"), ("Reference", "Object"), ("SurfaceTool", "Object"),
                            ("ArrayMesh", "Object"), ("Vector2", "")):
            entries.append(ApiEntry(v, cls, "", "class"))
            classes.append(ClassEntry(v, cls, parent))
        entries.append(ApiEntry(v, "SurfaceTool", "add_vertex", "method", arg_count=1))
        entries.append(ApiEntry(v, "Node", "_ready", "method"))
    entries += [ApiEntry(V3, "SurfaceTool", "add_uv", "method", arg_count=1),
                ApiEntry(V4, "SurfaceTool", "set_uv", "method", arg_count=1)]
    return ApiIndex(entries, classes, complete_v4=True)


_VOXEL = """extends Node

var mesh = ArrayMesh.new()


func regenerate():
	var surface_tool = SurfaceTool.new()
	_draw_block(surface_tool, Vector2(1, 2))
	_draw_block(surface_tool, Vector2(3, 4))


func _draw_block(tool, uv):
	_draw_face(tool, uv)


func _draw_face(surface_tool, uv):
	surface_tool.add_uv(uv)
	surface_tool.add_vertex(Vector3())
"""


def _types(code: str, other: str = "") -> dict[str, dict[str, str]]:
    """What the project context infers for the script (`other`: another script of the project)."""
    files = {"a.gd": code, **({"b.gd": other} if other else {})}
    return build_project_context(files, _index()).param_types.get("a.gd", {})


def test_every_call_in_the_script_types_the_parameter_through_helpers():
    assert _types(_VOXEL) == {"_draw_block": {"tool": "SurfaceTool", "uv": "Vector2"},
                              "_draw_face": {"surface_tool": "SurfaceTool", "uv": "Vector2"}}


def test_every_parameter_keeps_its_position():
    """`st : = x` is a parameter too (Godot reads `:` and `=` apart): `p` is the third, not the second."""
    code = ("extends Node\n\nfunc a():\n\tb(1, SurfaceTool.new(), ArrayMesh.new())\n\n"
            "func b(n, st : = SurfaceTool.new(), p = null):\n\tp.clear()\n")
    assert _types(code) == {"b": {"st": "SurfaceTool", "p": "ArrayMesh"}}
    unreadable = "extends Node\n\nfunc a():\n\tb(1, SurfaceTool.new())\n\nfunc b(1x, p):\n\tpass\n"
    assert _types(unreadable) == {}


def test_a_member_variable_and_a_constructor_argument_type_the_parameter():
    code = _VOXEL.replace("_draw_block(surface_tool, Vector2(3, 4))", "_draw_block(SurfaceTool.new(), Vector2())")
    assert _types(code)["_draw_face"]["surface_tool"] == "SurfaceTool"
    code = "extends Node\n\nvar mesh = ArrayMesh.new()\n\nfunc a():\n\tb(mesh)\n\nfunc b(m):\n\tm.clear()\n"
    assert _types(code) == {"b": {"m": "ArrayMesh"}}


def test_nothing_is_typed_when_anything_else_may_pass_other_arguments():
    cases = {
        "two classes": _VOXEL.replace("_draw_block(surface_tool, Vector2(3, 4))", "_draw_block(mesh, Vector2())"),
        "an unknown argument": _VOXEL.replace("_draw_block(surface_tool, Vector2(3, 4))",
                                              "_draw_block(get_tool(), Vector2())"),
        "a by-name call": _VOXEL + '\nfunc later():\n\tcall_deferred("_draw_block", null, null)\n',
        "a Callable": _VOXEL + "\nfunc later():\n\tvar f = _draw_block\n",
        "a call on another object": _VOXEL + "\nfunc later(other):\n\tother._draw_block(null, null)\n",
        "a call outside any function": _VOXEL + "\nvar first = _draw_block(null, null)\n",
        "a local hides the member": "extends Node\n\nvar mesh = ArrayMesh.new()\n\nfunc a():\n\tvar mesh = load_it()\n"
                                    "\tb(mesh)\n\nfunc b(m):\n\tm.clear()\n",
        "a parameter left out": "extends Node\n\nfunc a():\n\tb()\n\nfunc b(m = SurfaceTool.new()):\n\tm.clear()\n",
        # a review's cases: only member `var` lines are members, not typed parameters of headers or signals
        "a signal's typed parameter": "extends Node\nsignal painted(m: SurfaceTool)\nvar m\n\nfunc a():\n"
                                      "\tm = $Painter\n\tb(m)\n\nfunc b(x):\n\tx.add_uv(1)\n",
        "a local const hides the member": "extends Node\nvar m = SurfaceTool.new()\n\nfunc a():\n"
                                          "\tconst m = preload(\"res://p.gd\")\n\tb(m)\n\nfunc b(x):\n\tpass\n",
        "assigned again": "extends Node\n\nfunc a():\n\tvar m = SurfaceTool.new()\n\tm = $Painter\n\tb(m)\n\n"
                          "func b(x):\n\tpass\n",
        "a conditional initializer": "extends Node\n\nfunc a(k):\n\tvar m = SurfaceTool.new() if k else $P\n\tb(m)\n\n"
                                     "func b(x):\n\tpass\n",
        "a member assigned in a function": "extends Node\nvar m = SurfaceTool.new()\n\nfunc a():\n\tm = $P\n\n"
                                           "func c():\n\tb(m)\n\nfunc b(x):\n\tpass\n",
        "declared twice in sibling blocks": "extends Node\n\nfunc a(k):\n\tif k:\n\t\tvar m = SurfaceTool.new()\n"
                                            "\tfor m in get_children():\n\t\tb(m)\n\nfunc b(x):\n\tpass\n",
    }
    for why, code in cases.items():
        found = _types(code)
        assert "tool" not in found.get("_draw_block", {}) and "b" not in found, why
    assert _types(_VOXEL, other="func f(c):\n\tc._draw_face(null, null)\n") == {
        "_draw_block": {"tool": "SurfaceTool", "uv": "Vector2"}}
    engine = "extends Node\n\nfunc a():\n\t_ready(SurfaceTool.new())\n\nfunc _ready(x = null):\n\tpass\n"
    assert _types(engine) == {}  # an engine callback is called by the engine too
    typed = "extends Node\n\nfunc a():\n\tb(SurfaceTool.new())\n\nfunc b(m: Reference):\n\tpass\n"
    assert _types(typed) == {}  # a declared type stays the declared one


def _derived_add_uv() -> RetrievalHit:
    return RetrievalHit(table="api_mapping", record_id="derived:SurfaceTool.add_uv", title="SurfaceTool.add_uv",
                        content="", score=1.0, metadata={
                            "source_api": "SurfaceTool.add_uv", "target_api": None, "change_type": "removed",
                            "status": "candidate", "documented_in_godot4": False,
                            "provenance": {"source": "api_index", "kind": "method", "classes": ["SurfaceTool"]}})


def _judged(files: dict[str, str], path: str, needle: str):
    chunk = find_chunk(gd_chunks(files[path], path), needle)
    bundle = EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=[_derived_add_uv()])
    project = build_project_context(files, _index())
    facts = code_facts(chunk, bundle, project)
    judgment = EvidenceJudge().decide(JudgeInput(prompt="", trace=split_trace(chunk, "p"), chunk=chunk,
                                                 evidence=bundle, project=project))
    return facts, judgment


def test_a_use_on_a_parameter_the_calls_type_is_a_godot3_finding_not_a_weak_hint():
    facts, judgment = _judged({"chunk.gd": _VOXEL}, "chunk.gd", "surface_tool.add_uv")
    assert [(f.name, f.weak, f.receiver) for f in facts.godot3_api] == [("SurfaceTool.add_uv", False, "SurfaceTool")]
    assert judgment.version_signal == "godot3"
    # another script of the project calls the helper: its argument may be anything, so the hint stays weak
    other = "extends Node\n\nfunc go(world):\n\tworld.get_node(\"Chunk\")._draw_face(null, null)\n"
    facts, judgment = _judged({"chunk.gd": _VOXEL, "world.gd": other}, "chunk.gd", "surface_tool.add_uv")
    assert [f.weak for f in facts.godot3_api] == [True] and judgment.version_signal == "neutral"
    # a scene connects a signal to it by name
    scene = '[gd_scene format=2]\n\n[connection signal="done" from="." to="." method="_draw_face"]\n'
    facts, _ = _judged({"chunk.gd": _VOXEL, "chunk.tscn": scene}, "chunk.gd", "surface_tool.add_uv")
    assert [f.weak for f in facts.godot3_api] == [True]


def test_godot4_code_with_the_same_helpers_is_not_flagged():
    code = _VOXEL.replace("add_uv", "set_uv").replace("var mesh", "@export var mesh")
    facts, judgment = _judged({"chunk.gd": code}, "chunk.gd", "surface_tool.set_uv")
    assert facts.godot3 == [] and judgment.version_signal != "godot3"
