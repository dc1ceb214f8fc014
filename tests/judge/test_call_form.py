"""Judging by what each version's signatures accept: call forms and 4.x-only members, on a complete index.

The test KB's 4.x side is a subset (absence proves nothing there), so these run on a small index
marked complete, with the real chunker and the real evidence judge and validator.
"""

from __future__ import annotations

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
from agent.judge.base import JudgeInput
from agent.judge.evidence import EvidenceJudge
from agent.judge.facts import code_facts
from agent.judge.project import build_project_context
from agent.models import EvidenceBundle, RetrievalHit
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import find_chunk, gd_chunks


def _index() -> ApiIndex:
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in (("Object", ""), ("Node", "Object"), ("Array", ""), ("UndoRedo", "Object"),
                            ("ResourceSaver", "Object"), ("Resource", "Object")):
            entries.append(ApiEntry(v, cls, "", "class"))
            classes.append(ClassEntry(v, cls, parent))
        entries.append(ApiEntry(v, "Node", "add_child", "method", arg_count=2 if v == V3 else 3,
                                default_count=1 if v == V3 else 2, signature="add_child(node, ...)"))
        entries.append(ApiEntry(v, "Node", "name", "property"))
        entries.append(ApiEntry(v, "Node", "owner", "property", return_type="Node"))
        entries.append(ApiEntry(v, "Node", "get_parent", "method", return_type="Node"))
    entries += [
        ApiEntry(V3, "Array", "sort_custom", "method", arg_count=2, signature="sort_custom(obj: Object, func: String)"),
        ApiEntry(V4, "Array", "sort_custom", "method", arg_count=1, signature="sort_custom(func: Callable)"),
        ApiEntry(V3, "UndoRedo", "add_do_method", "method", arg_count=2, vararg=True,
                 signature="void add_do_method(object: Object, method: String) vararg"),
        ApiEntry(V4, "UndoRedo", "add_do_method", "method", arg_count=1, signature="void add_do_method(callable: Callable)"),
        ApiEntry(V3, "ResourceSaver", "save", "method", arg_count=3, default_count=1,
                 signature="int save(path: String, resource: Resource, flags: int = 0)"),
        ApiEntry(V4, "ResourceSaver", "save", "method", arg_count=3, default_count=2,
                 signature='Error save(resource: Resource, path: String = "", flags: BitField[SaverFlags] = 0)'),
        ApiEntry(V4, "Node", "process_mode", "property"),
        ApiEntry(V3, "Node", "pause_mode", "property"),
        ApiEntry(V4, "Node", "owner_only_in_4", "property"),
        ApiEntry(V3, "Object", "owner_only_in_4", "method"),  # the receiver's 3.4 ancestor defines it: no cue
        ApiEntry(V4, "Sprite2D", "", "class"),
        ApiEntry(V3, "Viewport", "", "class"), ApiEntry(V4, "Viewport", "", "class"), ApiEntry(V4, "Window", "", "class"),
        ApiEntry(V3, "Viewport", "get_size", "method"), ApiEntry(V4, "Window", "get_size", "method"),
        ApiEntry(V3, "Viewport", "only_in_3", "method"),
        ApiEntry(V3, "@GDScript", "", "class"), ApiEntry(V3, "@GDScript", "yield", "method"),
        ApiEntry(V3, "Node", "get_viewport", "method", return_type="Viewport"),
        ApiEntry(V4, "Node", "get_viewport", "method", return_type="Viewport"),
        ApiEntry(V3, "SceneTree", "", "class"), ApiEntry(V4, "SceneTree", "", "class"),
        ApiEntry(V3, "SceneTree", "change_scene", "method"),
    ]
    classes.append(ClassEntry(V4, "Sprite2D", "Node"))
    classes += [ClassEntry(V3, "Viewport", "Node"), ClassEntry(V4, "Viewport", "Node"), ClassEntry(V4, "Window", "Viewport"),
                ClassEntry(V3, "SceneTree", "Object"), ClassEntry(V4, "SceneTree", "Object")]
    return ApiIndex(entries, classes, complete_v4=True)


def _facts(code: str, needle: str):
    chunk = find_chunk(gd_chunks(code), needle)
    project = build_project_context({"player.gd": code}, _index())
    bundle = EvidenceBundle(query_id="q", task_type="version_check")
    return chunk, project, code_facts(chunk, bundle, project), bundle


