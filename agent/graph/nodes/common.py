"""Small helpers shared by the nodes: bounded gather, record conversion, chunk events."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Iterable
from typing import Any, TypeVar

from agent.graph.context import GraphContext
from agent.graph.events import ProgressEvent
from agent.models import Chunk

T = TypeVar("T")


async def bounded_gather(aws: Iterable[Awaitable[T]], limit: int) -> list[T]:
    """asyncio.gather with at most `limit` awaitables running at once, results in order."""
    sem = asyncio.Semaphore(max(1, limit))

    async def run(aw: Awaitable[T]) -> T:
        async with sem:
            return await aw

    return await asyncio.gather(*(run(a) for a in aws))


def as_dict(value: Any) -> dict[str, Any]:
    """A pydantic model, dataclass or dict as a plain JSON-able dict."""
    if value is None:
        return {}
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    raise TypeError(f"cannot convert {type(value).__name__} to a dict")


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return as_dict(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


async def chunk_event(
    ctx: GraphContext, run_id: str, chunk: Chunk, status: str, *, done: int, total: int,
    trace: dict | None = None, message: str | None = None,
) -> None:
    """Emit one chunk_status event."""
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
