"""Helpers shared by the nodes and the per-chunk loop: chunk events and error text."""

from __future__ import annotations

from agent.graph.context import GraphContext
from agent.graph.events import ProgressEvent
from agent.models import Chunk


async def chunk_event(
    ctx: GraphContext, run_id: str, chunk: Chunk, status: str, *, done: int, total: int,
    trace: dict | None = None, message: str | None = None,
) -> None:
    """Emit one chunk_status event (nothing when no one listens)."""
    if ctx.on_event is None:
        return
    await ctx.emit(
        ProgressEvent(
            run_id=run_id, kind="chunk_status", done=done, total=total, chunk_id=chunk.chunk_id,
            chunk_order=chunk.chunk_order, source_file=chunk.source_file, start_line=chunk.span.start_line,
            end_line=chunk.span.end_line, status=status, trace=trace, message=message,
        )
    )


def error_text(exc: BaseException) -> str:
    """`Type: message`, short enough for a DB column and a UI line."""
    return f"{type(exc).__name__}: {exc}"[:1000]
