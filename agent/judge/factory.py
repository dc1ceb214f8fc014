"""Pick the configured judge."""

from __future__ import annotations

from agent.judge.base import Judge
from agent.settings import Settings


def make_judge(settings: Settings, kind: str | None = None, *, cache_conn_factory=None) -> Judge:
    """`evidence` (default, offline) or `llm` (`judge_and_validate` falls back to evidence)."""
    kind = kind or settings.judge
    if kind == "evidence":
        from agent.judge.evidence import EvidenceJudge

        return EvidenceJudge()
    if kind == "llm":
        from agent.judge.llm import LLMJudge

        return LLMJudge(settings, cache_conn_factory=cache_conn_factory)
    raise ValueError(f"unknown judge {kind!r}: expected 'evidence' or 'llm'")
