"""retrieve: start the next window of pending chunks and fetch evidence for each.

The chunk's text and cues are searched; its trace (path, ids, lines) is split off first and
re-attached by the orchestrator, never sent to the retriever. Evidence bundles stay in the
run's memory (`GraphContext.found`); the state and its checkpoints only carry their ids.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.nodes.common import bounded_gather, chunk_event, error_text
from agent.graph.state import AnalysisState
from agent.models import Chunk
from agent.retrieve.query import build_retriever_query, check_transmission

log = logging.getLogger(__name__)


async def retrieve_chunk(ctx: GraphContext, state: AnalysisState, chunk: Chunk) -> dict[str, Any]:
    """Retrieve one chunk's evidence into `ctx.found`; returns its small state summary or {error}.

    Only the chunk's text and cues are searched; its trace (path, ids, lines) stays here.
    """
    try:
        query = build_retriever_query(state.prompt, chunk)
        t0 = time.perf_counter()
        bundle = await asyncio.to_thread(ctx.retriever.retrieve, query)
        ms = (time.perf_counter() - t0) * 1000
    except Exception as exc:  # recorded on the chunk as its failure reason, not swallowed
        log.exception("retrieval failed for %s", chunk.chunk_id)
        return {"error": f"retrieval: {error_text(exc)}"}
    ctx.found[chunk.chunk_id] = {"query": query, "bundle": bundle, "retrieval_ms": ms}
    return {"evidence_ids": sorted(bundle.ids()), "retrieval_ms": ms}


async def evidence_for(ctx: GraphContext, state: AnalysisState, chunk: Chunk) -> dict[str, Any]:
    """{query, bundle, retrieval_ms} of a chunk: from memory, or retrieved again after a resume."""
    if chunk.chunk_id not in ctx.found:
        summary = await retrieve_chunk(ctx, state, chunk)
        if "error" in summary:
            return summary
    return ctx.found[chunk.chunk_id]


def _summary(ctx: GraphContext, chunk_id: str) -> dict[str, Any]:
    found = ctx.found[chunk_id]
    return {"evidence_ids": sorted(found["bundle"].ids()), "retrieval_ms": found["retrieval_ms"]}


async def _retrieve_window(ctx: GraphContext, state: AnalysisState, chunks: list[Chunk]) -> list[dict[str, Any]]:
    """Evidence for a window: prefetched, or one batched embedding call, or per chunk if that fails."""
    missing = [c for c in chunks if c.chunk_id not in ctx.found]
    if missing:
        await retrieve_batch(ctx, state, missing)
    return [_summary(ctx, c.chunk_id) if c.chunk_id in ctx.found else await retrieve_chunk(ctx, state, c)
            for c in chunks]


async def prefetch_next(ctx: GraphContext, state: AnalysisState) -> None:
    """While the judge waits on its endpoint, fetch the next window's evidence (nothing is claimed)."""
    chunks = await ctx.store.peek_pending(state.run_id, ctx.window, skip=state.window)
    await retrieve_batch(ctx, state, [c for c in chunks if c.chunk_id not in ctx.found])


async def retrieve_batch(ctx: GraphContext, state: AnalysisState, chunks: list[Chunk]) -> list[dict[str, Any]]:
    """Several chunks: one batched embedding call (much cheaper on CPU); per chunk if the batch fails."""
    if len(chunks) < 2:
        return [await retrieve_chunk(ctx, state, c) for c in chunks]
    try:
        queries = [build_retriever_query(state.prompt, c) for c in chunks]
        t0 = time.perf_counter()
        bundles = await asyncio.to_thread(ctx.retriever.retrieve_many, queries)
        ms = (time.perf_counter() - t0) * 1000  # each chunk waited for the whole batch: that is its latency
    except Exception:  # isolate the chunk that breaks the batch; each failure is then recorded on its chunk
        log.exception("batched retrieval failed; retrieving one chunk at a time")
        return await bounded_gather((retrieve_chunk(ctx, state, c) for c in chunks), ctx.retrieval_concurrency)
    out = []
    for c, q, b in zip(chunks, queries, bundles, strict=True):
        ctx.found[c.chunk_id] = {"query": q, "bundle": b, "retrieval_ms": ms}
        out.append({"evidence_ids": sorted(b.ids()), "retrieval_ms": ms})
    return out


async def retrieve(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Claim the next pending chunks (processing, attempts+1) and retrieve their evidence."""
    ctx = runtime.context
    chunks = await ctx.store.claim_next(state.run_id, ctx.window)
    check_transmission(chunks, [c.chunk_id for c in chunks])  # order and ids, before anything is sent
    for c in chunks:
        await chunk_event(ctx, state.run_id, c, "processing", done=state.done, total=state.chunk_total)
    results = await _retrieve_window(ctx, state, chunks)
    return {
        "window": [c.chunk_id for c in chunks],
        "evidence": {c.chunk_id: r for c, r in zip(chunks, results, strict=True)},
        "outcomes": {},
    }
