"""Hand-made evidence bundles and inputs for fast unit tests (no KB needed)."""

from __future__ import annotations

from agent.judge.base import JudgeInput, ProjectDimension
from agent.models import EvidenceBundle, RetrievalHit
from tests.retrieve.helpers import find_chunk, gd_chunks
from agent.retrieve.query import split_trace

MIGRATION_URL = "https://docs.godotengine.org/en/stable/tutorials/migrating/upgrading_to_godot_4.html"
DOC_ID = "godot-stable:tutorials/migrating/upgrading_to_godot_4.html#renamed:0001"
MAP_ID = "godot3-to-4:class:kinematicbody2d-to-characterbody2d"
PROTO_ID = "label:godot3-api-in-godot4:kinematicbody2d-extends"
CB_DOC_ID = "godot-stable:classes/class_characterbody2d.html#class-characterbody2d:0001"


def kinematic_bundle() -> EvidenceBundle:
    return EvidenceBundle(
        query_id="q-test", task_type="version_check",
        api_mapping_evidence=[RetrievalHit(
            table="api_mapping", record_id=MAP_ID, title="KinematicBody2D -> CharacterBody2D",
            content="rename: KinematicBody2D -> CharacterBody2D", score=1.05, match=["exact"],
            metadata={"source_api": "KinematicBody2D", "target_api": "CharacterBody2D", "change_type": "rename",
                      "status": "candidate", "confidence": "verified_from_docs", "evidence_chunk_ids": [DOC_ID],
                      "match_terms": ["KinematicBody2D"], "negative_patterns": ["KinematicBody2D"],
                      "documented_in_godot4": False})],
        doc_evidence=[
            RetrievalHit(table="docs_chunks", record_id=DOC_ID, title="Automatically renamed nodes",
                         content="KinematicBody2D is now CharacterBody2D", score=0.05, match=["linked"],
                         metadata={"source_url": MIGRATION_URL, "doc_type": "migration", "symbol": None}),
            RetrievalHit(table="docs_chunks", record_id=CB_DOC_ID, title="CharacterBody2D",
                         content="A 2D physics body specialized for characters moved by script.", score=0.04,
                         match=["symbol"],
                         metadata={"source_url": "https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html",
                                   "doc_type": "class_reference", "symbol": "CharacterBody2D",
                                   "api_symbols": ["CharacterBody2D", "move_and_slide", "velocity"]}),
        ],
        label_evidence=[RetrievalHit(
            table="label_prototypes", record_id=PROTO_ID, title="godot3_api_in_godot4: version_classification",
            content="extends KinematicBody2D\nGodot 3 physics body.\nUse CharacterBody2D or CharacterBody3D.",
            score=0.05, match=["keyword"],
            metadata={"label": "godot3_api_in_godot4", "evidence_mapping_ids": [MAP_ID],
                      "validator_rules": {"forbidden_answer_terms": ["KinematicBody2D is recommended in Godot 4",
                                                                     "keep KinematicBody2D"]}})],
    )


def make_input(code: str, needle: str, *, bundle: EvidenceBundle | None = None,
               dimension: ProjectDimension = "2d", prompt: str = "Godot 4?") -> JudgeInput:
    chunk = find_chunk(gd_chunks(code), needle)
    return JudgeInput(prompt=prompt, trace=split_trace(chunk, "proj-unit"), chunk=chunk,
                      evidence=bundle if bundle is not None else kinematic_bundle(), project_dimension=dimension)
