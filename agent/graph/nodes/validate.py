"""validate: the last gate on every judgment, then the durable write of the chunk's result.

Once `store_result` commits, the chunk is done for good: later passes, re-executed steps and
resumes skip it. A rejected or errored chunk is marked failed with the reason.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.nodes.common import chunk_event
from agent.graph.nodes.judge import judge_input
from agent.graph.nodes.retrieve import evidence_for
from agent.graph.report import evidence_view
from agent.graph.state import AnalysisState
from agent.judge import validate as validate_judgment
from agent.models import Chunk, EvidenceBundle, Judgment, RetrieverQuery


def chunk_result(found: dict[str, Any], outcome: dict[str, Any], judgment: Judgment) -> dict[str, Any]:
    """The row stored in chunk_results (and the trace sent with the `done` event)."""
    bundle: EvidenceBundle = found["bundle"]
    query: RetrieverQuery = found["query"]
    return {
        "query": query.model_dump(mode="json", exclude={"raw_chunk_text"}),
        "query_terms": list(query.query_terms),
        "evidence": [evidence_view(h) for h in bundle.all_hits()],
        "retrieval_scores": bundle.retrieval_scores,
        "judgment": judgment.model_dump(mode="json"),
        "judge_kind": outcome.get("judge_kind"),
        "model": outcome.get("model"),
        "prompt_version": outcome.get("prompt_version"),
        "fallback_reason": outcome.get("fallback_reason"),
        "validation_failures": outcome.get("validation_failures") or [],
        "llm_attempts": outcome.get("llm_attempts") or 0,
        "cached": bool(outcome.get("cached")),
        "retrieval_ms": found.get("retrieval_ms"),
        "judge_ms": outcome.get("judge_ms"),
    }


async def _finish_chunk(
    ctx: GraphContext, state: AnalysisState, chunk: Chunk
) -> tuple[bool, str | None, dict[str, Any] | None]:
    """(stored, failure reason, trace) for one chunk of the window."""
    outcome = state.outcomes.get(chunk.chunk_id) or {"error": "not judged"}
    if "error" in outcome:
        return False, outcome["error"], None
    found = await evidence_for(ctx, state, chunk)
    if "error" in found:
        return False, found["error"], None
    checked = validate_judgment(outcome["judgment"], judge_input(state, chunk, found["bundle"]))
    if not checked.ok and not checked.downgraded:
        return False, "validation: " + "; ".join(checked.failures), None
    result = chunk_result(found, outcome, checked.judgment)
    if checked.failures:
        result["validation_failures"] = [*result["validation_failures"], *checked.failures]
    stored = await ctx.store.store_result(state.run_id, chunk.chunk_id, result)
    trace = {
        "chunk_text": chunk.code_text,
        "query_terms": result["query_terms"],
        "evidence": result["evidence"],
        "judgment": result["judgment"],
    }
    return stored, None, trace


async def validate(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Validate and store each judged chunk of the window; count what is left."""
    ctx = runtime.context
    run_id = state.run_id
    chunks = await ctx.store.load_chunks(
        run_id, state.window, statuses=["pending", "processing", "stopped", "waiting", "failed"]
    )  # a re-executed step never touches a chunk already done
    failures: dict[str, str] = {}
    done = state.done
    for chunk in chunks:
        stored, reason, trace = await _finish_chunk(ctx, state, chunk)
        ctx.found.pop(chunk.chunk_id, None)
        if reason is not None:
            failures[chunk.chunk_id] = reason
            await ctx.store.mark_failed(run_id, chunk.chunk_id, reason)
            await chunk_event(ctx, run_id, chunk, "failed", done=done, total=state.chunk_total, message=reason)
            continue
        done += int(stored)
        await chunk_event(ctx, run_id, chunk, "done", done=done, total=state.chunk_total, trace=trace)
    progress = await ctx.store.progress(run_id)
    return {
        "window": [],
        "evidence": {},
        "outcomes": {},
        "failures": failures,
        "done": progress["done"],
        "remaining": progress["pending"],
    }