def _godot4_api(code: str, needle: str) -> list[str]:
    """Names of the index's Godot 4 cues in the chunk of `code` that contains `needle`."""
    return [f.name for f in _facts(code, needle)[2].godot4 if f.kind == "api"]


def test_an_argument_count_only_the_34_signature_takes_is_a_godot3_call_form():
    code = "extends Node\n\nfunc order(items: Array):\n\titems.sort_custom(self, \"by_name\")\n"
    chunk, project, facts, bundle = _facts(code, "sort_custom")
    (finding,) = [f for f in facts.godot3 if f.name == "call_form"]
    assert finding.receiver == "Array" and finding.line == 2  # the chunk's own second line (file line 4)
    inp = JudgeInput(prompt="is this Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, evidence=bundle,
                     project=project)
    inp.facts = facts
    judgment = EvidenceJudge().decide(inp)
    assert judgment.version_signal == "godot3" and judgment.migration_required
    (change,) = judgment.suggested_changes
    assert change.old == 'items.sort_custom(self, "by_name")' and change.new == "items.sort_custom(by_name)"
    assert judgment.suggested_code.strip().endswith("items.sort_custom(by_name)")


def test_an_object_and_a_method_name_become_one_callable_with_its_extra_arguments_bound():
    code = ("extends Node\n\nfunc order(items: Array, ur: UndoRedo, other: Node):\n"
            "\titems.sort_custom(other, \"by_y\")\n\tur.add_do_method(self, \"set_x\", 3, name)\n"
            "\tur.add_do_method(other, method_name)\n")
    chunk, project, facts, bundle = _facts(code, "sort_custom")
    inp = JudgeInput(prompt="is this Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, evidence=bundle,
                     project=project)
    inp.facts = facts
    judgment = EvidenceJudge().decide(inp)
    assert [c.new for c in judgment.suggested_changes] == [
        "items.sort_custom(other.by_y)", "ur.add_do_method(set_x.bind(3, name))",
        "ur.add_do_method(Callable(other, method_name))"]
    assert "\tur.add_do_method(set_x.bind(3, name))\n" in judgment.suggested_code


def test_a_call_both_signatures_take_and_an_unresolved_receiver_are_no_finding():
    code = ("extends Node\n\nfunc order(items: Array, other):\n\tadd_child(Node.new())\n"
            "\tother.sort_custom(self, \"by_name\")\n\titems.sort_custom(func(a, b): return a < b)\n")
    _, _, facts, _ = _facts(code, "sort_custom")
    assert not [f for f in facts.godot3 if f.name == "call_form"]


def test_a_member_only_4x_documents_on_a_resolved_receiver_is_a_godot4_cue():
    code = "extends Node\n\nfunc pause(child: Node):\n\tchild.process_mode = Node.PROCESS_MODE_DISABLED\n"
    assert _godot4_api(code, "process_mode") == ["Node.process_mode"]


def test_a_class_only_4x_documents_is_a_godot4_cue_unless_the_script_declares_it():
    assert _godot4_api("extends Node\n\nfunc make():\n\treturn Sprite2D.new()\n", "Sprite2D") == ["Sprite2D (4.x class)"]
    assert not _godot4_api("extends Node\n\nfunc make():\n\t# Sprite2D\n\treturn \"Sprite2D\"\n", "make")
    own = "extends Node\n\nclass Sprite2D:\n\tvar x = 1\n\nfunc make():\n\treturn Sprite2D.new()\n"
    assert not _godot4_api(own, "return Sprite2D")  # a Godot 3 script's own class of that name


def test_no_godot4_cue_when_the_34_class_has_the_member_or_the_script_may_define_it():
    code = ("extends Node\n\nvar process_mode_own = 1\n\nfunc f(child: Node):\n\tchild.owner_only_in_4 = 1\n"
            "\tchild.pause_mode = 2\n\tself.process_mode = 1\n")
    assert not _godot4_api(code, "owner_only_in_4")


