"""parse: cut every included file into chunks (AST for .gd, direct for the rest) and store them."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.nodes.common import chunk_event
from agent.graph.state import AnalysisState
from agent.judge import detect_project_dimension
from agent.parse import chunk_project
from agent.retrieve.query import check_transmission


async def parse(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Chunk the project and insert the chunks as pending (idempotent: a re-run keeps statuses)."""
    store = runtime.context.store
    request = await store.load_request(state.run_id)
    expansion = await store.load_expansion(state.run_id)
    chunks = await asyncio.to_thread(chunk_project, expansion, project_id=request.project_id)
    # order, ids, file hashes and line ranges must check out before any chunk is searched
    check_transmission(chunks, [c.chunk_id for c in chunks], expansion)
    await store.save_chunks(state.run_id, chunks)
    progress = await store.progress(state.run_id)
    if runtime.context.on_event is not None:  # the full list up front, so a UI can show what waits
        statuses = await store.statuses(state.run_id)
        for c in chunks:
            status = statuses.get(c.chunk_id, "pending")
            await chunk_event(runtime.context, state.run_id, c, "waiting" if status == "pending" else status,
                              done=progress["done"], total=len(chunks))
    return {
        "chunk_total": len(chunks),
        "project_dimension": detect_project_dimension(chunks),
        "remaining": await store.remaining(state.run_id),
        "done": progress["done"],
    }
