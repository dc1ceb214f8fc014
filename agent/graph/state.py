"""Typed graph state. Only small JSON values live here: the score DB holds chunks and results.

Keeping big records out of the state keeps every checkpoint small; the DB rows are the
authority on which chunk is done (see agent.runs.store).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from agent.graph.reducers import merge_dicts


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
    prompt_intent: dict[str, Any] | None = None
    """detect_intent(prompt) as a dict: task_type, prompt_terms, language."""
    project_signals: dict[str, Any] = field(default_factory=dict)
    """project.godot config_version/features: reported apart, never decides the verdict alone."""
    project_dimension: str = "unknown"
    """2d | 3d | unknown, so suggestions match the project."""
    file_count: int = 0
    """Included files."""
    chunk_total: int = 0
    """Chunks of the whole project."""
    window: list[str] = field(default_factory=list)
    """Chunk ids in flight in this pass of retrieve -> judge -> validate."""
    evidence: dict[str, dict[str, Any]] = field(default_factory=dict)
    """chunk_id -> {query, bundle, retrieval_ms} or {error} for the window."""
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)
    """chunk_id -> judged outcome (JudgeOutcome as a dict) or {error} for the window."""
    remaining: int = 0
    """Chunks still pending after the last pass (the loop router reads it)."""
    done: int = 0
    """Chunks done so far (from the DB)."""
    failures: Annotated[dict[str, str], merge_dicts] = field(default_factory=dict)
    """chunk_id -> why it failed in this run."""
    verdict: dict[str, Any] | None = None
    """The project verdict, set by aggregate."""
    status: str = "running"
    """running | completed | failed (interrupted runs never reach aggregate)."""
