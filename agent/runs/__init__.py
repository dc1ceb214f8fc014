"""The score DB (runs, files, chunks, per-chunk results) used by the analysis graph."""

from agent.runs.store import CHUNK_STATUSES, RUN_STATUSES, RunExistsError, RunStore

__all__ = ["CHUNK_STATUSES", "RUN_STATUSES", "RunExistsError", "RunStore"]
