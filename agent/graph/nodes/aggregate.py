"""aggregate: the project verdict from the stored chunk signals, once every chunk is done."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.events import ProgressEvent
from agent.graph.state import AnalysisState
from agent.graph.verdict import compute_verdict


async def aggregate(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Compute and store the verdict; the run fails (saying what is missing) if a chunk is not done."""
    ctx = runtime.context
    run_id = state.run_id
    rows = await ctx.store.chunk_rows(run_id)
    files = await ctx.store.files(run_id)
    verdict = compute_verdict(rows, files, state.project_signals)
    status = "completed" if verdict["complete"] else "failed"
    detail = "" if verdict["complete"] else f"{len(verdict['missing'])} chunk(s) not done; resume to retry them"
    await ctx.store.update_run(run_id, status=status, status_detail=detail, verdict=verdict)
    done = sum(1 for r in rows if r["status"] == "done")
    await ctx.emit(
        ProgressEvent(
            run_id=run_id, kind="run_finished", done=done, total=len(rows), status=status,
            message=f"{verdict['label']}: {verdict['summary'].splitlines()[0]}",
        )
    )
    return {}
