"""Analysis bench: a generated ~300-chunk project through the whole checkpointed graph.

Builds its own database (cloned from the test KB template when one exists, else a fresh
ingest of the test page subset) and drops it at the end. With the evidence judge, in one
run and alternating so both share the machine's noise: chunks/s with per-chunk query
embedding (a window of 1 chunk per pass) against windowed embedding (one embedding pass per
window of `--windows` chunks; each query still runs alone in the model), and where the wall
time goes: the embedding model, the retrieval SQL, the score-DB SQL, the checkpointer, and
everything else (parser, judge, validator, graph). Then p50/p95 of retrieval and of the whole
chunk (claim -> stored), and the checkpointer's overhead against the same graph compiled
without one. Last, the LLM judge against the local stub server (200 ms per call) at concurrency 1, 2, 4, 8.

    .venv/bin/python bench/analyze.py [--scripts 18] [--legacy 4] [--funcs 7] [--repeats 2] [--windows 1,8,32]

Targets: windowed >= 2x per-chunk chunks/s; retrieval p95 <= 50 ms, chunk p50 <= 40 ms
(on an idle machine), checkpoint overhead <= 25%, LLM throughput that scales with concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(q / 100 * (len(values) - 1))))
    return values[k]


def make_database(settings, admin: str) -> tuple[str, str]:
    """A fresh KB database: clone the test template if present (fast), else ingest the test subset."""
    import psycopg
    from psycopg import sql

    from agent.storage import connection, migrate
    from agent.storage.db import _with_database
    from tests.conftest import _fingerprint

    name = f"godot_rag_bench_{uuid.uuid4().hex[:8]}"
    template = f"godot_rag_kbtpl_{_fingerprint()}"
    with psycopg.connect(admin, autocommit=True) as conn:
        ready = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s AND datistemplate", (template,)).fetchone()
        if ready:
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template)))
        else:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = _with_database(admin, name)
    s = settings.with_(database_name=name, database_url=url)
    with connection(s) as c:
        migrate(c, s)
    if not ready:
        from agent.ingest.pipeline import run_ingest
        from agent.settings import default_renames_file
        from tests.conftest import kb_subset_dir

        print("no KB template: ingesting the test page subset (slow, once)...", file=sys.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            docs = kb_subset_dir(Path(tmp) / "docs")
            run_ingest(s, docs_dir=docs, renames_file=default_renames_file(), out_dir=Path(tmp) / "jsonl",
                       progress=False)
    return name, url


def drop_database(admin: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


class Meter:
    """Wall time spent in the embedding model, the retrieval SQL, the score DB and the checkpointer.

    Wraps the instances' methods for one run (nothing else changes) and records each call's
    (start, end). A category's time is the union of its calls' intervals, so two retrievals that
    run side by side count once; `outside` is the wall time covered by no category at all.
    """

    def __init__(self, svc) -> None:
        self.spans: dict[str, list[tuple[float, float]]] = {
            "embedding model": [], "retrieval SQL": [], "score DB": [], "checkpointer": []}
        self._wrap_sync(svc.retriever.embedder, "embed_documents", "embedding model")
        # the window's vectors come first, so a retrieve call is its SQL (and the fusion, ~0.2 ms);
        # timed here, not read from `last_timings`, which two retrievals side by side overwrite
        self._wrap_sync(svc.retriever, "retrieve", "retrieval SQL")
        for name in dir(svc.store):
            if not name.startswith("_") and asyncio.iscoroutinefunction(getattr(svc.store, name)):
                self._wrap_async(svc.store, name, "score DB")
        if svc.checkpointer is not None:
            for name in ("aput", "aput_writes", "aget_tuple"):
                self._wrap_async(svc.checkpointer, name, "checkpointer")

    @staticmethod
    def _union(spans: list[tuple[float, float]]) -> float:
        total, end = 0.0, float("-inf")
        for a, b in sorted(spans):
            if b > end:
                total += b - max(a, end)
                end = b
        return total

    @property
    def seconds(self) -> dict[str, float]:
        return {k: self._union(v) for k, v in self.spans.items()}

    def outside(self, wall: float) -> float:
        """Wall time in none of the categories (parse, judge, validator, graph, event loop)."""
        return wall - self._union([s for v in self.spans.values() for s in v])

    def _wrap_sync(self, obj, name: str, key: str) -> None:
        inner = getattr(obj, name)

        def timed(*a, **kw):
            t0 = time.perf_counter()
            try:
                return inner(*a, **kw)
            finally:
                self.spans[key].append((t0, time.perf_counter()))

        setattr(obj, name, timed)

    def _wrap_async(self, obj, name: str, key: str) -> None:
        inner = getattr(obj, name)

        async def timed(*a, **kw):
            t0 = time.perf_counter()
            try:
                return await inner(*a, **kw)
            finally:
                self.spans[key].append((t0, time.perf_counter()))

        setattr(obj, name, timed)


async def timed_run(settings, intake, *, checkpoint: bool, judge: str, embedder, window: int | None = None,
                    durability: str | None = None) -> dict:
    """One analysis; wall time, where it went, and per-chunk latencies from the score DB."""
    from agent.graph.service import AnalysisService

    extra = {"durability": durability} if durability else {}
    svc = await AnalysisService.create(settings, checkpoint=checkpoint, embedder=embedder, window=window, **extra)
    meter = Meter(svc)
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        report = await svc.analyze(intake, judge=judge)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows = await svc.store.chunk_rows(report["run_id"])
    finally:
        del svc.retriever.embedder.embed_documents  # the shared embedder's own method again
        await svc.close()
    chunk_ms = [(r["completed_at"] - r["started_at"]).total_seconds() * 1000 for r in rows if r["completed_at"]]
    return {
        "chunks": len(rows),
        "wall": wall,
        "cpu": cpu,
        "chunks_per_s": len(rows) / wall,
        "seconds": meter.seconds,
        "outside": meter.outside(wall),
        "retrieval_ms": [r["retrieval_ms"] for r in rows if r["retrieval_ms"] is not None],
        "judge_ms": [r["judge_ms"] for r in rows if r["judge_ms"] is not None],
        "chunk_ms": chunk_ms,
        "verdict": report["verdict"]["label"],
        "fallbacks": sum(1 for r in rows if r["fallback_reason"]),
        "status": report["status"],
    }


async def main_async(args: argparse.Namespace) -> None:
    from agent.embeddings import get_embedder
    from agent.intake import IntakeResult
    from agent.settings import Settings
    from agent.storage import database_url
    from tests.graph.projects import expansion_of, generated_files, request_for

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    base = Settings.from_env()
    admin = database_url(base.with_(database_name="postgres"))
    name, url = make_database(base, admin)
    settings = base.with_(database_name=name, database_url=url)
    try:
        embedder = get_embedder(settings)
        files = generated_files(godot4_scripts=args.scripts, godot3_scripts=args.legacy, funcs=args.funcs)
        exp = expansion_of(files)
        intake = IntakeResult(request=request_for(exp, prompt="Godot 3 or 4? What must change?"), expansion=exp)

        if not args.skip_evidence:
            await evidence_tables(args, settings, intake, embedder)
        if not args.skip_llm:
            await llm_table(args, settings, embedder)
    finally:
        drop_database(admin, name)


async def window_table(args: argparse.Namespace, settings, intake, embedder) -> None:
    """Per-chunk query embedding (window 1) against one model call per window, same run, alternating."""
    windows = [int(w) for w in args.windows.split(",")]
    runs: dict[int, list[dict]] = {w: [] for w in windows}
    for _ in range(args.repeats):
        for w in windows:
            runs[w].append(await timed_run(settings, intake, checkpoint=True, judge="evidence", embedder=embedder,
                                           window=w))
    base = min(runs[windows[0]], key=lambda r: r["wall"])
    print(f"\nEvidence judge, {base['chunks']} chunks: per-chunk vs windowed query embedding (best of {args.repeats}; "
          f"{os.cpu_count()} CPUs, shared; load average {os.getloadavg()[0]:.1f})")
    keys = list(base["seconds"])
    print(f"{'window':>7}{'chunks/s':>10}{'speedup':>9}" + "".join(f"{k:>17}" for k in keys) + f"{'outside':>9}")
    for w in windows:
        best = min(runs[w], key=lambda r: r["wall"])
        shares = [best["seconds"][k] / best["wall"] for k in keys]
        print(f"{w:>7}{best['chunks_per_s']:>10.1f}{best['chunks_per_s'] / base['chunks_per_s']:>8.2f}x"
              + "".join(f"{x * 100:>16.1f}%" for x in shares) + f"{best['outside'] / best['wall'] * 100:>8.1f}%")
    print("(window 1 embeds each chunk's query on its own, as before windows; shares are of the run's wall time; "
          "retrievals run two at a time, so shares overlap; 'outside' is the time in none of them: "
          "parse, judge, validator, graph and event loop)")


async def evidence_tables(args: argparse.Namespace, settings, intake, embedder) -> None:
    """Evidence judge: throughput, latencies and the checkpointer's overhead."""
    # warm-up: model, pools, parser cache
    await timed_run(settings, intake, checkpoint=True, judge="evidence", embedder=embedder)
    await window_table(args, settings, intake, embedder)
    with_cp, without_cp = [], []
    for _ in range(args.repeats):  # alternate to share the noise of a busy machine
        with_cp.append(await timed_run(settings, intake, checkpoint=True, judge="evidence", embedder=embedder))
        without_cp.append(await timed_run(settings, intake, checkpoint=False, judge="evidence",
                                          embedder=embedder))
    best_with = min(with_cp, key=lambda r: r["wall"])
    best_without = min(without_cp, key=lambda r: r["wall"])
    retrieval = [x for r in with_cp for x in r["retrieval_ms"]]
    chunk = [x for r in with_cp for x in r["chunk_ms"]]
    judge_ms = [x for r in with_cp for x in r["judge_ms"]]
    overhead = best_with["wall"] / best_without["wall"] - 1
    cpu_overhead = min(r["cpu"] for r in with_cp) / min(r["cpu"] for r in without_cp) - 1

    print(f"\nEvidence judge, {best_with['chunks']} chunks, verdict {best_with['verdict']} "
          f"(best of {args.repeats}; {os.cpu_count()} CPUs, shared; load average {os.getloadavg()[0]:.1f})")
    print(f"{'metric':<34}{'value':>12}{'target':>12}")
    print(f"{'chunks/s (checkpointed, default window)':<34}{best_with['chunks_per_s']:>12.1f}{'':>12}")
    print(f"{'chunks/s (no checkpointer)':<34}{best_without['chunks_per_s']:>12.1f}{'':>12}")
    print(f"{'retrieval p50 ms':<34}{_pct(retrieval, 50):>12.1f}{'':>12}")
    print(f"{'retrieval p95 ms':<34}{_pct(retrieval, 95):>12.1f}{'<= 50':>12}")
    print(f"{'judge p50 ms':<34}{_pct(judge_ms, 50):>12.1f}{'':>12}")
    print(f"{'chunk p50 ms (claim -> stored)':<34}{_pct(chunk, 50):>12.1f}{'<= 40':>12}")
    print(f"{'chunk p95 ms':<34}{_pct(chunk, 95):>12.1f}{'':>12}")
    print(f"{'checkpoint overhead (wall)':<34}{overhead * 100:>11.1f}%{'<= 25%':>12}")
    print(f"{'checkpoint overhead (process CPU)':<34}{cpu_overhead * 100:>11.1f}%{'':>12}")
    print(f"{'load average (1 min) at the end':<34}{os.getloadavg()[0]:>12.1f}{'':>12}")


