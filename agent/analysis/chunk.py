"""One chunk's whole trip: claim -> retrieve once -> judge -> validate once -> store.

`analyze_window` is what the graph's `analyze` node runs once per pass: it claims the next
pending chunks of the run (processing, attempts + 1), embeds their queries in one pass off the
event loop (each query alone, so a chunk's evidence never depends on its window), and takes
each chunk through `analyze_chunk`. Once `store_result` commits, the chunk is done for good: a later
pass, a re-executed step or a resume never judges it again. A chunk whose retrieval or judge
raises is marked failed with the reason, and the run goes on.

The chunk's text and cues are searched; its trace (path, ids, lines) is split off and never
sent to the retriever (`build_retriever_query`, `check_transmission`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from agent.graph.context import GraphContext
from agent.graph.nodes.common import chunk_event, error_text
from agent.intent import Intent
from agent.judge import JudgeInput, JudgeOutcome, ProjectDimension, judge_and_validate
from agent.judge.project import ProjectContext, project_context_for
from agent.models import Chunk, EvidenceBundle, RetrieverQuery
from agent.graph.report import evidence_view
from agent.retrieve.query import build_retriever_query, check_transmission, split_trace

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class RunView:
    """What a chunk needs to know about its run (read from the graph state)."""

    run_id: str
    project_id: str
    prompt: str
    intent: Intent
    """The intent node's reading of the prompt; its cue terms go into every chunk's query."""
    project_dimension: ProjectDimension
    chunk_total: int


@dataclass(kw_only=True)
class Retrieved:
    """One chunk's query and the evidence found for it."""

    query: RetrieverQuery
    bundle: EvidenceBundle
    retrieval_ms: float
    """This chunk's SQL time plus its share of the window's embedding call."""


@dataclass
class _Tally:
    """Chunks done so far in the run, for the progress events."""

    done: int


def judge_input(
    run: RunView, chunk: Chunk, bundle: EvidenceBundle, project: ProjectContext | None = None
) -> JudgeInput:
    """The judge's input for one chunk (the only place one is built)."""
    return JudgeInput(
        prompt=run.prompt,
        trace=split_trace(chunk, project_id=run.project_id),
        chunk=chunk,
        evidence=bundle,
        project_dimension=run.project_dimension,
        project=project,
    )


def chunk_result(found: Retrieved, outcome: JudgeOutcome, judge_ms: float) -> dict[str, Any]:
    """The row stored in chunk_results (its evidence is also sent with the `done` event)."""
    return {
        "query": found.query.model_dump(mode="json", exclude={"raw_chunk_text"}),
        "query_terms": list(found.query.query_terms),
        "evidence": [evidence_view(h) for h in (outcome.evidence or found.bundle).all_hits()],
        "retrieval_scores": (outcome.evidence or found.bundle).retrieval_scores,
        "judgment": outcome.judgment.model_dump(mode="json"),
        "judge_kind": outcome.judge_kind,
        "model": outcome.model,
        "prompt_version": outcome.prompt_version,
        "fallback_reason": outcome.fallback_reason,
        "validation_failures": list(outcome.validation_failures),
        "llm_attempts": outcome.llm_attempts,
        "cached": outcome.cached,
        "retrieval_ms": found.retrieval_ms,
        "judge_ms": judge_ms,
    }


