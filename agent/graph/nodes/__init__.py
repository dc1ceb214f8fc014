"""The graph's nodes, one module each; `analyze` runs the per-chunk loop of agent.analysis.chunk."""
