"""`chat_template_kwargs` for the per-chunk judge: thinking off where the endpoint takes it, nothing where refused."""

from __future__ import annotations

import httpx
import pytest

from agent.judge.base import JudgeInput
from agent.judge.evidence import EvidenceJudge
from agent.judge.llm import LLMJudge
from agent.models import EvidenceBundle
from agent.retrieve.query import split_trace
from agent.settings import Settings
from tests.llm_servers.launch import running_server
from tests.retrieve.helpers import gd_chunks


def _input() -> JudgeInput:
    chunk = gd_chunks("func _ready():\n\tpass\n")[0]
    return JudgeInput(prompt="", trace=split_trace(chunk, "p"), chunk=chunk,
                      evidence=EvidenceBundle(query_id="q", task_type="version_check"))


@pytest.mark.parametrize("refuse", [False, True], ids=["accepted", "refused"])
async def test_judge_sends_thinking_off_only_where_accepted(refuse, tmp_path):
    args = ["--mode", "good"] + (["--no-template-kwargs"] if refuse else [])
    with running_server("stub_server.py", *args) as url:
        settings = Settings(home=tmp_path, llm_base_url=url, llm_model="stub", llm_max_retries=0)
        judge = LLMJudge(settings)
        judge.cache.get = lambda key: None  # no cache: every judgment goes to the endpoint
        judge.cache.put = lambda *a, **k: None
        outcome = await judge.judge(_input())
        again = await judge.judge(_input())
        stats = httpx.get(url.removesuffix("/v1") + "/stats").json()
    assert outcome.judgment.label and outcome.attempts == 1  # the endpoint's own parsed answer, no fallback
    assert again.attempts == 1
    if refuse:  # one refusal, then two calls without the field
        assert stats["requests"] == 2 and stats["template_kwargs"] is None
    else:
        assert stats["requests"] == 2 and stats["template_kwargs"] == {"enable_thinking": False}


def test_setting_is_checked():
    import os

    os.environ["GODOT_RAG_LLM_CHAT_TEMPLATE_KWARGS"] = "sometimes"
    try:
        with pytest.raises(ValueError, match="GODOT_RAG_LLM_CHAT_TEMPLATE_KWARGS"):
            Settings.from_env()
    finally:
        del os.environ["GODOT_RAG_LLM_CHAT_TEMPLATE_KWARGS"]
