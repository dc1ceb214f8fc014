"""Progress events streamed to the CLI, the web UI and the Discord bot while a run works."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

EventKind = Literal["run_started", "files", "chunk_status", "run_finished", "answer_token", "answer"]


@dataclass(frozen=True)
class ProgressEvent:
    """One thing that happened in a run; `done`/`total` are the run's chunk counts at that moment."""

    run_id: str
    kind: EventKind
    done: int
    total: int
    chunk_id: str | None = None
    chunk_order: int | None = None
    source_file: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    status: str | None = None
    """pending | processing | done | failed | stopped | waiting (chunk_status events)."""
    trace: dict | None = None
    """On done: {"chunk_text", "query_terms", "evidence": [...], "judgment": {...}} as in the CLI JSON."""
    message: str | None = None


EventSink = Callable[[ProgressEvent], Awaitable[None]]