async def analyze_window(ctx: GraphContext, run: RunView, *, done: int) -> None:
    """Claim up to `ctx.window` pending chunks and take each through `analyze_chunk`.

    The window's retrievals are queued at once on `ctx.retrieval_concurrency` worker threads, each
    statement on its own pooled connection (Postgres runs them on other cores); a thread takes the
    next one as soon as it is free, whatever the event loop is doing. The evidence judge is CPU
    bound, so its chunks are then judged and stored one after another, in order, while the later
    chunks' SQL still runs; LLM chunks run side by side (the judge bounds its own calls).
    """
    chunks = await ctx.store.claim_next(run.run_id, ctx.window)
    check_transmission(chunks, [c.chunk_id for c in chunks])  # order and ids, before anything is sent
    tally = _Tally(done)
    for c in chunks:
        await chunk_event(ctx, run.run_id, c, "processing", done=tally.done, total=run.chunk_total)
    queries = [build_retriever_query(run.prompt, c, intent=run.intent) for c in chunks]
    project = await project_context_for(ctx, run.run_id) if chunks else None
    vectors, embed_ms = await _embed(ctx, queries)
    share = embed_ms / max(1, len(chunks))
    sql = ThreadPoolExecutor(max_workers=max(1, ctx.retrieval_concurrency), thread_name_prefix="retrieve")
    loop = asyncio.get_running_loop()
    found = [loop.run_in_executor(sql, retrieve_chunk, ctx, q, v, share)
             for q, v in zip(queries, vectors, strict=True)]
    try:
        if ctx.judge.kind == "llm":
            await asyncio.gather(*(analyze_chunk(ctx, run, c, f, tally=tally, project=project)
                                   for c, f in zip(chunks, found, strict=True)))
        else:
            for c, f in zip(chunks, found, strict=True):
                await analyze_chunk(ctx, run, c, f, tally=tally, project=project)
    finally:  # a window cut short (a cancelled run): queued retrievals never start, at most the
        sql.shutdown(wait=False, cancel_futures=True)  # running ones finish on their threads
        for f in found:
            if f.done() and not f.cancelled():
                f.exception()  # read, so a failure nobody awaited is not logged as lost


def retrieve_chunk(ctx: GraphContext, query: RetrieverQuery, vector: Any, share: float) -> Retrieved:
    """One chunk's evidence: the hybrid SQL, on a retrieval thread, timed there (not by the event loop)."""
    t0 = time.perf_counter()
    bundle = ctx.retriever.retrieve(query, vector=vector)
    return Retrieved(query=query, bundle=bundle, retrieval_ms=share + (time.perf_counter() - t0) * 1000)


async def analyze_chunk(
    ctx: GraphContext, run: RunView, chunk: Chunk, retrieval: asyncio.Future[Retrieved], *,
    tally: _Tally, project: ProjectContext | None = None,
) -> None:
    """Its one retrieval awaited, judge and validate once, store: one claimed chunk, start to finish."""
    try:
        found = await retrieval
    except Exception as exc:  # recorded on the chunk as its failure reason, not swallowed
        log.exception("retrieval failed for %s", chunk.chunk_id)
        return await _fail(ctx, run, chunk, f"retrieval: {error_text(exc)}", tally)
    try:
        t0 = time.perf_counter()
        outcome = await judge_and_validate(ctx.judge, judge_input(run, chunk, found.bundle, project))
        judge_ms = (time.perf_counter() - t0) * 1000
    except Exception as exc:  # recorded on the chunk as its failure reason, not swallowed
        log.exception("judging failed for %s", chunk.chunk_id)
        return await _fail(ctx, run, chunk, f"judge: {error_text(exc)}", tally)
    result = chunk_result(found, outcome, judge_ms)
    tally.done += int(await ctx.store.store_result(run.run_id, chunk.chunk_id, result))
    trace = {"chunk_text": chunk.code_text, "query_terms": result["query_terms"], "evidence": result["evidence"],
             "judgment": result["judgment"]}
    await chunk_event(ctx, run.run_id, chunk, "done", done=tally.done, total=run.chunk_total, trace=trace)


async def _embed(ctx: GraphContext, queries: list[RetrieverQuery]) -> tuple[list[Any], float]:
    """One model call for the window's query vectors; on failure each chunk embeds its own."""
    if not queries:
        return [], 0.0
    try:
        t0 = time.perf_counter()
        vectors = await asyncio.to_thread(ctx.retriever.embed_queries, queries)
        return list(vectors), (time.perf_counter() - t0) * 1000
    except Exception:  # each chunk then embeds (and fails, if it must) on its own
        log.exception("batched query embedding failed; embedding one chunk at a time")
        return [None] * len(queries), 0.0


async def _fail(ctx: GraphContext, run: RunView, chunk: Chunk, reason: str, tally: _Tally) -> None:
    await ctx.store.mark_failed(run.run_id, chunk.chunk_id, reason)
    await chunk_event(ctx, run.run_id, chunk, "failed", done=tally.done, total=run.chunk_total, message=reason)
