"""The llm_judgment_request, built in one place (first version: signature)."""

from __future__ import annotations

from agent.judge.base import JudgeInput


def build_llm_judgment_request(inp: JudgeInput) -> dict:
    """The JSON the LLM receives for one chunk."""
    raise NotImplementedError
