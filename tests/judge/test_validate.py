"""Every validator rule, on hand-made bundles and the real parser; a rejection names its rule."""

from __future__ import annotations

import json

import pytest

from agent.judge.dimension import detect_project_dimension
from agent.judge.evidence import EvidenceJudge
from agent.judge.validate import judge_and_validate, validate
from agent.models import RetrievalHit
from tests.judge.bundles import CB_DOC_ID, MAP_ID, PROTO_ID, kinematic_bundle, make_input
from tests.retrieve.helpers import gd_chunks

OLD = "extends KinematicBody2D\n\nfunc _physics_process(delta):\n\tpass\n"


def _good(**over) -> dict:
    j = {"version_signal": "godot3", "label": "godot3_api_in_godot4", "migration_required": True, "confidence": 0.8,
         "rationale": "KinematicBody2D was renamed.", "evidence_ids": [MAP_ID],
         "suggested_changes": [{"old": "KinematicBody2D", "new": "CharacterBody2D", "change_type": "rename",
                                "evidence_id": MAP_ID, "docs_url": None, "note": ""}],
         "suggested_code": "extends CharacterBody2D"}
    j.update(over)
    return j


@pytest.fixture
def inp():
    return make_input(OLD, "extends")


def _rules(res) -> set[str]:
    return {f.split(":", 1)[0] for f in res.failures}


def test_a_good_judgment_passes(inp):
    res = validate(json.dumps(_good()), inp)
    assert res.ok and res.failures == [] and res.judgment.label == "godot3_api_in_godot4"


@pytest.mark.parametrize("raw, rule", [
    ('{"version_signal": "godot3", "label": ', "json"),
    ("[1, 2]", "json"),
    (json.dumps(_good(label="godot5_api")), "label_in_set"),
    (json.dumps(_good(confidence=3)), "json"),
])
def test_unparseable_or_off_schema(inp, raw, rule):
    res = validate(raw, inp)
    assert not res.ok and _rules(res) == {rule}
    assert res.judgment.label == "ambiguous_version_signal" and res.downgraded


def test_cited_ids_must_be_retrieved(inp):
    res = validate(_good(evidence_ids=[MAP_ID, "godot-stable:made/up.html#x:0001"]), inp)
    assert "evidence_ids_retrieved" in _rules(res)
    assert res.judgment.evidence_ids == [MAP_ID]  # the downgrade keeps only retrieved ids


def test_no_godot3_api_recommended(inp):
    bad_new = _good(suggested_changes=[{"old": "CharacterBody2D", "new": "KinematicBody2D", "change_type": "rename",
                                        "evidence_id": MAP_ID, "docs_url": None, "note": ""}])
    assert "no_godot3_api_recommended" in _rules(validate(bad_new, inp))
    assert "no_godot3_api_recommended" in _rules(validate(_good(suggested_code="extends KinematicBody2D"), inp))
    prose = _good(rationale="Fine as is: keep KinematicBody2D.")
    assert "no_godot3_api_recommended" in _rules(validate(prose, inp))
    # the old side and comments in suggested code are not recommendations
    ok = _good(suggested_code="# was KinematicBody2D\nextends CharacterBody2D")
    assert validate(ok, inp).ok


def test_a_noise_prototypes_terms_bind_only_a_chunk_that_looks_like_noise():
    """Similarity brings the web-markup prototype to `WebSocketServer`; its "Godot 3 API" binds HTML only."""
    bundle = kinematic_bundle()
    bundle.label_evidence.append(RetrievalHit(
        table="label_prototypes", record_id="label:non-godot-noise:web-markup", title="non_godot_noise",
        content="", score=0.05,
        metadata={"label": "non_godot_noise",
                  "validator_rules": {"forbidden_answer_terms": ["Godot 3 API"]}}))
    said = _good(rationale="`KinematicBody2D` is Godot 3 API -> `CharacterBody2D`.")
    assert validate(said, make_input(OLD, "extends", bundle=bundle)).ok
    noisy = make_input("func f():\n\tpass\n", "func f", bundle=bundle)
    noisy.facts.noise = ["js_console", "html_tag", "css_rule"]  # no Godot findings, noise cues: it binds
    assert "no_godot3_api_recommended" in _rules(validate(said, noisy))


