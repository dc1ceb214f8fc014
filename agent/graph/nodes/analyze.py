"""analyze: take the next window of pending chunks through their whole trip (agent.analysis.chunk)."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.analysis.chunk import RunView, analyze_window
from agent.graph.context import GraphContext
from agent.graph.state import AnalysisState
from agent.intent import Intent


async def analyze(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Claim, retrieve, judge, validate and store one window of chunks; count what is left."""
    ctx = runtime.context
    run = RunView(
        run_id=state.run_id, project_id=state.project_id, prompt=state.prompt, intent=Intent(**state.intent),
        project_dimension=state.project_dimension, chunk_total=state.chunk_total,  # type: ignore[arg-type]
    )
    await analyze_window(ctx, run, done=state.done)
    progress = await ctx.store.progress(state.run_id)
    return {"done": progress["done"], "remaining": progress["pending"]}