async def llm_table(args: argparse.Namespace, settings, embedder) -> None:
    """LLM judge against the stub server: throughput must scale with the concurrency setting."""
    from agent.intake import IntakeResult
    from tests.graph.projects import expansion_of, generated_files, request_for
    from tests.llm_servers.launch import running_server

    small = generated_files(godot4_scripts=max(1, args.llm_chunks // 16), godot3_scripts=1, funcs=6, scenes=False)
    sexp = expansion_of(small)
    sintake = IntakeResult(request=request_for(sexp, prompt="Godot 3 or 4?"), expansion=sexp)
    print(f"\nLLM judge vs stub server ({args.llm_delay * 1000:.0f} ms per call)")
    print(f"{'concurrency':>12}{'chunks':>8}{'seconds':>10}{'chunks/s':>10}{'speedup':>9}{'fallbacks':>10}"
          f"{'max in flight':>15}")
    with running_server("stub_server.py", "--mode", "good", "--delay", str(args.llm_delay)) as llm_url:
        base_rate = None
        for c in (1, 2, 4, 8):
            s = settings.with_(llm_base_url=llm_url, llm_max_concurrency=c,
                               llm_model=f"stub-{uuid.uuid4().hex[:6]}")  # a new model name: no cache hits
            _stub(llm_url, "/reset", post=True)
            r = await timed_run(s, sintake, checkpoint=True, judge="llm", embedder=embedder)
            base_rate = base_rate or r["chunks_per_s"]
            print(f"{c:>12}{r['chunks']:>8}{r['wall']:>10.2f}{r['chunks_per_s']:>10.1f}"
                  f"{r['chunks_per_s'] / base_rate:>8.1f}x{r['fallbacks']:>10}"
                  f"{_stub(llm_url, '/stats')['max_in_flight']:>15}")
    print(f"(load average {os.getloadavg()[0]:.1f}: once the endpoint is kept busy, the per-chunk CPU work "
          "(retrieval, validation, storage) bounds the rate)")


def _stub(base_url: str, path: str, *, post: bool = False) -> dict:
    """GET /stats or POST /reset on the stub server."""
    import json
    import urllib.request

    req = urllib.request.Request(base_url + path, data=b"{}" if post else None, method="POST" if post else "GET")
    with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 - local test server
        return json.loads(resp.read())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scripts", type=int, default=18, help="generated Godot 4 scripts (+ a scene each)")
    p.add_argument("--legacy", type=int, default=4, help="generated Godot 3 scripts")
    p.add_argument("--funcs", type=int, default=7, help="functions per script")
    p.add_argument("--repeats", type=int, default=2, help="runs with and without the checkpointer")
    p.add_argument("--llm-chunks", type=int, default=64, help="approximate chunks for the LLM table")
    p.add_argument("--llm-delay", type=float, default=0.2, help="stub server seconds per call")
    p.add_argument("--windows", default="1,8,32", help="chunks per pass to compare (the first is the baseline)")
    p.add_argument("--skip-evidence", action="store_true", help="only the LLM table")
    p.add_argument("--skip-llm", action="store_true", help="only the evidence tables")
    asyncio.run(main_async(p.parse_args()))


if __name__ == "__main__":
    main()