def test_project_dimension(inp):
    j = _good(suggested_changes=[{"old": "KinematicBody2D", "new": "CharacterBody3D", "change_type": "rename",
                                  "evidence_id": MAP_ID, "docs_url": None, "note": ""}], suggested_code=None)
    res = validate(j, inp)
    assert not res.ok and any(f.startswith("project_dimension: 3D node(s) CharacterBody3D") for f in res.failures)
    # a 3D project: a 2D node suggested for a dimension-less Godot 3 chunk is wrong
    three_d = make_input("extends KinematicBody\n\nfunc f():\n\tpass\n", "extends", dimension="3d")
    res = validate(_good(suggested_code="extends CharacterBody2D"), three_d)
    assert "project_dimension: 2D node(s) CharacterBody2D suggested for a 3D project" in res.failures
    # unknown dimension: no dimension rule
    assert "project_dimension" not in _rules(validate(j, make_input(OLD, "extends", dimension="unknown")))
    # the chunk itself is 2D inside a 3D project: suggestions may follow the chunk
    assert "project_dimension" not in _rules(validate(_good(), make_input(OLD, "extends", dimension="3d")))


def test_consistency_and_conflicts(inp):
    assert "consistency" in _rules(validate(_good(version_signal="godot4"), inp))
    godot4_claim = _good(version_signal="godot4", label="godot4_valid_api", migration_required=False,
                         suggested_changes=[], suggested_code=None, evidence_ids=[CB_DOC_ID])
    assert "conflicting_evidence" in _rules(validate(godot4_claim, make_input(
        "extends Node\n\nexport var speed = 3\n", "export var")))
    noise = _good(version_signal="neutral", label="non_godot_noise", migration_required=False,
                  suggested_changes=[], suggested_code=None)
    assert "conflicting_evidence" in _rules(validate(noise, inp))  # SmolLM's "this is JavaScript"
    unsupported = make_input("extends Node2D\n\nfunc f():\n\tpass\n", "func f")
    assert "conflicting_evidence" in _rules(validate(_good(suggested_code=None, suggested_changes=[]), unsupported))


def test_weak_evidence_downgrades(inp):
    res = validate(_good(evidence_ids=[], suggested_changes=[]), inp)
    assert "weak_evidence" in _rules(res) and res.judgment.version_signal == "neutral"
    assert "weak_evidence" in _rules(validate(_good(confidence=0.1), inp))


async def test_evidence_judgment_that_fails_is_downgraded_with_reason():
    # evidence judge says godot3 from syntax, but nothing retrieved backs it: weak -> ambiguous, reason kept
    from agent.models import EvidenceBundle

    inp = make_input("extends Node\n\nonready var label = $Label\n", "onready",
                     bundle=EvidenceBundle(query_id="q", task_type="version_check"))
    judge = EvidenceJudge()
    out = await judge_and_validate(judge, inp, fallback=judge)
    assert out.judgment.label == "ambiguous_version_signal"
    assert out.validation_failures and out.validation_failures[0].startswith("weak_evidence")


def test_evidence_judge_cites_mapping_prototype_and_docs_url(inp):
    j = EvidenceJudge().decide(inp)
    assert {MAP_ID, PROTO_ID} <= set(j.evidence_ids)
    assert j.suggested_changes[0].docs_url.split("#")[0].endswith("upgrading_to_godot_4.html")
    assert validate(j, inp).ok


def test_detect_project_dimension():
    two = gd_chunks("extends CharacterBody2D\n\nfunc f():\n\tpass\n")
    three = gd_chunks("extends Spatial\n\nfunc f():\n\tpass\n", "a.gd") + gd_chunks("extends Node3D\n", "b.gd")
    assert detect_project_dimension(two) == "2d"
    assert detect_project_dimension(three) == "3d"
    assert detect_project_dimension(gd_chunks("extends Node\n")) == "unknown"
