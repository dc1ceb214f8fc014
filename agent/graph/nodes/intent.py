"""intent: what the user asks (version check, migration, explanation) and the prompt's search terms."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.graph.context import GraphContext
from agent.graph.state import AnalysisState
from agent.intent import detect_intent


async def intent(state: AnalysisState, *, config: RunnableConfig, runtime: Runtime[GraphContext]) -> dict[str, Any]:
    """Read the stored prompt and detect its intent; the prompt never reaches a parser."""
    store = runtime.context.store
    request = await store.load_request(state.run_id)
    found = asdict(detect_intent(request.prompt))
    await store.update_run(state.run_id, intent=found)
    return {"project_id": request.project_id, "prompt": request.prompt, "intent": found}
