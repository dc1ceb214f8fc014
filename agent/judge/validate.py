"""Validator (first version: signatures)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.judge.base import Judge, JudgeInput, JudgeOutcome
from agent.judge.dimension import detect_project_dimension
from agent.judge.factory import make_judge
from agent.models import Judgment

__all__ = ["ValidationResult", "validate", "judge_and_validate", "make_judge", "detect_project_dimension"]


@dataclass
class ValidationResult:
    """Outcome of validating one judgment."""

    ok: bool
    failures: list[str]
    judgment: Judgment
    downgraded: bool = field(default=False)


def validate(judgment: Judgment | dict | str, inp: JudgeInput) -> ValidationResult:
    """Check one judgment against the rules."""
    raise NotImplementedError


async def judge_and_validate(judge: Judge, inp: JudgeInput, *, fallback) -> JudgeOutcome:
    """Judge then validate."""
    raise NotImplementedError
