"""Judges (evidence, llm) and the validator that checks every judgment."""

from agent.judge.base import Judge, JudgeInput, JudgeOutcome, ProjectDimension
from agent.judge.dimension import detect_project_dimension
from agent.judge.factory import make_judge
from agent.judge.validate import ValidationResult, judge_and_validate, validate

__all__ = [
    "Judge", "JudgeInput", "JudgeOutcome", "ProjectDimension", "ValidationResult",
    "detect_project_dimension", "judge_and_validate", "make_judge", "validate",
]
