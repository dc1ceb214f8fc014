"""Typed graph state: only what the routers, the per-chunk loop and the aggregate read.

Small JSON values only: the score DB holds chunks, evidence and results, and is the
authority on which chunk is done (see agent.runs.store), so every checkpoint stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class AnalysisInput:
    """What starts a run: its id. The intake (request, files, texts) is already in the score DB."""

    run_id: str
    """The run (and LangGraph thread) id; every read and write is scoped by it."""


@dataclass(kw_only=True)
class AnalysisState(AnalysisInput):
    """The whole state of one analysis run."""

    project_id: str = ""
    """The analysed project's id (trace only, never searched)."""
    prompt: str = ""
    """The user's prompt (never parsed as code)."""
    intent: dict[str, Any] = field(default_factory=dict)
    """The intent node's `detect_intent(prompt)` (task_type, prompt_terms, language): every chunk's query uses it."""
    project_signals: dict[str, Any] = field(default_factory=dict)
    """project.godot config_version/features: strong evidence for the verdict (`verdict.decide_project`)."""
    project_dimension: str = "unknown"
    """2d | 3d | unknown, so suggestions match the project."""
    chunk_total: int = 0
    """Chunks of the whole project."""
    remaining: int = 0
    """Chunks still pending after the last pass (the loop router reads it)."""
    done: int = 0
    """Chunks done so far (from the DB)."""
