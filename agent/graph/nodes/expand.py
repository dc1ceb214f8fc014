"""expand: the project's files as stored at intake (no re-fetch), and the project.godot signal."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.events import ProgressEvent
from agent.graph.state import AnalysisState
from agent.graph.verdict import project_signals
from agent.intake.expand import files_summary


async def expand(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Load the expansion from the score DB, record project.godot's signal, announce the files."""
    ctx = runtime.context
    expansion = await ctx.store.load_expansion(state.run_id)
    signals = project_signals(expansion)
    await ctx.store.update_run(state.run_id, project_signals=signals)
    included = expansion.included
    await ctx.emit(
        ProgressEvent(
            run_id=state.run_id, kind="files", done=0, total=0,
            message=files_summary(expansion),
        )
    )
    return {"project_signals": signals}
