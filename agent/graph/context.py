"""Run-time context of the graph: dependencies and tunables. Never checkpointed.

The service builds one per run; nodes receive it as `runtime.context`. Tunables carry a
description so the CLI and bench can show what they change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.graph.events import EventSink, ProgressEvent
from agent.runs import RunStore
from agent.settings import Settings


@dataclass(kw_only=True)
class GraphContext:
    """What a node may use besides the state."""

    settings: Settings
    """Infrastructure settings."""
    store: RunStore
    """The score DB."""
    retriever: Any
    """agent.retrieve.Retriever (sync; called through asyncio.to_thread)."""
    judge: Any
    """The judge for this run (agent.judge: evidence or llm; `judge_and_validate` owns the fallback)."""
    on_event: EventSink | None = None
    """Progress callback (CLI bar, UI, bot)."""
    window: int = field(default=4, metadata={"description": "chunks claimed per pass of the per-chunk loop"})
    """Chunks claimed per pass: their queries are embedded in one model call."""
    retrieval_concurrency: int = field(default=2, metadata={"description": "retrieval SQL statements at once"})
    """SQL retrievals at once in a pass, each on its own connection: Postgres runs them on other cores
    while the judge works (more than 2 only queue on 2 cores)."""

    async def emit(self, event: ProgressEvent) -> None:
        """Send an event to the sink, if any."""
        if self.on_event is not None:
            await self.on_event(event)
