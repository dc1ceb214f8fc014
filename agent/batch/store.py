"""Batches and their items in the score DB (sql/070), read with the queue's job rows beside them.

An item's `state` is written by whoever moves it (submit, the job, retry); a job that a dead
worker left `doing` and the stalled-job sweep put back in the queue shows as `retrying` until a
worker starts it again, so a status never claims work that nobody is doing.
"""

from __future__ import annotations

from typing import Any

from agent.batch.models import FINAL_STATES, ITEM_STATES, BatchStatus, ItemReport
from agent.storage.db import PoolQueries

_ITEMS = (
    "SELECT i.position, i.target, i.run_id, i.tries, i.reason, i.started_at, i.finished_at, i.job_id,"
    " CASE WHEN i.state = 'running' AND j.status = 'todo' THEN 'retrying' ELSE i.state END AS state,"
    " r.verdict->>'label' AS verdict, coalesce(r.chunk_total, 0) AS chunks, coalesce(p.done, 0) AS chunks_done,"
    " extract(epoch FROM i.finished_at - i.started_at) AS seconds"
    " FROM godot_rag.batch_items i"
    " LEFT JOIN procrastinate_jobs j ON j.id = i.job_id"
    " LEFT JOIN godot_rag.runs r ON r.run_id = i.run_id"
    " LEFT JOIN godot_rag.run_progress p ON p.run_id = i.run_id"
    " WHERE i.batch_id = %s ORDER BY i.position"
)


class BatchStore(PoolQueries):
    """Async access to batches through the service's pool (autocommit, dict rows)."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    async def create_batch(self, batch_id: str, *, command: str, prompt: str, judge: str, kb_version: str) -> None:
        """Record a new batch."""
        await self._exec(
            "INSERT INTO godot_rag.batches (batch_id, command, prompt, judge_kind, kb_version)"
            " VALUES (%s, %s, %s, %s, %s)",
            (batch_id, command, prompt, judge, kb_version),
        )

    async def get_batch(self, batch_id: str) -> dict[str, Any] | None:
        """The batch row, or None."""
        return await self._one("SELECT * FROM godot_rag.batches WHERE batch_id = %s", (batch_id,))

    async def add_item(
        self, batch_id: str, position: int, target: str, *, state: str, run_key: str | None = None,
        run_id: str | None = None, job_id: int | None = None, reason: str | None = None,
    ) -> None:
        """Record one target of a batch (a final state is finished at once)."""
        await self._exec(
            "INSERT INTO godot_rag.batch_items (batch_id, position, target, state, run_key, run_id, job_id, reason,"
            " finished_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, CASE WHEN %s THEN now() END)",
            (batch_id, position, target, state, run_key, run_id, job_id, reason, state in FINAL_STATES),
        )

    async def start(self, batch_id: str, position: int, job_id: int) -> int:
        """A job starts (or starts again) on the item: running, one more try; returns the try number."""
        row = await self._one(
            "UPDATE godot_rag.batch_items SET state = 'running', tries = tries + 1, job_id = %s,"
            " started_at = coalesce(started_at, now()), finished_at = NULL"
            " WHERE batch_id = %s AND position = %s RETURNING tries",
            (job_id, batch_id, position),
        )
        if row is None:
            raise KeyError((batch_id, position))
        return int(row["tries"])

    async def finish(
        self, batch_id: str, position: int, *, state: str, run_id: str | None = None, reason: str | None = None
    ) -> None:
        """The item ends (done, already_done, failed) or waits for a retry (retrying, with the error)."""
        if state not in ITEM_STATES:
            raise ValueError(f"bad item state {state!r}")
        await self._exec(
            "UPDATE godot_rag.batch_items SET state = %s, run_id = coalesce(%s, run_id), reason = %s,"
            " finished_at = CASE WHEN %s THEN now() END WHERE batch_id = %s AND position = %s",
            (state, run_id, reason, state in FINAL_STATES, batch_id, position),
        )

    async def requeue(self, batch_id: str, position: int) -> None:
        """`batch retry`: a failed item goes back to queued (its new job is set by `set_job`)."""
        await self._exec(
            "UPDATE godot_rag.batch_items SET state = 'queued', job_id = NULL, finished_at = NULL"
            " WHERE batch_id = %s AND position = %s",
            (batch_id, position),
        )

    async def set_job(self, batch_id: str, position: int, job_id: int) -> None:
        """The item's job, once deferred (unless its worker already set it on starting)."""
        await self._exec(
            "UPDATE godot_rag.batch_items SET job_id = %s WHERE batch_id = %s AND position = %s AND job_id IS NULL",
            (job_id, batch_id, position),
        )

    async def failed_items(self, batch_id: str) -> list[dict[str, Any]]:
        """Items that failed (what `batch retry` queues again), with their run key."""
        return await self._all(
            "SELECT position, target, run_key FROM godot_rag.batch_items WHERE batch_id = %s AND state = 'failed'"
            " ORDER BY position",
            (batch_id,),
        )

    async def items(self, batch_id: str) -> list[ItemReport]:
        """Every item with its run's verdict and progress, in submit order."""
        rows = await self._all(_ITEMS, (batch_id,))
        return [
            ItemReport(
                position=r["position"], target=r["target"], state=r["state"], run_id=r["run_id"],
                verdict=r["verdict"], chunks=int(r["chunks"]), chunks_done=int(r["chunks_done"]),
                tries=int(r["tries"]), seconds=float(r["seconds"]) if r["seconds"] is not None else None,
                reason=r["reason"],
            )
            for r in rows
        ]

    async def status(self, batch_id: str, items: list[ItemReport] | None = None) -> BatchStatus:
        """Per-state counts; throughput over the items this batch analysed (`done`), first start to last end."""
        items = await self.items(batch_id) if items is None else items
        counts = {state: 0 for state in ITEM_STATES}
        for item in items:
            counts[item.state] += 1
        span = await self._one(
            "SELECT extract(epoch FROM max(finished_at) - min(started_at)) AS elapsed"
            " FROM godot_rag.batch_items WHERE batch_id = %s AND state = 'done'",
            (batch_id,),
        )
        elapsed = float(span["elapsed"]) if span and span["elapsed"] is not None else None
        analysed = [i for i in items if i.state == "done"]
        chunks = sum(i.chunks_done for i in analysed)
        rate = elapsed if elapsed and elapsed > 0 else None
        return BatchStatus(
            batch_id=batch_id, total=len(items), counts=counts,
            finished=all(i.state in FINAL_STATES for i in items),
            chunks_done=sum(i.chunks_done for i in items if i.state in ("done", "running", "retrying")),
            elapsed_s=elapsed,
            projects_per_min=len(analysed) * 60 / rate if rate else None,
            chunks_per_s=chunks / rate if rate else None,
        )
