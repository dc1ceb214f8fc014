"""Pure routing functions of the graph (unit-testable without a database)."""

from __future__ import annotations

from typing import Literal

from agent.graph.state import AnalysisState


def next_window(state: AnalysisState) -> Literal["retrieve", "aggregate"]:
    """Loop over windows of chunks while any is pending, then aggregate."""
    return "retrieve" if state.remaining > 0 else "aggregate"
