"""The LLM judge: an OpenAI-compatible chat endpoint (vLLM serving Qwen), JSON-schema output.

The answer is only accepted after the validator passes it; invalid JSON, a validator
rejection, a timeout or an endpoint error falls back to the evidence judge, with the
reason recorded. Calls are bounded by `llm_max_concurrency`, transport errors retried
with exponential backoff, and validated answers cached (see `cache.py`).
"""

from __future__ import annotations

import asyncio
import json
import logging

import openai

from agent.judge.base import JudgeInput, JudgeOutcome
from agent.judge.cache import ConnFactory, JudgmentCache, cache_key
from agent.judge.evidence import EvidenceJudge
from agent.judge.prompts import PROMPT_VERSION, SYSTEM_PROMPT, USER_PROMPT
from agent.judge.request import JUDGMENT_SCHEMA, build_llm_judgment_request
from agent.llm_endpoint import note_refusal, template_kwargs_body
from agent.models import LABELS
from agent.settings import Settings

log = logging.getLogger(__name__)

_RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


class LLMJudge:
    """OpenAI-compatible judge with validation, fallback, retries, a concurrency bound and a cache."""

    kind = "llm"

    def __init__(self, settings: Settings, *, fallback: EvidenceJudge, cache_conn_factory: ConnFactory | None = None,
                 max_tokens: int = 800, backoff_seconds: float = 0.5):
        if not settings.llm_base_url:
            raise ValueError("the llm judge needs GODOT_RAG_LLM_BASE_URL (an OpenAI-compatible endpoint)")
        self.settings = settings
        self.fallback = fallback
        self.model = settings.llm_model
        self.max_tokens = max_tokens
        self.backoff_seconds = backoff_seconds
        self.cache = JudgmentCache(cache_conn_factory)
        self._per_loop: dict[int, tuple[openai.AsyncOpenAI, asyncio.Semaphore]] = {}

    def _client(self) -> tuple[openai.AsyncOpenAI, asyncio.Semaphore]:
        """One client and one semaphore per event loop (httpx connections belong to a loop)."""
        loop = asyncio.get_running_loop()
        if id(loop) not in self._per_loop:
            client = openai.AsyncOpenAI(base_url=self.settings.llm_base_url, api_key=self.settings.llm_api_key,
                                        timeout=self.settings.llm_timeout, max_retries=0)
            self._per_loop[id(loop)] = (client, asyncio.Semaphore(max(1, self.settings.llm_max_concurrency)))
        return self._per_loop[id(loop)]

    def messages(self, inp: JudgeInput) -> list[dict[str, str]]:
        """System + user messages for one chunk."""
        request = build_llm_judgment_request(inp)
        return [
            {"role": "system", "content": SYSTEM_PROMPT.format(labels=", ".join(LABELS),
                                                               dimension=inp.project_dimension)},
            {"role": "user", "content": USER_PROMPT.format(request_json=json.dumps(request, ensure_ascii=False))},
        ]

    async def _call(self, inp: JudgeInput) -> tuple[str | None, int, str | None]:
        """(content, attempts, error reason)."""
        client, semaphore = self._client()
        messages = self.messages(inp)
        attempts, reason = 0, None
        for attempt in range(1 + max(0, self.settings.llm_max_retries)):
            if attempt:
                await asyncio.sleep(self.backoff_seconds * 2 ** (attempt - 1))
            attempts += 1
            try:
                async with semaphore:
                    resp = await self._create(client, messages)
                return (resp.choices[0].message.content or ""), attempts, None
            except openai.APITimeoutError:
                reason = f"timeout after {self.settings.llm_timeout:g}s"
            except _RETRYABLE as exc:
                reason = f"endpoint_error: {type(exc).__name__}"
            except openai.APIStatusError as exc:  # 4xx: retrying will not help
                return None, attempts, f"endpoint_error: HTTP {exc.status_code}"
            log.info("llm judge attempt %d failed: %s", attempts, reason)
        return None, attempts, reason

    async def _create(self, client: openai.AsyncOpenAI, messages: list[dict[str, str]]):
        """One completion, thinking off (throughput); again without `chat_template_kwargs` if refused."""
        extra = template_kwargs_body(self.settings, enable_thinking=False)
        try:
            return await client.chat.completions.create(
                model=self.model, messages=messages, temperature=0, max_tokens=self.max_tokens,
                response_format={"type": "json_schema",
                                 "json_schema": {"name": "judgment", "schema": JUDGMENT_SCHEMA, "strict": True}},
                extra_body=extra or None,
            )
        except openai.APIStatusError as exc:
            if extra and note_refusal(self.settings, exc):
                return await self._create(client, messages)
            raise

    async def judge(self, inp: JudgeInput) -> JudgeOutcome:
        """Judge one chunk with the LLM; fall back to the evidence judge on any failure."""
        from agent.judge.validate import validate  # validate imports the factory, which imports us

        key = cache_key(inp, self.model, PROMPT_VERSION)
        cached = await asyncio.to_thread(self.cache.get, key)
        if cached is not None and validate(cached, inp).ok:
            return JudgeOutcome(judgment=cached, judge_kind="llm", model=self.model, prompt_version=PROMPT_VERSION,
                                cached=True)
        content, attempts, error = await self._call(inp)
        if content is None:
            return await self._fall_back(inp, error or "endpoint_error", [], attempts)
        result = validate(content, inp)
        if not result.ok:
            first = result.failures[0]
            reason = "invalid_json: " + first if first.startswith(("json", "label_in_set")) else "validation: " + first
            return await self._fall_back(inp, reason, result.failures, attempts)
        await asyncio.to_thread(self.cache.put, key, result.judgment, model=self.model, prompt_version=PROMPT_VERSION)
        return JudgeOutcome(judgment=result.judgment, judge_kind="llm", model=self.model,
                            prompt_version=PROMPT_VERSION, llm_attempts=attempts)

    async def _fall_back(self, inp: JudgeInput, reason: str, failures: list[str], attempts: int) -> JudgeOutcome:
        from agent.judge.validate import validate

        log.info("llm judge fell back for %s: %s", inp.trace.chunk_id, reason)
        outcome = await self.fallback.judge(inp)
        checked = validate(outcome.judgment, inp)
        return JudgeOutcome(judgment=checked.judgment, judge_kind="evidence", model=None,
                            prompt_version=PROMPT_VERSION, fallback_reason=reason,
                            validation_failures=[*failures, *checked.failures], llm_attempts=attempts)
