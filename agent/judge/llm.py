"""The LLM judge: an OpenAI-compatible chat endpoint (vLLM serving Qwen), JSON-schema output.

`LLMJudge.judge` returns the parsed answer or raises `JudgeError` (timeout, endpoint error,
unparseable JSON). Validation and the fallback to the evidence judge belong to one policy,
`agent.judge.validate.judge_and_validate`, which also caches accepted answers (`remember`).
Calls are bounded by `llm_max_concurrency` and transport errors retried with exponential backoff.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

import openai

from agent.judge.base import JudgeError, JudgeInput
from agent.judge.cache import ConnFactory, JudgmentCache, cache_key
from agent.judge.prompts import PROMPT_VERSION, SYSTEM_PROMPT, USER_PROMPT
from agent.judge.request import JUDGMENT_SCHEMA, build_llm_judgment_request
from agent.judge.validate import parse_judgment
from agent.llm_endpoint import note_refusal, template_kwargs_body
from agent.models import LABELS, Judgment
from agent.settings import Settings

log = logging.getLogger(__name__)

_RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


@dataclass(frozen=True)
class LLMAnswer:
    """A parsed (not yet validated) answer of the endpoint."""

    judgment: Judgment
    attempts: int
    """HTTP calls made (0 for a cached answer)."""
    cached: bool = False


class LLMJudge:
    """OpenAI-compatible judge with retries, a concurrency bound and a cache of accepted answers."""

    kind = "llm"

    def __init__(self, settings: Settings, *, cache_conn_factory: ConnFactory | None = None,
                 max_tokens: int = 800, backoff_seconds: float = 0.5):
        if not settings.llm_base_url:
            raise ValueError("the llm judge needs GODOT_RAG_LLM_BASE_URL (an OpenAI-compatible endpoint)")
        self.settings = settings
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

    async def judge(self, inp: JudgeInput) -> LLMAnswer:
        """The endpoint's parsed answer for one chunk (or a cached one); `JudgeError` if there is none.

        Not validated here: `judge_and_validate` validates it once and decides on the fallback.
        """
        key = cache_key(inp, self.model, PROMPT_VERSION)
        cached = await asyncio.to_thread(self.cache.get, key)
        if cached is not None:
            return LLMAnswer(judgment=cached, attempts=0, cached=True)
        content, attempts, error = await self._call(inp)
        if content is None:
            raise JudgeError(error or "endpoint_error", attempts=attempts)
        judgment, failures = parse_judgment(content)
        if judgment is None:
            raise JudgeError("invalid_json: " + failures[0], failures=failures, attempts=attempts)
        return LLMAnswer(judgment=judgment, attempts=attempts)

    async def remember(self, inp: JudgeInput, judgment: Judgment) -> None:
        """Cache a validated answer (in memory and in `godot_rag.llm_judgment_cache`)."""
        key = cache_key(inp, self.model, PROMPT_VERSION)
        await asyncio.to_thread(self.cache.put, key, judgment, model=self.model, prompt_version=PROMPT_VERSION)

    async def aclose(self) -> None:
        """Close the HTTP clients; one of another (finished) event loop is dropped with its loop."""
        loop_id = id(asyncio.get_running_loop())
        clients, self._per_loop = self._per_loop, {}
        for key, (client, _) in clients.items():
            if key == loop_id:
                await client.close()
