"""The one entry point for the CLI, the web UI and the Discord bot: analyze, resume, report.

`AnalysisService.create(settings)` opens the pools, applies migrations, sets up the
LangGraph Postgres checkpointer and loads the embedding model and retriever once; every
`analyze` then runs the compiled graph with `thread_id = run_id`. The score DB is the
authority on chunk progress, so `resume` works from the checkpoint when there is one and
from the DB alone when the crash came before the first checkpoint.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg

from agent.graph.context import GraphContext
from agent.graph.events import ProgressEvent
from agent.graph.nodes.common import error_text
from agent.graph.report import Report, build_report, run_status
from agent.knowledge import Knowledge, aread_knowledge
from agent.runs import RunStore
from agent.runs.ids import check_run_id, new_run_id
from agent.runs.store import jsonable
from agent.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["AnalysisService", "ProgressEvent", "RunBusyError", "new_run_id"]

EVIDENCE_WINDOW = 32
"""Chunks claimed per pass with the evidence judge: their queries are embedded in one model call
and the pass costs one checkpoint (see bench/analyze.py); each chunk is still stored the moment it
is judged. The LLM judge claims llm_max_concurrency chunks per pass, judged side by side."""
DURABILITY = "async"
"""Checkpoint writes overlap the next step. Safe here: a lost last checkpoint only re-runs a step,
and the score DB (done chunks skipped, attempts counted at each start) makes that idempotent."""


class KnowledgeBaseMissingError(RuntimeError):
    """The knowledge base holds no API index: nothing says what Godot 4 defines."""


class RunBusyError(RuntimeError):
    """Another process is working on this run right now."""


class AnalysisService:
    """Runs analyses through the checkpointed graph and reads their reports."""

    def __init__(
        self,
        *,
        settings: Settings,
        url: str,
        pool: Any,
        sync_pool: Any,
        checkpointer: Any,
        retriever: Any,
        embedder: Any,
        durability: str = DURABILITY,
        window: int | None = None,
    ) -> None:
        self.settings = settings
        self.window = window
        self.url = url
        self.pool = pool
        self.sync_pool = sync_pool
        self.checkpointer = checkpointer
        self.retriever = retriever
        self.embedder = embedder
        self.durability = durability
        self.store = RunStore(pool)
        from agent.graph.graph import build_graph  # the nodes pull in parser, retriever and judges

        self.graph = build_graph(checkpointer)
        self._judges: dict[str, Any] = {}

    @classmethod
    async def create(
        cls,
        settings: Settings,
        *,
        checkpoint: bool = True,
        durability: str = DURABILITY,
        embedder: Any = None,
        reading_only: bool = False,
        window: int | None = None,
    ) -> AnalysisService:
        """Open pools, migrate, set up the checkpointer, load the embedder and retriever once.

        `checkpoint=False` compiles the graph without a checkpointer (the bench's baseline;
        resume then restarts from the score DB alone). `reading_only=True` skips the model
        and retriever for report/list/export commands. `window` overrides the chunks started
        per pass (default: llm_max_concurrency for the LLM judge, EVIDENCE_WINDOW otherwise).
        """
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        from agent.embeddings import get_embedder
        from agent.retrieve import Retriever
        from agent.storage import connection, database_url, make_async_pool, make_pool, migrate

        url = await asyncio.to_thread(database_url, settings)

        def _migrate() -> None:
            with connection(settings, url) as conn:
                migrate(conn, settings)

        await asyncio.to_thread(_migrate)
        pool = await make_async_pool(settings, min_size=1, max_size=12, url=url)
        sync_pool = await asyncio.to_thread(make_pool, settings, min_size=1, max_size=8, url=url)
        try:  # a failed setup must not leave the pools open: their workers would keep the process alive
            saver = None
            if checkpoint:
                saver = AsyncPostgresSaver(pool)  # pool connections: autocommit, dict_row, prepare_threshold=0
                # processes starting together on a fresh database race to run the same checkpoint
                # migration; the loser's unique violation, duplicate type or table (two CREATE TABLE IF NOT
                # EXISTS at once), or the deadlock two CREATE INDEX CONCURRENTLY detect, means another
                # process did it, so set up again from there. Not under a lock:
                # CREATE INDEX CONCURRENTLY would wait on the lock's waiters, a deadlock nobody detects.
                for attempt in range(5):
                    try:
                        await saver.setup()
                        break
                    except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateObject,
                            psycopg.errors.DuplicateTable, psycopg.errors.DeadlockDetected):
                        if attempt == 4:
                            raise
                        await asyncio.sleep(0.2 * (attempt + 1))
            retriever = None
            if not reading_only:
                if embedder is None:
                    embedder = await asyncio.to_thread(get_embedder, settings)
                retriever = Retriever(settings, sync_pool, embedder=embedder)
        except BaseException:
            await pool.close()
            await asyncio.to_thread(sync_pool.close)
            raise
        return cls(
            settings=settings, url=url, pool=pool, sync_pool=sync_pool, checkpointer=saver,
            retriever=retriever, embedder=embedder, durability=durability, window=window,
        )

    async def migrate(self, files: dict[str, str]) -> Any:
        """The validated Godot 4 form of `files` (path -> text): `agent.migrate.migrate_files` on this knowledge base."""
        from types import SimpleNamespace

        from agent.judge.project import knowledge_context
        from agent.migrate import migrate_files

        kb_handle = self.retriever or SimpleNamespace(settings=self.settings, pool=self.sync_pool)
        kb = await asyncio.to_thread(knowledge_context, kb_handle)
        migration = await asyncio.to_thread(migrate_files, files, kb)
        if kb is None:
            migration.partial = ("the knowledge base is empty (no API index, no rename rows): only grammar was "
                                 "migrated; run `godot-rag ingest` and migrate again")
        return migration

    async def check(self, files: dict[str, str]) -> Any:
        """The Godot 4 checker's report on every script of `files` (`agent.gdscript.checker.check_files`)."""
        from types import SimpleNamespace

        from agent.gdscript.checker import check_files
        from agent.judge.project import api_index_for

        kb_handle = self.retriever or SimpleNamespace(settings=self.settings, pool=self.sync_pool)
        api = await asyncio.to_thread(api_index_for, kb_handle)
        if api is None:
            raise KnowledgeBaseMissingError("the knowledge base has no API index: run `godot-rag ingest` first")
        return await asyncio.to_thread(check_files, files, api)

    async def migration_downloads(self, run_id: str) -> tuple[str, bytes] | None:
        """(unified diff, zip of the migrated project) of a run whose report holds a migration that changed files."""
        from agent.intake.raw import with_shaders
        from agent.migrate import ProjectMigration
        from agent.migrate.patch import unified_diff, zip_bytes

        stored = (await self.report(run_id)).get("migration")
        if not stored or not (stored.get("summary") or {}).get("files_changed"):
            return None
        raw = await self.store.load_raw(run_id)
        originals = with_shaders((await self.store.load_expansion(run_id)).texts(), raw)
        migration = ProjectMigration.model_validate(stored)
        return unified_diff(migration, originals), await asyncio.to_thread(zip_bytes, migration, originals, raw)

    # ---- running ---------------------------------------------------------------------------

    async def analyze(self, intake: Any, **kw: Any) -> dict[str, Any]:
        """`analyze_report(...)` in its JSON form (`Report.to_dict()`: the CLI contract, the web UI's report)."""
        return (await self.analyze_report(intake, **kw)).to_dict()

    async def resume(self, run_id: str, **kw: Any) -> dict[str, Any]:
        """`resume_report(...)` in its JSON form (`Report.to_dict()`)."""
        return (await self.resume_report(run_id, **kw)).to_dict()

    async def analyze_report(
        self,
        intake: Any,
        *,
        run_id: str | None = None,
        judge: str | None = None,
        owner: str | None = None,
        on_event: Callable[[ProgressEvent], Awaitable[None]] | None = None,
    ) -> Report:
        """Analyze an `IntakeResult` (request + expansion) under a new run; returns its report."""
        run_id = check_run_id(run_id) if run_id else new_run_id()
        kind = judge or self.settings.judge
        self._judge(kind)  # fail fast on an unknown judge, before the run exists
        await self.store.create_run(
            run_id=run_id, request=intake.request, expansion=intake.expansion, owner=owner, judge_kind=kind,
            knowledge=(await self.knowledge()).as_json(), raw=intake.raw,
        )
        return await self._drive(run_id, {"run_id": run_id}, kind, on_event)

    async def resume_report(
        self, run_id: str, *, on_event: Callable[[ProgressEvent], Awaitable[None]] | None = None
    ) -> Report:
        """Continue a run at its first not-done chunk; in-flight and failed chunks go back to pending."""
        run = await self.store.get_run(run_id)
        if run is None:
            raise KeyError(run_id)
        if run["status"] == "completed":
            return await build_report(self.store, run_id, live=False)
        if await self._busy(run_id):
            raise RunBusyError(f"run {run_id} is being processed by another process")
        await self.store.reset_in_flight(run_id)
        await self.store.update_run(run_id, status="running", status_detail="resumed")
        inp: dict[str, Any] | None = {"run_id": run_id}
        if self.checkpointer is not None:
            snapshot = await self.graph.aget_state(self._config(run_id))
            if snapshot.next:
                inp = None  # continue from the last checkpoint
        return await self._drive(run_id, inp, run["judge_kind"], on_event)

    async def _busy(self, run_id: str, *, grace: float = 2.0) -> bool:
        """True if another process holds the run; a lease just released (the server drops it a
        moment after its connection closes) gets `grace` seconds to go away."""
        deadline = asyncio.get_running_loop().time() + grace
        while await self.store.is_live(run_id):
            if asyncio.get_running_loop().time() >= deadline:
                return True
            await asyncio.sleep(0.05)
        return False

    async def _drive(
        self,
        run_id: str,
        inp: dict[str, Any] | None,
        kind: str,
        on_event: Callable[[ProgressEvent], Awaitable[None]] | None,
    ) -> Report:
        lease = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        try:
            if not await RunStore.acquire_lease(lease, run_id):
                raise RunBusyError(f"run {run_id} is being processed by another process")
            judge = self._judge(kind)
            window = self.window or (self.settings.llm_max_concurrency if kind == "llm" else EVIDENCE_WINDOW)
            ctx = GraphContext(
                settings=self.settings, store=self.store, retriever=self.retriever, judge=judge,
                on_event=on_event, window=max(1, window),
            )
            progress = await self.store.progress(run_id)
            await ctx.emit(
                ProgressEvent(run_id=run_id, kind="run_started", done=progress["done"], total=progress["total"])
            )
            try:
                # durability only with a checkpointer ("exit" would save nothing mid-run)
                extra = {"durability": self.durability} if self.checkpointer is not None else {}
                final = await self.graph.ainvoke(inp, config=self._config(run_id), context=ctx, **extra)
            except asyncio.CancelledError:
                await self._interrupt(run_id, "stopped before the end")
                raise
            except Exception as exc:
                await self._interrupt(run_id, error_text(exc))
                raise
        finally:
            await lease.close()
        if final.get("remaining"):  # the graph only ends once no chunk is pending
            raise RuntimeError(f"run {run_id} ended with {final['remaining']} chunk(s) pending")
        return await build_report(self.store, run_id, live=False)

    async def _interrupt(self, run_id: str, why: str) -> None:
        """A run that stops early stays resumable: chunks in flight become `stopped`."""
        await self.store.stop_in_flight(run_id)
        await self.store.update_run(run_id, status="interrupted", status_detail=why)

    def _judge(self, kind: str) -> Any:
        if kind not in self._judges:
            from agent.judge import make_judge

            # the LLM judge caches validated answers in the project's DB (sync, through the retriever's pool)
            self._judges[kind] = make_judge(self.settings, kind, cache_conn_factory=self.sync_pool.connection)
        return self._judges[kind]

    @staticmethod
    def _config(run_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": run_id}, "recursion_limit": 1_000_000}

    # ---- reading ---------------------------------------------------------------------------

    async def report(self, run_id: str) -> dict[str, Any]:
        """`stored_report(run_id)` in its JSON form (`Report.to_dict()`)."""
        return (await self.stored_report(run_id)).to_dict()

    async def stored_report(self, run_id: str) -> Report:
        """The report of a stored run, where it stands now (raises KeyError if unknown)."""
        return await build_report(self.store, run_id)

    async def list_runs(self, *, owner: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """Newest first: run_id, owner, status, created_at, source, verdict label, done/total."""
        rows = await self.store.list_runs(owner=owner, limit=limit)
        out = []
        for r in rows:
            live = await self.store.is_live(r["run_id"]) if r["status"] == "running" else False
            out.append(
                jsonable(
                    {
                        "run_id": r["run_id"], "project_id": r["project_id"], "owner": r["owner"],
                        "status": run_status(r, live), "created_at": r["created_at"], "source": r["source"],
                        "source_origin": r["source_origin"], "prompt": r["prompt"], "judge": r["judge_kind"],
                        "verdict": r["verdict_label"], "done": int(r["done"]), "failed": int(r["failed"]),
                        "total": int(r["total"]),
                    }
                )
            )
        return out

    async def interrupted_runs(self, *, owner: str | None = None) -> list[str]:
        """Runs that stopped before the end (killed, cancelled, crashed) and can be resumed."""
        out = []
        for run_id in await self.store.unfinished_runs(owner=owner):
            run = await self.store.get_run(run_id)
            if run is None:
                continue
            live = await self.store.is_live(run_id) if run["status"] == "running" else False
            if run_status(run, live) == "interrupted":
                out.append(run_id)
        return out

    async def export_rows(self, run_id: str) -> list[dict[str, Any]]:
        """Per-chunk results as training records (one dict per done chunk); KeyError if unknown."""
        run = await self.store.get_run(run_id)
        if run is None:
            raise KeyError(run_id)
        rows = await self.store.chunk_rows(run_id)
        out = []
        for r in rows:
            if r["status"] != "done":
                continue
            out.append(
                jsonable(
                    {
                        "run_id": run_id, "project_id": run["project_id"], "prompt": run["prompt"],
                        "intent": run.get("intent"), "chunk_id": r["chunk_id"], "chunk_order": r["chunk_order"],
                        "source_file": r["source_file"], "chunk_kind": r["chunk_kind"],
                        "start_line": r["start_line"], "end_line": r["end_line"], "chunk_sha256": r["sha256"],
                        "code_text": r["code_text"], "query_terms": r["query_terms"], "evidence": r["evidence"],
                        "retrieval_scores": r["retrieval_scores"], "judgment": r["judgment"],
                        "judge_kind": r["judge_kind"], "model": r["model"], "prompt_version": r["prompt_version"],
                        "fallback_reason": r["fallback_reason"], "validation_failures": r["validation_failures"],
                        "attempts": r["attempts"], "completed_at": r["completed_at"],
                    }
                )
            )
        return out

    async def kb_counts(self) -> dict[str, int]:
        """Rows per knowledge-base table (an empty KB still works, with no evidence)."""
        counts = {}
        async with self.pool.connection() as conn:
            for table in ("docs_chunks", "api_mapping", "label_prototypes"):
                row = await (await conn.execute(f"SELECT count(*) AS n FROM godot_rag.{table}")).fetchone()  # noqa: S608
                counts[table] = int(row["n"])
        return counts

    async def knowledge(self) -> Knowledge:
        """The knowledge base's embedding progress (partial while `ingest --vectors-only` runs)."""
        async with self.pool.connection() as conn:
            return await aread_knowledge(conn)

    async def close(self) -> None:
        """Close judges (the LLM judge's HTTP clients), pools and connections."""
        for judge in self._judges.values():
            if judge.kind == "llm":
                await judge.aclose()
        self._judges.clear()
        await self.pool.close()
        await asyncio.to_thread(self.sync_pool.close)

    async def __aenter__(self) -> AnalysisService:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
