"""Godot 4 cues need a member the 3.x engine really lacked, not just one the 3.4 reference leaves out."""

from __future__ import annotations

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
from agent.judge.facts import code_facts
from agent.judge.project import build_project_context
from agent.models import EvidenceBundle
from tests.retrieve.helpers import gd_chunks


def _index() -> ApiIndex:
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in (("Object", ""), ("Node", "Object")):
            entries.append(ApiEntry(v, cls, "", "class"))
            classes.append(ClassEntry(v, cls, parent))
    entries += [ApiEntry(V4, "Node", "editor_description", "property"),
                ApiEntry(V4, "Node", "process_thread_group", "property")]
    return ApiIndex(entries, classes, complete_v4=True)


def _godot4(body: str) -> list[str]:
    code = f"extends Node\n\nfunc f(n: Node):\n\t{body}\n"
    chunk = gd_chunks(code, "a.gd")[-1]
    facts = code_facts(chunk, EvidenceBundle(query_id="q", task_type="t"), build_project_context({"a.gd": code}, _index()))
    return [f.name for f in facts.godot4]


def test_a_member_only_4x_documents_is_a_cue():
    assert _godot4("n.process_thread_group = 0") == ["Node.process_thread_group"]


def test_a_member_the_3x_engine_had_undocumented_is_none():
    assert _godot4('n.editor_description = "x"') == []  # agent/data/changes/undocumented_3x.json
