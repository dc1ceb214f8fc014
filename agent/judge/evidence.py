"""Evidence judge (first version: signatures)."""

from __future__ import annotations

from agent.judge.base import JudgeInput, JudgeOutcome


class EvidenceJudge:
    """Offline, deterministic judge."""

    kind = "evidence"

    async def judge(self, inp: JudgeInput) -> JudgeOutcome:
        """Judge one chunk from AST facts and retrieved evidence."""
        raise NotImplementedError
