"""The LLM answer organiser (Qwen 3.6 on vLLM): a streamed, JSON-constrained reply over the run's evidence.

The model sees the question, the verdict, the validated chunk judgments, the numbered evidence and
the conversation so far; it returns {"markdown", "citations", "suggested_code"}. The Markdown field
is streamed to the caller as it arrives. Nothing is shown as final before `agent.answer.check`
passes it; a broken, rejected, timed-out or failed answer gives way to the template (see writer.py).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import openai
from pydantic import BaseModel, ConfigDict, ValidationError

from agent.answer.inputs import AnswerInput
from agent.answer.model import Answer, Citation
from agent.answer.template import docs_gist, where
from agent.judge.prompts import ANSWER_SYSTEM_PROMPT, ANSWER_USER_PROMPT
from agent.llm_endpoint import note_refusal, template_kwargs_body
from agent.present import anchor_url
from agent.settings import Settings

log = logging.getLogger(__name__)

TokenSink = Callable[[str], Awaitable[None]]
LANGUAGE_NAMES = {"en": "English", "ko": "Korean (한국어)", "zh": "Chinese (中文)", "ru": "Russian (русский)"}

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["markdown", "citations", "suggested_code"],
    "properties": {  # markdown first: constrained decoding keeps the order, so it can stream
        "markdown": {"type": "string"},
        "citations": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["number", "evidence_id"],
            "properties": {"number": {"type": "integer", "minimum": 1}, "evidence_id": {"type": "string"}}}},
        "suggested_code": {"type": ["string", "null"]},
    },
}


class _Cited(BaseModel):
    model_config = ConfigDict(extra="forbid")
    number: int
    evidence_id: str


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    markdown: str
    citations: list[_Cited]
    suggested_code: str | None = None


class AnswerLLMError(Exception):
    """The LLM gave no usable answer; `reason` is recorded as the fallback reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MarkdownStream:
    """Decode the `"markdown"` string of a JSON object as its characters arrive (for streaming)."""

    def __init__(self) -> None:
        self.buf = ""
        self.pos = -1
        self.done = False

    def feed(self, piece: str) -> str:
        """Add raw JSON text; return the newly decoded Markdown characters."""
        self.buf += piece
        if self.done:
            return ""
        if self.pos < 0:
            key = self.buf.find('"markdown"')
            colon = self.buf.find(":", key) if key >= 0 else -1
            quote = self.buf.find('"', colon) if colon >= 0 else -1
            if quote < 0:
                return ""
            self.pos = quote + 1
        out = []
        while self.pos < len(self.buf):
            c = self.buf[self.pos]
            if c == '"':
                self.done = True
                break
            if c != "\\":
                out.append(c)
                self.pos += 1
                continue
            if self.pos + 1 >= len(self.buf):
                break
            e = self.buf[self.pos + 1]
            if e == "u":
                if self.pos + 6 > len(self.buf):
                    break
                try:
                    out.append(chr(int(self.buf[self.pos + 2 : self.pos + 6], 16)))
                except ValueError:
                    out.append("?")
                self.pos += 6
                continue
            out.append({"n": "\n", "t": "\t", "r": "", "b": "", "f": ""}.get(e, e))
            self.pos += 2
        return "".join(out)


def numbered_evidence(inp: AnswerInput, limit: int = 40) -> list[dict[str, Any]]:
    """The evidence the model may cite, numbered (docs with their first sentence)."""
    out = []
    for n, ref in enumerate(list(inp.evidence.values())[:limit], 1):
        item = {"number": n, "evidence_id": ref.evidence_id, "table": ref.table, "title": ref.title,
                "url": ref.url}
        if ref.symbol:
            item["symbol"] = ref.symbol
        if ref.source_api:
            item["old_api"], item["new_api"] = ref.source_api, ref.target_api
        gist = docs_gist(ref) if ref.content else ""
        if gist:
            item["docs"] = gist
        out.append(item)
    return out


def answer_request(inp: AnswerInput, base_code: str | None) -> dict[str, Any]:
    """The JSON the model receives: question, verdict, judged chunks (with code), evidence, history."""
    chunks = []
    for c in inp.chunks[:40]:
        j = c.get("judgment") or {}
        chunks.append({
            "where": where(c), "kind": c.get("chunk_kind"), "code": inp.codes.get(c["chunk_id"], "")[:2000],
            "version_signal": j.get("version_signal"), "label": j.get("label"),
            "rationale": j.get("rationale"), "evidence_ids": j.get("evidence_ids") or [],
            "changes": [{k: ch.get(k) for k in ("old", "new", "note", "evidence_id")}
                        for ch in j.get("suggested_changes") or []],
        })
    v = inp.verdict
    return {
        "question": inp.prompt, "task_type": inp.task_type, "language": inp.language,
        "verdict": {"label": v.get("label"), "counts": v.get("counts"), "migration_required": v.get("migration_required")},
        "project_dimension": inp.dimension, "chunks": chunks, "evidence": numbered_evidence(inp),
        "base_suggested_code": base_code, "conversation": [{"role": r, "text": t[:1500]} for r, t in inp.history[-6:]],
    }


