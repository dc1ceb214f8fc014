"""retrieve: start the next window of pending chunks and fetch evidence for each.

The chunk's text and cues are searched; its trace (path, ids, lines) is split off first and
re-attached by the orchestrator, never sent to the retriever.
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


async def retrieve_chunk(ctx: GraphContext, state: AnalysisState, project_id: str, chunk: Chunk) -> dict[str, Any]:
    """{query, bundle, retrieval_ms} for one chunk, or {error} (the chunk then fails with that reason).

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
    return {
        "query": query.model_dump(mode="json"),
        "bundle": bundle.model_dump(mode="json"),
        "retrieval_ms": ms,
    }


async def retrieve(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Claim the next pending chunks (processing, attempts+1) and retrieve their evidence."""
    ctx = runtime.context
    request = await ctx.store.load_request(state.run_id)
    chunks = await ctx.store.claim_next(state.run_id, ctx.window)
    check_transmission(chunks, [c.chunk_id for c in chunks])  # order and ids, before anything is sent
    for c in chunks:
        await chunk_event(ctx, state.run_id, c, "processing", done=state.done, total=state.chunk_total)
    results = await bounded_gather(
        (retrieve_chunk(ctx, state, request.project_id, c) for c in chunks), ctx.retrieval_concurrency
    )
    return {
        "window": [c.chunk_id for c in chunks],
        "evidence": {c.chunk_id: r for c, r in zip(chunks, results, strict=True)},
        "outcomes": {},
    }
