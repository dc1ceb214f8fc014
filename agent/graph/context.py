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
    """The judge for this run (agent.judge: evidence or llm)."""
    fallback: Any = None
    """Judge used when the LLM answer is unusable (EvidenceJudge class or instance)."""
    on_event: EventSink | None = None
    """Progress callback (CLI bar, UI, bot)."""
    window: int = field(default=4, metadata={"description": "chunks started per pass of the per-chunk loop"})
    """Chunks started per pass; also the bound on concurrent judge calls."""
    retrieval_concurrency: int = field(default=1, metadata={"description": "retrievals at once (CPU bound)"})
    """Retrievals run at once in a pass (the embedder is locked and CPU bound: more only queue)."""

    prefetch: bool = field(default=False, metadata={"description": "retrieve the next window while judging"})
    """Retrieve the next window's evidence while the judge waits (worth it for the LLM judge)."""
    found: dict[str, dict[str, Any]] = field(default_factory=dict)
    """chunk_id -> {query, bundle, retrieval_ms} of the window, kept in memory and out of the
    checkpoints (a resumed process re-retrieves: retrieval is deterministic)."""

    async def emit(self, event: ProgressEvent) -> None:
        """Send an event to the sink, if any."""
        if self.on_event is not None:
            await self.on_event(event)