def messages_for(inp: AnswerInput, base_code: str | None) -> list[dict[str, str]]:
    """System + user messages of one answer request."""
    system = ANSWER_SYSTEM_PROMPT.format(task_type=inp.task_type, language_name=LANGUAGE_NAMES.get(inp.language, "English"),
                                         dimension=inp.dimension)
    user = ANSWER_USER_PROMPT.format(request_json=json.dumps(answer_request(inp, base_code), ensure_ascii=False))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_reply(content: str, inp: AnswerInput, model: str) -> Answer:
    """The model's JSON as an `Answer` (citations as given: the validator checks them)."""
    try:
        reply = _Reply.model_validate(json.loads(content))
    except ValueError as exc:
        msg = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise AnswerLLMError(f"invalid_json: {msg[:160]}") from exc
    refs = inp.evidence
    citations = []
    for c in reply.citations:
        ref = refs.get(c.evidence_id)
        if c.number < 1:
            continue
        citations.append(Citation(number=c.number, evidence_id=c.evidence_id, title=ref.title if ref else "",
                                  url=anchor_url(c.evidence_id, ref.url) if ref else None,
                                  table=ref.table if ref else "",
                                  doc_version=ref.doc_version if ref and ref.table == "docs_chunks" else None))
    return Answer(markdown=reply.markdown.strip(), language=inp.language, task_type=inp.task_type,
                  citations=citations, suggested_code=(reply.suggested_code or None), writer="llm", model=model)


class LLMAnswerWriter:
    """Streams one answer from the configured endpoint."""

    def __init__(self, settings: Settings) -> None:
        if not settings.llm_base_url:
            raise ValueError("the LLM answer needs GODOT_RAG_LLM_BASE_URL")
        self.settings = settings
        self.model = settings.llm_model

    async def write(self, inp: AnswerInput, *, base_code: str | None, on_token: TokenSink | None = None) -> Answer:
        """The parsed (not yet validated) answer; raises AnswerLLMError with the fallback reason."""
        s = self.settings
        client = openai.AsyncOpenAI(base_url=s.llm_base_url, api_key=s.llm_api_key, timeout=s.llm_timeout,
                                    max_retries=0)
        try:
            for _ in range(2):  # a second pass only when the endpoint refused chat_template_kwargs
                extra = template_kwargs_body(s, enable_thinking=s.answer_thinking)
                try:
                    content = await self._stream(client, inp, base_code, extra, on_token)
                    return parse_reply(content, inp, self.model)
                except openai.APIStatusError as exc:
                    if extra and note_refusal(s, exc):
                        continue
                    raise AnswerLLMError(f"endpoint_error: HTTP {exc.status_code}") from exc
            raise AnswerLLMError("endpoint_error: chat_template_kwargs refused twice")
        except openai.APITimeoutError as exc:
            raise AnswerLLMError(f"timeout after {s.llm_timeout:g}s") from exc
        except (openai.APIConnectionError, openai.RateLimitError) as exc:
            raise AnswerLLMError(f"endpoint_error: {type(exc).__name__}") from exc
        finally:
            await client.close()

    async def _stream(self, client: openai.AsyncOpenAI, inp: AnswerInput, base_code: str | None,
                      extra: dict[str, Any], on_token: TokenSink | None) -> str:
        stream = await client.chat.completions.create(
            model=self.model, messages=messages_for(inp, base_code), temperature=0.2,
            max_tokens=self.settings.answer_max_tokens, stream=True,
            response_format={"type": "json_schema", "json_schema": {"name": "answer", "schema": ANSWER_SCHEMA,
                                                                    "strict": True}},
            extra_body=extra or None,
        )
        raw: list[str] = []
        md = MarkdownStream()
        async for event in stream:
            if not event.choices:
                continue
            piece = event.choices[0].delta.content or ""  # reasoning (delta.reasoning_content) is not shown
            if not piece:
                continue
            raw.append(piece)
            text = md.feed(piece)
            if text and on_token is not None:
                await on_token(text)
        return "".join(raw)
