"""End to end with a real small model (SmolLM2-135M) behind a local OpenAI-compatible server.

Its answers are weak; the point is that the validator catches them and the evidence judge takes over.
"""

from __future__ import annotations

import pytest

from agent.judge.llm import LLMJudge
from agent.judge.validate import judge_and_validate, validate
from tests.judge.test_evidence_kb import DODGE_PLAYER, OLD_PLAYER
from tests.llm_servers.launch import running_server
from tests.retrieve.helpers import find_chunk, gd_chunks, judge_input


@pytest.mark.slow
@pytest.mark.timeout(1500)
async def test_smollm_answers_are_validated_and_fall_back(base_settings, retriever):
    inputs = [
        judge_input(retriever, find_chunk(gd_chunks(OLD_PLAYER), "extends KinematicBody2D"), dimension="2d"),
        judge_input(retriever, find_chunk(gd_chunks(DODGE_PLAYER), "func _process"), dimension="2d"),
        judge_input(retriever, find_chunk(gd_chunks(OLD_PLAYER), "move_and_slide"), dimension="2d"),
    ]
    with running_server("smollm_server.py", "--max-new-tokens", "120", ready_timeout=600) as url:
        settings = base_settings.with_(llm_base_url=url, llm_model="SmolLM2-135M-Instruct", llm_timeout=600.0,
                                       llm_max_retries=0, llm_max_concurrency=1)
        judge = LLMJudge(settings, max_tokens=120)
        outcomes = [await judge_and_validate(judge, inp) for inp in inputs]
    fell_back = [o for o in outcomes if o.fallback_reason]
    print(f"\nSmolLM2-135M: {len(fell_back)}/{len(outcomes)} judgments fell back to the evidence judge")
    for o in outcomes:
        print(f"  {o.judge_kind:8} {o.judgment.version_signal:7} {o.judgment.label:26} reason={o.fallback_reason}")
    for inp, o in zip(inputs, outcomes):
        assert validate(o.judgment, inp).ok or o.judgment.label == "ambiguous_version_signal"
        assert set(o.judgment.evidence_ids) <= inp.evidence.ids()
        assert o.llm_attempts == 1
        if o.judge_kind == "evidence":
            assert o.fallback_reason and (o.fallback_reason.startswith(("invalid_json", "validation")))
    # whatever the model said, the godot3 chunk ends up godot3 (its own answer or the fallback's)
    assert outcomes[0].judgment.version_signal == "godot3"
