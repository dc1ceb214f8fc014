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
from agent.models import EvidenceBundle
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import find_chunk, gd_chunks


def _index() -> ApiIndex:
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in (("Object", ""), ("Node", "Object"), ("Array", "")):
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
        ApiEntry(V4, "Node", "process_mode", "property"),
        ApiEntry(V3, "Node", "pause_mode", "property"),
        ApiEntry(V4, "Node", "owner_only_in_4", "property"),
        ApiEntry(V3, "Object", "owner_only_in_4", "method"),  # the receiver's 3.4 ancestor defines it: no cue
        ApiEntry(V4, "Sprite2D", "", "class"),
    ]
    classes.append(ClassEntry(V4, "Sprite2D", "Node"))
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
    assert change.old == 'items.sort_custom(self, "by_name")' and "Callable" in change.new


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
