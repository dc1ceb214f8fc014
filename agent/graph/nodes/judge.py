"""judge: one judgment per chunk of the window, at most `window` judge calls at once.

Uses `judge_and_validate`, so an unusable LLM answer falls back to the evidence judge and
the fallback is recorded. A chunk already done in the score DB is never judged again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.nodes.common import as_dict, bounded_gather, error_text
from agent.graph.nodes.retrieve import evidence_for, prefetch_next
from agent.graph.state import AnalysisState
from agent.judge import JudgeInput, judge_and_validate
from agent.judge.project import ProjectContext, project_context_for
from agent.models import Chunk, EvidenceBundle
from agent.retrieve.query import split_trace

log = logging.getLogger(__name__)


def judge_input(state: AnalysisState, chunk: Chunk, bundle: EvidenceBundle,
                project: ProjectContext | None = None) -> JudgeInput:
    """The judge's input for one chunk: prompt, trace, chunk, evidence, project dimension and context."""
    return JudgeInput(
        prompt=state.prompt,
        trace=split_trace(chunk, project_id=state.project_id),
        chunk=chunk,
        evidence=bundle,
        project_dimension=state.project_dimension,  # type: ignore[arg-type]
        project=project,
    )


async def judge_chunk(ctx: GraphContext, state: AnalysisState, chunk: Chunk) -> dict[str, Any]:
    """The outcome of one chunk as a dict, or {error}."""
    if "error" in state.evidence.get(chunk.chunk_id, {}):
        return {"error": state.evidence[chunk.chunk_id]["error"]}
    found = await evidence_for(ctx, state, chunk)
    if "error" in found:
        return {"error": found["error"]}
    try:
        inp = judge_input(state, chunk, found["bundle"], await project_context_for(ctx, state.run_id))
        t0 = time.perf_counter()
        outcome = await judge_and_validate(ctx.judge, inp, fallback=ctx.fallback)
        ms = (time.perf_counter() - t0) * 1000
    except Exception as exc:  # recorded on the chunk as its failure reason, not swallowed
        log.exception("judging failed for %s", chunk.chunk_id)
        return {"error": f"judge: {error_text(exc)}"}
    return {**as_dict(outcome), "judge_ms": ms}


async def judge(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Judge every not-yet-done chunk of the window (re-started ones count a new attempt)."""
    ctx = runtime.context
    run_id = state.run_id
    # After a crash, resume puts in-flight chunks back to pending; starting them again here counts.
    await ctx.store.claim(run_id, state.window)
    chunks = await ctx.store.load_chunks(run_id, state.window, statuses=["processing"])  # done ones are skipped
    ahead = asyncio.create_task(prefetch_next(ctx, state)) if ctx.prefetch else None
    try:
        results = await bounded_gather((judge_chunk(ctx, state, c) for c in chunks), ctx.window)
    finally:
        if ahead is not None:
            await ahead  # an error there is logged per chunk; the next pass retrieves again
    return {"outcomes": {c.chunk_id: r for c, r in zip(chunks, results, strict=True)}}
