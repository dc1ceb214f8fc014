"""The answer step: a validated, cited reply to the user's real question, from a stored run.

`answer_run` reads the run (report, chunk texts, the docs text of the evidence), writes the answer
(the LLM when configured, else the template; see writer.py) and returns an `Answer`. The graph's
answer node stores it in the run, so the report carries it under the additive key `answer`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from agent.answer.check import InheritedProperties
from agent.answer.inputs import AnswerInput, answer_input, docs_ids, load_docs_contents
from agent.answer.llm import TokenSink
from agent.answer.model import Answer, Citation
from agent.answer.template import add_api_docs
from agent.answer.writer import write_answer
from agent.judge.project import knowledge_context
from agent.settings import Settings

__all__ = ["Answer", "AnswerInput", "Citation", "answer_run", "run_input", "write_answer"]


async def run_input(store: Any, report: Mapping[str, Any], *, prompt: str | None = None,
                    history: list[tuple[str, str]] | None = None, dimension: str | None = None) -> AnswerInput:
    """The `AnswerInput` of a stored run; `prompt` replaces the run's question (follow-ups)."""
    from agent.judge.dimension import detect_project_dimension

    run_id = report["run_id"]
    rows = await store.chunk_rows(run_id)
    codes = {r["chunk_id"]: r.get("code_text") or "" for r in rows}
    if dimension is None:
        dimension = detect_project_dimension(await store.load_chunks(run_id, list(codes)))
    contents = await load_docs_contents(store.pool, docs_ids(list(report.get("chunks") or [])))
    source = await store.file_text(run_id) if report.get("source_origin") == "pasted_snippet" else None
    return answer_input(report, codes=codes, contents=contents, dimension=dimension, history=history,
                        prompt=prompt, source_text=source)


async def answer_run(store: Any, report: Mapping[str, Any], *, settings: Settings, retriever: Any,
                     prompt: str | None = None, history: list[tuple[str, str]] | None = None,
                     dimension: str | None = None, on_token: TokenSink | None = None) -> Answer:
    """The validated answer for a stored run (see module docstring)."""
    inp = await run_input(store, report, prompt=prompt, history=history, dimension=dimension)
    if retriever is not None and inp.task_type in ("explain", "general"):
        await asyncio.to_thread(add_api_docs, inp, retriever.retrieve)
    props = InheritedProperties(retriever.pool) if retriever is not None else None
    kb = await asyncio.to_thread(knowledge_context, retriever) if retriever is not None else None
    return await write_answer(inp, settings=settings, retrieve=retriever.retrieve if retriever is not None else None,
                              props=props, on_token=on_token, kb=kb)
