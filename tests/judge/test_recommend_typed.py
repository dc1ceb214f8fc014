"""The validator types what a judgment recommends on the script model: `await get_tree().idle_frame` is no
Godot 4 code, whatever the evidence held."""

from __future__ import annotations

from agent.judge.base import JudgeInput
from agent.judge.project import build_project_context
from agent.judge.recommend import recommendation_failures
from agent.models import EvidenceBundle, Judgment, SuggestedChange
from agent.retrieve.query import split_trace
from tests.judge.small_index import idle_frame_index
from tests.retrieve.helpers import gd_chunks


def _failures(new: str) -> list[str]:
    code = 'extends Node\n\nfunc f():\n\tyield(get_tree(), "idle_frame")\n'
    chunk = gd_chunks(code, "a.gd")[-1]
    inp = JudgeInput(prompt="", trace=split_trace(chunk, "t"), chunk=chunk,
                     evidence=EvidenceBundle(query_id="t", task_type="t"),
                     project=build_project_context({"a.gd": code}, idle_frame_index()))
    j = Judgment(version_signal="godot3", label="migration_required", migration_required=True, confidence=0.9,
                 rationale="r", suggested_changes=[SuggestedChange(old='yield(get_tree(), "idle_frame")', new=new,
                                                                   change_type="syntax_change", evidence_id="x")])
    return recommendation_failures(j, inp, inp.facts)


def test_a_godot3_member_on_a_typed_receiver_is_refused():
    assert any("SceneTree.idle_frame" in f for f in _failures("await get_tree().idle_frame"))


def test_the_godot4_member_passes():
    assert not [f for f in _failures("await get_tree().process_frame") if "SceneTree" in f]


def test_many_annotated_lines_are_read_as_statements():
    """Forty `@onready var` lines (a rewritten declaration group) are read in linear time, and pass."""
    many = "\n".join(f"@onready var node_{i} = $Node{i}" for i in range(40))
    assert not [f for f in _failures(many) if "SceneTree" in f]
