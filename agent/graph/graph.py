"""The analysis graph: intent -> expand -> parse -> analyze* (one window of chunks a pass) -> aggregate -> answer.

Only wiring lives here. Compile it with an `AsyncPostgresSaver` keyed by `thread_id = run_id`
(see agent.graph.service); `build_graph(None)` compiles without checkpoints (bench baseline).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from agent.graph.context import GraphContext
from agent.graph.nodes.aggregate import aggregate
from agent.graph.nodes.analyze import analyze
from agent.graph.nodes.answer import answer
from agent.graph.nodes.expand import expand
from agent.graph.nodes.intent import intent
from agent.graph.nodes.parse import parse
from agent.graph.routers import next_window
from agent.graph.state import AnalysisInput, AnalysisState

GRAPH_NAME = "godot_rag_analysis"


def build_graph(checkpointer: Any = None):
    """The compiled graph, named, with the given checkpointer (or none)."""
    g = StateGraph(AnalysisState, context_schema=GraphContext, input_schema=AnalysisInput)
    g.add_node("intent", intent)
    g.add_node("expand", expand)
    g.add_node("parse", parse)
    g.add_node("analyze", analyze)
    g.add_node("aggregate", aggregate)
    g.add_node("answer", answer)
    g.add_edge(START, "intent")
    g.add_edge("intent", "expand")
    g.add_edge("expand", "parse")
    g.add_conditional_edges("parse", next_window, ["analyze", "aggregate"])
    g.add_conditional_edges("analyze", next_window, ["analyze", "aggregate"])
    g.add_edge("aggregate", "answer")
    g.add_edge("answer", END)
    return g.compile(checkpointer=checkpointer, name=GRAPH_NAME)
