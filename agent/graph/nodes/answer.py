"""answer: after aggregate, reply to the prompt's intent with a validated, cited answer, stored in the run."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.events import ProgressEvent
from agent.graph.report import build_report
from agent.graph.state import AnalysisState

log = logging.getLogger(__name__)

_FLUSH_CHARS = 32
"""Streamed tokens go out in pieces of about this many characters (one UI update each)."""


async def _migration(ctx: GraphContext, run_id: str, verdict: dict[str, Any]) -> dict[str, Any] | None:
    """The validated Godot 4 form of the run's files (`agent.migrate`), when any chunk was judged Godot 3."""
    from agent.intake.raw import with_shaders
    from agent.judge.project import knowledge_context
    from agent.migrate import migrate_files

    if not (verdict.get("counts") or {}).get("godot3") or ctx.retriever is None:
        return None
    try:
        files = with_shaders((await ctx.store.load_expansion(run_id)).texts(), await ctx.store.load_raw(run_id))
        kb = await asyncio.to_thread(knowledge_context, ctx.retriever)
        return (await asyncio.to_thread(migrate_files, files, kb)).model_dump(mode="json")
    except Exception:  # the verdict stands without a migration
        log.exception("migration for run %s failed; the report goes out without one", run_id)
        return None


async def answer(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Write the answer of a completed run (streamed as `answer_token` events) and store it with the verdict."""
    from agent.answer import answer_run

    ctx = runtime.context
    run_id = state.run_id
    run = await ctx.store.get_run(run_id) or {}
    if run.get("status") != "completed" or not run.get("verdict"):  # aggregate stored both
        return {}
    if "migration" not in run["verdict"]:
        migration = await _migration(ctx, run_id, run["verdict"])
        if migration is not None:
            run["verdict"] = {**run["verdict"], "migration": migration}
            await ctx.store.update_run(run_id, verdict=run["verdict"])
    report = (await build_report(ctx.store, run_id, live=False)).to_dict()
    total = report["progress"]["total"]
    pending: list[str] = []

    async def flush() -> None:
        if pending:
            text = "".join(pending)
            pending.clear()
            await ctx.emit(ProgressEvent(run_id=run_id, kind="answer_token", done=total, total=total, message=text))

    async def on_token(text: str) -> None:
        pending.append(text)
        if sum(map(len, pending)) >= _FLUSH_CHARS or "\n" in text:
            await flush()

    try:
        result = await answer_run(ctx.store, report, settings=ctx.settings, retriever=ctx.retriever,
                                  dimension=state.project_dimension, on_token=on_token)
    except Exception:  # the verdict is stored and stands: a failed answer must not turn the run into a failure
        log.exception("answer for run %s failed; the report goes out without one", run_id)
        return {}
    await flush()
    await ctx.store.update_run(run_id, verdict={**run["verdict"], "answer": result.model_dump()})
    await ctx.emit(ProgressEvent(run_id=run_id, kind="answer", done=total, total=total, status=result.writer,
                                 message=result.markdown))
    return {}
