"""Pure routing functions of the graph (unit-testable without a database)."""

from __future__ import annotations

from typing import Literal

from agent.graph.state import AnalysisState


def next_window(state: AnalysisState) -> Literal["analyze", "aggregate"]:
    """Loop over windows of chunks while any is pending, then aggregate."""
    return "analyze" if state.remaining > 0 else "aggregate"
