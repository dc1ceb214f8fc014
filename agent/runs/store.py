"""The score DB: runs, their files and chunks, and per-chunk results (sql/010-014).

Every statement is scoped by `run_id`, so two runs of the same project never see each
other's rows. The chunk rows are the authority on progress: a chunk whose validated result
is stored is `done` for good, whatever the graph checkpoint says, and the writes are upserts
keyed by (run_id, chunk_id) because a LangGraph step may run again after a crash.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from agent.intake.raw import RawFiles
from agent.models import AnalysisRequest, Chunk, Expansion, SourceFile
from agent.storage.db import PoolQueries

# Statuses of a chunk row. `pending` = waiting for its turn; `stopped` = was in flight when
# its run stopped gracefully; resume puts `processing`/`stopped` (and `failed`) back to pending.
CHUNK_STATUSES = ("pending", "processing", "done", "failed", "stopped", "waiting")
RUN_STATUSES = ("running", "completed", "interrupted", "failed")
_LEASE_CLASS = 0x60D0  # advisory-lock namespace for "a process is working on this run"


class RunExistsError(ValueError):
    """A run with this id already exists (run ids are never reused)."""


class RunStore(PoolQueries):
    """Async access to the score DB through an `AsyncConnectionPool` (see agent.storage.db)."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    # ---- runs -----------------------------------------------------------------------------

    async def create_run(
        self,
        *,
        run_id: str,
        request: AnalysisRequest,
        expansion: Expansion,
        owner: str | None,
        judge_kind: str,
        knowledge: dict[str, Any] | None = None,
        raw: RawFiles | None = None,
    ) -> None:
        """Record the run and everything resume needs (request, expansion, file texts), atomically.

        `knowledge` is the knowledge base's embedding progress as the run starts (agent/knowledge.py); `raw` is an
        upload's every file as bytes, kept for the migrated copy (sql/074).
        """
        async with self.pool.connection() as conn, conn.transaction():
            exists = await (await conn.execute("SELECT 1 FROM godot_rag.runs WHERE run_id = %s", (run_id,))).fetchone()
            if exists:
                raise RunExistsError(f"run {run_id!r} already exists; use resume or pick another --run-id")
            await conn.execute(
                "INSERT INTO godot_rag.runs (run_id, project_id, owner, prompt, source, source_origin, judge_kind,"
                " knowledge) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    run_id,
                    request.project_id,
                    owner,
                    request.prompt,
                    Jsonb(request.model_dump(mode="json")),
                    request.source_origin,
                    judge_kind,
                    Jsonb(knowledge) if knowledge is not None else None,
                ),
            )
            await conn.execute(
                "INSERT INTO godot_rag.run_intake (run_id, request, expanded_text, line_map) VALUES (%s, %s, %s, %s)",
                (
                    run_id,
                    Jsonb(request.model_dump(mode="json")),
                    expansion.expanded_text,
                    Jsonb([list(x) if x else None for x in expansion.line_map]),
                ),
            )
            async with conn.cursor() as cur:
                await cur.executemany(
                    "INSERT INTO godot_rag.run_files (run_id, path, file_order, kind, sha256, size, included,"
                    " reason, text) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    [
                        (run_id, f.path, i, f.kind, f.sha256, f.size, f.included, f.reason, f.text)
                        for i, f in enumerate(expansion.files)
                    ],
                )
                if raw is not None:
                    await cur.executemany(
                        "INSERT INTO godot_rag.run_raw_files (run_id, path, data, left_out) VALUES (%s, %s, %s, %s)",
                        [(run_id, p, d, None) for p, d in raw.data.items()]
                        + [(run_id, p, None, why) for p, why in raw.left_out.items() if p not in raw.data],
                    )

    async def load_raw(self, run_id: str) -> RawFiles | None:
        """An upload's stored bytes (every file, and what a copy leaves out), or None where the run kept none."""
        rows = await self._all(
            "SELECT path, data, left_out FROM godot_rag.run_raw_files WHERE run_id = %s ORDER BY path", (run_id,)
        )
        if not rows:
            return None
        return RawFiles(data={r["path"]: bytes(r["data"]) for r in rows if r["data"] is not None},
                        left_out={r["path"]: r["left_out"] for r in rows if r["data"] is None})

    async def load_request(self, run_id: str) -> AnalysisRequest:
        """The stored AnalysisRequest of a run."""
        row = await self._one("SELECT request FROM godot_rag.run_intake WHERE run_id = %s", (run_id,))
        if row is None:
            raise KeyError(run_id)
        return AnalysisRequest.model_validate(row["request"])

    async def load_expansion(self, run_id: str) -> Expansion:
        """Rebuild the Expansion from the DB (no re-fetch, no re-clone)."""
        intake = await self._one(
            "SELECT expanded_text, line_map FROM godot_rag.run_intake WHERE run_id = %s", (run_id,)
        )
        if intake is None:
            raise KeyError(run_id)
        files = await self._all(
            "SELECT path, kind, included, reason, size, sha256, text FROM godot_rag.run_files"
            " WHERE run_id = %s ORDER BY file_order",
            (run_id,),
        )
        return Expansion(
            files=[SourceFile.model_validate(dict(f)) for f in files],
            expanded_text=intake["expanded_text"],
            line_map=[tuple(x) if x else None for x in intake["line_map"]],
        )

    async def update_run(self, run_id: str, **fields: Any) -> None:
        """Set some columns of a run (status, status_detail, intent, project_signals, verdict, chunk_total)."""
        allowed = {"status", "status_detail", "intent", "project_signals", "verdict", "chunk_total", "judge_kind"}
        bad = set(fields) - allowed
        if bad:
            raise ValueError(f"not updatable: {sorted(bad)}")
        if "status" in fields and fields["status"] not in RUN_STATUSES:
            raise ValueError(f"bad run status {fields['status']!r}")
        cols = sorted(fields)
        values = [Jsonb(fields[c]) if c in {"intent", "project_signals", "verdict"} else fields[c] for c in cols]
        sets = ", ".join(f"{c} = %s" for c in cols)
        finished = ", finished_at = now()" if fields.get("status") in {"completed", "failed"} else ""
        async with self.pool.connection() as conn:
            await conn.execute(
                f"UPDATE godot_rag.runs SET {sets}, updated_at = now(){finished} WHERE run_id = %s",  # noqa: S608
                (*values, run_id),
            )

    async def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The run row, or None."""
        return await self._one("SELECT * FROM godot_rag.runs WHERE run_id = %s", (run_id,))

    async def list_runs(self, *, owner: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Newest runs first, with progress counts; only `owner`'s when given."""
        return await self._all(
            "SELECT r.run_id, r.project_id, r.owner, r.status, r.status_detail, r.created_at, r.updated_at,"
            " r.source_origin, r.source->>'source_file' AS source, r.prompt, r.judge_kind,"
            " r.verdict->>'label' AS verdict_label, p.done, p.failed, r.chunk_total AS total"
            " FROM godot_rag.runs r JOIN godot_rag.run_progress p USING (run_id)"
            " WHERE (%(owner)s::text IS NULL OR r.owner = %(owner)s)"
            " ORDER BY r.created_at DESC LIMIT %(limit)s",
            {"owner": owner, "limit": limit},
        )

    async def unfinished_runs(self, *, owner: str | None = None) -> list[str]:
        """Runs not completed (running, interrupted or failed), newest first."""
        rows = await self._all(
            "SELECT run_id FROM godot_rag.runs WHERE status <> 'completed'"
            " AND (%(owner)s::text IS NULL OR owner = %(owner)s) ORDER BY created_at DESC",
            {"owner": owner},
        )
        return [r["run_id"] for r in rows]

    # ---- liveness: a session advisory lock held by the process working on a run ------------

    async def is_live(self, run_id: str) -> bool:
        """True if some process holds the run's lease (the lock dies with its connection)."""
        async with self.pool.connection() as conn:
            got = await (
                await conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s)) AS ok", (_LEASE_CLASS, run_id))
            ).fetchone()
            if got["ok"]:
                await conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (_LEASE_CLASS, run_id))
            return not got["ok"]

    @staticmethod
    async def acquire_lease(conn: Any, run_id: str) -> bool:
        """Take the run's lease on a dedicated connection; False if another process holds it."""
        row = await (
            await conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s)) AS ok", (_LEASE_CLASS, run_id))
        ).fetchone()
        return bool(row["ok"] if isinstance(row, dict) else row[0])

    # ---- chunks ----------------------------------------------------------------------------

    async def save_chunks(self, run_id: str, chunks: list[Chunk]) -> int:
        """Insert the run's chunks as pending (re-running parse keeps existing rows and statuses)."""
        async with self.pool.connection() as conn, conn.transaction():
            async with conn.cursor() as cur:
                await cur.executemany(
                    "INSERT INTO godot_rag.run_chunks (run_id, chunk_id, chunk_order, source_file, chunk_kind,"
                    " start_line, end_line, sha256, chunk) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (run_id, chunk_id) DO NOTHING",
                    [
                        (
                            run_id,
                            c.chunk_id,
                            c.chunk_order,
                            c.source_file,
                            c.chunk_kind,
                            c.span.start_line,
                            c.span.end_line,
                            c.sha256,
                            Jsonb(c.model_dump(mode="json")),
                        )
                        for c in chunks
                    ],
                )
            await conn.execute(
                "UPDATE godot_rag.runs SET chunk_total = (SELECT count(*) FROM godot_rag.run_chunks"
                " WHERE run_id = %s), updated_at = now() WHERE run_id = %s",
                (run_id, run_id),
            )
        return len(chunks)

    async def claim_next(self, run_id: str, limit: int) -> list[Chunk]:
        """Start the next `limit` pending chunks in chunk order: processing, attempts + 1."""
        rows = await self._all(
            # a MATERIALIZED CTE: a LIMIT subquery joined in UPDATE ... FROM may be rescanned
            "WITH n AS MATERIALIZED (SELECT chunk_id FROM godot_rag.run_chunks"
            "  WHERE run_id = %(run)s AND status = 'pending' ORDER BY chunk_order LIMIT %(limit)s"
            "  FOR UPDATE SKIP LOCKED)"
            " UPDATE godot_rag.run_chunks c SET status = 'processing', attempts = attempts + 1,"
            " started_at = now(), error = NULL, updated_at = now()"
            " WHERE c.run_id = %(run)s AND c.chunk_id IN (SELECT chunk_id FROM n) RETURNING c.chunk",
            {"run": run_id, "limit": limit},
        )
        chunks = [Chunk.model_validate(r["chunk"]) for r in rows]
        return sorted(chunks, key=lambda c: c.chunk_order)

    async def claim(self, run_id: str, chunk_ids: list[str]) -> list[str]:
        """Start again the given chunks if they are pending, stopped or waiting; returns their ids."""
        rows = await self._all(
            "UPDATE godot_rag.run_chunks SET status = 'processing', attempts = attempts + 1,"
            " started_at = now(), error = NULL, updated_at = now()"
            " WHERE run_id = %s AND chunk_id = ANY(%s) AND status IN ('pending', 'stopped', 'waiting')"
            " RETURNING chunk_id",
            (run_id, chunk_ids),
        )
        return [r["chunk_id"] for r in rows]

    async def load_chunks(
        self, run_id: str, chunk_ids: list[str], *, statuses: list[str] | None = None
    ) -> list[Chunk]:
        """The Chunk records of some chunks of a run (only those in `statuses` if given), in chunk order."""
        rows = await self._all(
            "SELECT chunk FROM godot_rag.run_chunks WHERE run_id = %s AND chunk_id = ANY(%s)"
            " AND (%s::text[] IS NULL OR status = ANY(%s)) ORDER BY chunk_order",
            (run_id, chunk_ids, statuses, statuses),
        )
        return [Chunk.model_validate(r["chunk"]) for r in rows]

    async def statuses(self, run_id: str, chunk_ids: list[str] | None = None) -> dict[str, str]:
        """chunk_id -> status, for some or all chunks of a run."""
        rows = await self._all(
            "SELECT chunk_id, status FROM godot_rag.run_chunks WHERE run_id = %s"
            " AND (%s::text[] IS NULL OR chunk_id = ANY(%s))",
            (run_id, chunk_ids, chunk_ids),
        )
        return {r["chunk_id"]: r["status"] for r in rows}

    async def reset_in_flight(self, run_id: str, *, include_failed: bool = True) -> list[str]:
        """Before resuming: chunks in flight (and failed ones, to retry) go back to pending."""
        wanted = ["processing", "stopped", "waiting"] + (["failed"] if include_failed else [])
        rows = await self._all(
            "UPDATE godot_rag.run_chunks SET status = 'pending', updated_at = now()"
            " WHERE run_id = %s AND status = ANY(%s) RETURNING chunk_id",
            (run_id, wanted),
        )
        return [r["chunk_id"] for r in rows]

    async def stop_in_flight(self, run_id: str) -> list[str]:
        """On a graceful stop: chunks in flight become `stopped` (resume restarts them)."""
        rows = await self._all(
            "UPDATE godot_rag.run_chunks SET status = 'stopped', updated_at = now()"
            " WHERE run_id = %s AND status = 'processing' RETURNING chunk_id",
            (run_id,),
        )
        return [r["chunk_id"] for r in rows]

    async def mark_failed(self, run_id: str, chunk_id: str, error: str) -> None:
        """A chunk that could not be judged: failed, with the reason (never overwrites done)."""
        async with self.pool.connection() as conn:
            await conn.execute(
                "UPDATE godot_rag.run_chunks SET status = 'failed', error = %s, updated_at = now()"
                " WHERE run_id = %s AND chunk_id = %s AND status <> 'done'",
                (error[:2000], run_id, chunk_id),
            )

    async def store_result(self, run_id: str, chunk_id: str, result: dict[str, Any]) -> bool:
        """Store a validated result and mark the chunk done, atomically and idempotently.

        Returns False (and changes nothing) if the chunk was already done: a stored judgment
        is never replaced by a re-executed step.
        """
        j = result["judgment"]
        async with self.pool.connection() as conn, conn.transaction():
            row = await (
                await conn.execute(
                    "SELECT status FROM godot_rag.run_chunks WHERE run_id = %s AND chunk_id = %s FOR UPDATE",
                    (run_id, chunk_id),
                )
            ).fetchone()
            if row is None:
                raise KeyError(f"{run_id}/{chunk_id}")
            if row["status"] == "done":
                return False
            await conn.execute(
                "INSERT INTO godot_rag.chunk_results (run_id, chunk_id, query_terms, query, evidence, evidence_ids,"
                " retrieval_scores, judgment, version_signal, label, migration_required, judge_kind, model,"
                " prompt_version, fallback_reason, validation_failures, llm_attempts, cached, retrieval_ms, judge_ms)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (run_id, chunk_id) DO UPDATE SET query_terms = EXCLUDED.query_terms,"
                " query = EXCLUDED.query, evidence = EXCLUDED.evidence, evidence_ids = EXCLUDED.evidence_ids,"
                " retrieval_scores = EXCLUDED.retrieval_scores, judgment = EXCLUDED.judgment,"
                " version_signal = EXCLUDED.version_signal, label = EXCLUDED.label,"
                " migration_required = EXCLUDED.migration_required, judge_kind = EXCLUDED.judge_kind,"
                " model = EXCLUDED.model, prompt_version = EXCLUDED.prompt_version,"
                " fallback_reason = EXCLUDED.fallback_reason, validation_failures = EXCLUDED.validation_failures,"
                " llm_attempts = EXCLUDED.llm_attempts, cached = EXCLUDED.cached,"
                " retrieval_ms = EXCLUDED.retrieval_ms, judge_ms = EXCLUDED.judge_ms, created_at = now()",
                (
                    run_id,
                    chunk_id,
                    list(result.get("query_terms") or []),
                    Jsonb(result.get("query") or {}),
                    Jsonb(result.get("evidence") or []),
                    [e["record_id"] for e in result.get("evidence") or []],
                    Jsonb(result.get("retrieval_scores") or {}),
                    Jsonb(j),
                    j["version_signal"],
                    j["label"],
                    bool(j.get("migration_required")),
                    result.get("judge_kind") or "evidence",
                    result.get("model"),
                    result.get("prompt_version"),
                    result.get("fallback_reason"),
                    Jsonb(result.get("validation_failures") or []),
                    int(result.get("llm_attempts") or 0),
                    bool(result.get("cached")),
                    result.get("retrieval_ms"),
                    result.get("judge_ms"),
                ),
            )
            await conn.execute(
                "UPDATE godot_rag.run_chunks SET status = 'done', completed_at = now(), error = NULL,"
                " updated_at = now() WHERE run_id = %s AND chunk_id = %s",
                (run_id, chunk_id),
            )
        return True

    async def progress(self, run_id: str) -> dict[str, int]:
        """done / failed / processing / pending / total for a run."""
        row = await self._one(
            "SELECT chunk_total AS total, done, failed, processing, pending FROM godot_rag.run_progress"
            " WHERE run_id = %s",
            (run_id,),
        )
        if row is None:
            raise KeyError(run_id)
        return {k: int(v) for k, v in row.items()}

    async def chunk_rate(self, judge_kind: str, *, runs: int = 10, min_chunks: int = 20) -> tuple[float, int] | None:
        """(chunks per second, runs measured) over the last completed runs of this judge, or None before any.

        Measured on this machine and database, so an estimate at intake follows what users really waited.
        """
        row = await self._one(
            "SELECT sum(chunk_total) AS chunks, sum(extract(epoch FROM finished_at - created_at)) AS seconds,"
            " count(*) AS n FROM (SELECT chunk_total, finished_at, created_at FROM godot_rag.runs"
            " WHERE status = 'completed' AND judge_kind = %s AND chunk_total >= %s AND finished_at IS NOT NULL"
            " ORDER BY finished_at DESC LIMIT %s) AS recent",
            (judge_kind, min_chunks, runs),
        )
        if not row or not row["n"] or not row["seconds"] or float(row["seconds"]) <= 0:
            return None
        return float(row["chunks"]) / float(row["seconds"]), int(row["n"])

    async def remaining(self, run_id: str) -> int:
        """Chunks still to start in this pass (pending)."""
        row = await self._one(
            "SELECT count(*) AS n FROM godot_rag.run_chunks WHERE run_id = %s AND status = 'pending'", (run_id,)
        )
        return int(row["n"]) if row else 0

    # ---- reading results -------------------------------------------------------------------

    async def files(self, run_id: str) -> list[dict[str, Any]]:
        """The run's files with their chunk counts (text left out)."""
        return await self._all(
            "SELECT f.path, f.kind, f.sha256, f.size, f.included, f.reason,"
            " (SELECT count(*) FROM godot_rag.run_chunks c WHERE c.run_id = f.run_id AND c.source_file = f.path)"
            " AS chunks FROM godot_rag.run_files f WHERE f.run_id = %s ORDER BY f.file_order",
            (run_id,),
        )

    async def file_text(self, run_id: str, path: str | None = None) -> str | None:
        """Text of one included file (the first one when `path` is None, e.g. a pasted snippet)."""
        row = await self._one(
            "SELECT text FROM godot_rag.run_files WHERE run_id = %s AND included"
            " AND (%s::text IS NULL OR path = %s) ORDER BY file_order LIMIT 1",
            (run_id, path, path),
        )
        return row["text"] if row else None

    async def chunk_rows(self, run_id: str) -> list[dict[str, Any]]:
        """Every chunk of the run with its result (if any), in chunk order."""
        return await self._all(
            "SELECT c.chunk_id, c.chunk_order, c.source_file, c.chunk_kind, c.start_line, c.end_line, c.sha256,"
            " c.chunk->>'code_text' AS code_text, c.chunk->>'name' AS name, c.status, c.attempts, c.started_at,"
            " c.completed_at, c.error, r.query_terms, r.query, r.evidence, r.retrieval_scores, r.judgment,"
            " r.version_signal, r.label, r.migration_required, r.judge_kind, r.model, r.prompt_version,"
            " r.fallback_reason, r.validation_failures, r.llm_attempts, r.cached, r.retrieval_ms, r.judge_ms"
            " FROM godot_rag.run_chunks c LEFT JOIN godot_rag.chunk_results r"
            " ON r.run_id = c.run_id AND r.chunk_id = c.chunk_id"
            " WHERE c.run_id = %s ORDER BY c.chunk_order",
            (run_id,),
        )



def jsonable(value: Any) -> Any:
    """Rows -> JSON-safe values (timestamps as ISO strings)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def dumps(value: Any) -> str:
    """One-line JSON for rows (used by export)."""
    return json.dumps(jsonable(value), ensure_ascii=False, sort_keys=True)