def test_chains_resolve_through_what_members_hold_and_return():
    for code, needle in (
        ("extends Node\n\nfunc f(child: Node):\n\tchild.owner.process_mode = 0\n", "child.owner"),
        ("extends Node\n\nfunc f():\n\tget_parent().process_mode = 0\n", "get_parent()"),
        ("extends Node\n\nfunc f(child: Node):\n\tchild.get_parent().owner.process_mode = 0\n", "child.get_parent"),
    ):
        assert _godot4_api(code, needle) == ["Node.process_mode"], code
    untyped = "extends Node\n\nfunc f(child):\n\tchild.owner.process_mode = 0\n"
    assert not _godot4_api(untyped, "child.owner")  # an untyped start: nothing is known


def _mapping(source: str, target: str | None, classes: list[str], derived: bool) -> RetrievalHit:
    prov = {"source": "api_index" if derived else "renames_3_to_4.json", "classes": classes, "kind": "method"}
    return RetrievalHit(table="api_mapping", record_id=f"m:{source}", title=source, content=source, score=1.0,
                        match=["exact"], metadata={"source_api": source, "target_api": target, "change_type": "rename",
                                                   "status": "candidate", "provenance": prov})


def _godot3_names(code: str, needle: str, hit: RetrievalHit) -> list[str]:
    chunk = find_chunk(gd_chunks(code), needle)
    project = build_project_context({"player.gd": code}, _index())
    bundle = EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=[hit])
    return [f.name for f in code_facts(chunk, bundle, project).godot3_strong]


def test_a_member_a_4x_subclass_defines_is_no_godot3_signal():
    """`get_viewport()` is typed Viewport, but at run time it is the root Window, which has `get_size()`."""
    hit = _mapping("Viewport.get_size", None, ["Viewport"], derived=True)
    assert _godot3_names("extends Node\n\nfunc f():\n\treturn get_viewport().get_size()\n", "get_size", hit) == []
    hit = _mapping("Viewport.only_in_3", None, ["Viewport"], derived=True)  # no 4.x class has it: still a signal
    code = "extends Node\n\nfunc f():\n\treturn get_viewport().only_in_3()\n"
    assert _godot3_names(code, "only_in_3", hit) == ["Viewport.only_in_3"]


def test_a_class_scoped_rename_does_not_apply_to_an_autoload():
    hit = _mapping("change_scene", "change_scene_to_file", ["SceneTree"], derived=False)
    assert _godot3_names("extends Node\n\nfunc f():\n\tScenes.change_scene(1)\n", "change_scene", hit) == []
    assert _godot3_names("extends Node\n\nfunc f():\n\tget_tree().change_scene(1)\n", "change_scene", hit) == \
        ["change_scene"]


def test_one_item_per_call_and_it_is_the_one_with_a_rewrite():
    """The API row says only that 3.4 had `yield`; the syntax rule knows its Godot 4 form."""
    code = "extends Node\n\nfunc wait(t):\n\tyield(t, \"timeout\")\n"
    chunk = find_chunk(gd_chunks(code), "yield")
    project = build_project_context({"player.gd": code}, _index())
    hit = _mapping("@GDScript.yield", None, ["@GDScript"], derived=True)
    inp = JudgeInput(prompt="Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, project=project,
                     evidence=EvidenceBundle(query_id="q", task_type="version_check", api_mapping_evidence=[hit]))
    judgment = EvidenceJudge().decide(inp)
    assert [(c.old, c.new) for c in judgment.suggested_changes] == [('yield(t, "timeout")', "await t.timeout")]
    assert "removed" not in judgment.rationale and judgment.label == "migration_required"
    assert judgment.suggested_code == chunk.code_text.replace('yield(t, "timeout")', "await t.timeout")


def test_a_path_and_a_resource_in_godot3_order_are_swapped():
    code = 'extends Node\n\nfunc keep(res: Resource):\n\tResourceSaver.save("res://a.tres", res)\n'
    chunk, project, facts, bundle = _facts(code, "ResourceSaver")
    inp = JudgeInput(prompt="is this Godot 4?", trace=split_trace(chunk, "p"), chunk=chunk, evidence=bundle,
                     project=project)
    inp.facts = facts
    judgment = EvidenceJudge().decide(inp)
    assert judgment.suggested_code.endswith('\tResourceSaver.save(res, "res://a.tres")'), judgment.suggested_code
