"""The LLM judge against real local OpenAI-compatible server processes (tests/llm_servers/stub_server.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import urllib.request

import pytest

from agent.judge.base import JudgeError
from agent.judge.evidence import EvidenceJudge
from agent.judge.llm import LLMJudge
from agent.judge.request import build_llm_judgment_request
from agent.judge.strength import with_strength
from agent.judge.validate import judge_and_validate
from tests.judge.test_evidence_kb import DODGE_PLAYER, OLD_PLAYER
from tests.llm_servers.launch import running_server
from tests.retrieve.helpers import find_chunk, gd_chunks, judge_input


def _stats(base_url: str, action: str = "stats") -> dict:
    url = base_url.rsplit("/v1", 1)[0] + f"/v1/{action}"
    req = urllib.request.Request(url, data=b"{}" if action == "reset" else None, method="POST" if action == "reset" else "GET")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


@pytest.fixture(scope="module")
def old_input(retriever):
    return judge_input(retriever, find_chunk(gd_chunks(OLD_PLAYER), "extends KinematicBody2D"), dimension="2d")


@pytest.fixture(scope="module")
def new_input(retriever):
    return judge_input(retriever, find_chunk(gd_chunks(DODGE_PLAYER), "@export var speed"), dimension="2d")


def _judge(settings, url: str, **kw) -> LLMJudge:
    return LLMJudge(settings.with_(llm_base_url=url, llm_model="stub", **kw), backoff_seconds=0.05)


def test_request_carries_the_contract(old_input):
    req = build_llm_judgment_request(old_input)
    for key in ("user_prompt", "project_id", "source_file", "chunk_id", "chunk_order", "chunk_kind", "chunk_text",
                "surrounding_context", "retrieved_evidence", "judgment_contract"):
        assert key in req
    assert {e["id"] for e in req["retrieved_evidence"]} == old_input.evidence.ids()
    assert req["judgment_contract"]["schema"]["properties"]["label"]["enum"][0] == "godot4_valid_api"


async def test_good_server_answer_is_used_then_cached(base_settings, old_input, kb_db_factory):
    from agent.storage import connection

    db = kb_db_factory()
    with running_server("stub_server.py", "--mode", "good") as url:
        judge = LLMJudge(base_settings.with_(llm_base_url=url, llm_model="stub"),
                         cache_conn_factory=lambda: connection(db))
        first = await judge_and_validate(judge, old_input)
        assert (first.judge_kind, first.fallback_reason, first.cached) == ("llm", None, False)
        assert first.judgment.version_signal == "godot3" and first.llm_attempts == 1
        assert first.judgment.evidence_ids[0] in old_input.evidence.ids()
        again = await judge_and_validate(judge, old_input)
        assert again.cached and again.llm_attempts == 0 and again.judgment == first.judgment
        # a fresh judge (new process, empty memory) still hits the cache table
        other = LLMJudge(base_settings.with_(llm_base_url=url, llm_model="stub"),
                         cache_conn_factory=lambda: connection(db))
        assert (await other.judge(old_input)).cached
        assert _stats(url)["requests"] == 1


async def test_broken_json_falls_back(base_settings, old_input):
    with running_server("stub_server.py", "--mode", "broken") as url:
        judge = _judge(base_settings, url)
        with pytest.raises(JudgeError, match="invalid_json: json"):
            await judge.judge(old_input)  # the judge returns a parsed answer or raises
        out = await judge_and_validate(judge, old_input)
    assert out.judge_kind == "evidence" and out.fallback_reason.startswith("invalid_json: json")
    assert out.judgment == with_strength(EvidenceJudge().decide(old_input), old_input.facts, old_input.chunk)


async def test_unretrieved_evidence_falls_back(base_settings, new_input):
    with running_server("stub_server.py", "--mode", "bad_evidence") as url:
        judge = _judge(base_settings, url)
        answer = await judge.judge(new_input)  # parsed, not validated: the policy validates it once
        assert "never/retrieved" in json.dumps(answer.judgment.model_dump())
        out = await judge_and_validate(judge, new_input)
    assert out.judge_kind == "evidence"
    assert out.fallback_reason.startswith("validation: evidence_ids_retrieved")
    assert out.validation_failures[0].startswith("evidence_ids_retrieved")
    assert "never/retrieved" not in json.dumps(out.judgment.model_dump())


async def test_timeout_falls_back_after_retries(base_settings, old_input):
    with running_server("stub_server.py", "--mode", "slow", "--slow-seconds", "5") as url:
        judge = _judge(base_settings, url, llm_timeout=0.5, llm_max_retries=1)
        t0 = time.monotonic()
        out = await judge_and_validate(judge, old_input)
    assert out.judge_kind == "evidence" and out.fallback_reason.startswith("timeout")
    assert out.llm_attempts == 2 and time.monotonic() - t0 < 4


async def test_endpoint_down_falls_back(base_settings, old_input):
    judge = _judge(base_settings, "http://127.0.0.1:9/v1", llm_max_retries=0)
    out = await judge_and_validate(judge, old_input)
    assert out.judge_kind == "evidence" and out.fallback_reason.startswith("endpoint_error")
    assert out.judgment == with_strength(EvidenceJudge().decide(old_input), old_input.facts, old_input.chunk)


async def test_concurrency_is_bounded(base_settings, new_input):
    inputs = [dataclasses.replace(new_input, prompt=f"question {i}") for i in range(6)]
    with running_server("stub_server.py", "--mode", "good", "--delay", "0.3") as url:
        judge = _judge(base_settings, url, llm_max_concurrency=2)
        t0 = time.monotonic()
        outs = await asyncio.gather(*(judge_and_validate(judge, i) for i in inputs))
        elapsed = time.monotonic() - t0
        stats = _stats(url)
    assert stats["requests"] == 6 and stats["max_in_flight"] == 2
    assert elapsed >= 0.85  # 6 calls, 2 at a time, 0.3 s each
    assert all(o.judge_kind == "llm" for o in outs), [o.fallback_reason for o in outs]


async def test_close_closes_the_http_client(base_settings, old_input):
    with running_server("stub_server.py", "--mode", "good") as url:
        judge = _judge(base_settings, url)
        await judge_and_validate(judge, old_input)
        client, _ = judge._client()
        await judge.aclose()
    assert client.is_closed() and judge._per_loop == {}


def test_judge_modules_import_without_a_cycle():
    import subprocess
    import sys

    # each module first in a fresh interpreter: a cycle fails on a partly initialised module
    for mod in ("agent.judge.validate", "agent.judge.llm", "agent.judge.factory"):
        subprocess.run([sys.executable, "-c", f"import {mod}"], check=True)
