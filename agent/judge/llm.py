"""LLM judge (first version: signatures)."""

from __future__ import annotations

from agent.judge.base import JudgeInput, JudgeOutcome
from agent.judge.evidence import EvidenceJudge
from agent.settings import Settings


class LLMJudge:
    """OpenAI-compatible chat endpoint; falls back to the evidence judge."""

    kind = "llm"

    def __init__(self, settings: Settings, *, fallback: EvidenceJudge, cache_conn_factory=None):
        self.settings = settings
        self.fallback = fallback
        self.cache_conn_factory = cache_conn_factory

    async def judge(self, inp: JudgeInput) -> JudgeOutcome:
        """Judge one chunk with the LLM."""
        raise NotImplementedError
