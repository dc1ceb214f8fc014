"""The score DB (runs, files, chunks, per-chunk results) used by the analysis graph, and run ids/owners."""

from agent.runs.ids import check_run_id, new_run_id, owner_of
from agent.runs.store import CHUNK_STATUSES, RUN_STATUSES, RunExistsError, RunStore

__all__ = ["CHUNK_STATUSES", "RUN_STATUSES", "RunExistsError", "RunStore", "check_run_id", "new_run_id", "owner_of"]
