"""The per-chunk unit of work (`chunk.py`): what the graph's `analyze` node schedules."""
