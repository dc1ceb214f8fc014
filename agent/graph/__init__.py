"""The LangGraph pipeline: state, nodes, wiring (`graph.py`), the service every front door uses, the report."""
