"""Batch bench: real projects through `godot-rag batch submit` and real `godot-rag worker` processes.

Projects: the official demo ports in PORTS (`/work/ports/*/{g3,g4}`, see its SOURCES.tsv), the
`--projects N` smallest by GDScript lines, both sides of each pair (N/2 Godot 3 + N/2 Godot 4).
Each phase gets a fresh database cloned from the test KB template (as bench/analyze.py), so no
phase finds another's runs. Phases, in one invocation so they share the machine's noise:

1. evidence judge, 1 worker process, then the same batch with 2 worker processes: projects/min
   and chunks/s over first job start -> last job end (worker start-up not counted);
2. the LLM judge against the stub server (200 ms per call), 1 then 2 workers, on `--llm-projects`;
3. 2 workers with one killed by SIGKILL halfway: every job completes exactly once (one succeeded
   job per target), no chunk done at the kill is judged again (attempts), verdicts equal phase 1's;
4. the same file submitted again: no job, no run; its wall time;
5. the queue's own overhead on an idle worker: enqueue -> job start, and run end -> job succeeded /
   item final (what `batch status` reads), medians over `--overhead` one-project batches.

    .venv/bin/python bench/batch.py [--projects 40] [--llm-projects 12] [--llm-delay 0.2] [--skip-llm]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PORTS = Path("/work/ports")
WORKER_ENV = {"GODOT_RAG_WORKER_HEARTBEAT": "1", "GODOT_RAG_WORKER_STALLED_AFTER": "5", "GODOT_RAG_JOB_RETRY_WAIT": "1"}


def pick_projects(n: int) -> list[Path]:
    """The n/2 smallest port pairs (by GDScript lines of both sides), both sides each."""
    pairs = []
    for d in sorted(PORTS.iterdir()):
        if (d / "g3").is_dir() and (d / "g4").is_dir():
            lines = sum(len(p.read_text(errors="replace").splitlines()) for side in ("g3", "g4")
                        for p in (d / side).rglob("*.gd"))
            if lines >= 20:
                pairs.append((lines, d))
    pairs.sort()
    return [d / side for _, d in pairs[: max(1, n // 2)] for side in ("g3", "g4")]


def env_for(settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GODOT_RAG_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(ROOT), GODOT_RAG_HOME=str(settings.home),
               GODOT_RAG_DATABASE_NAME=settings.database_name, GODOT_RAG_DATABASE_URL=settings.database_url)
    env.update(WORKER_ENV)
    env.update(extra)
    return env


def cli(env: dict[str, str], *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "agent.cli", *args, "--format", "json"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"godot-rag {' '.join(args)}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def start_workers(env: dict[str, str], n: int, logdir: Path) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-m", "agent.cli", "worker", "--name", f"w{i}"], env=env, cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=open(logdir / f"w{i}.log", "wb"))  # noqa: SIM115
            for i in range(n)]


def stop(workers: list[subprocess.Popen]) -> None:
    for w in workers:
        if w.poll() is None:
            w.send_signal(signal.SIGINT)
    for w in workers:
        try:
            w.wait(timeout=120)
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()


def wait_finished(settings, batch_id: str, workers, *, on_progress=None, timeout: float = 7200) -> None:
    """Poll the items in SQL (a CLI call per poll would take a core from the workers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        (r,) = sql(settings, "SELECT count(*) AS n, count(*) FILTER (WHERE state IN"
                             " ('done', 'already_done', 'refused', 'failed')) AS final"
                             " FROM godot_rag.batch_items WHERE batch_id = %s", (batch_id,))
        if r["n"] and r["final"] == r["n"]:
            return
        if on_progress:
            on_progress(r["final"], r["n"])
        if not any(w.poll() is None for w in workers):
            raise RuntimeError("every worker exited")
        time.sleep(0.25)
    raise RuntimeError(f"batch {batch_id} did not finish")


def wait_registered(settings, n: int, workers, timeout: float = 600) -> None:
    """Until `n` workers are registered in the queue (their model and pools loaded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sql(settings, "SELECT count(*) AS n FROM procrastinate_workers")[0]["n"] >= n:
            return
        if not all(w.poll() is None for w in workers):
            raise RuntimeError("a worker exited at start-up")
        time.sleep(0.2)
    raise RuntimeError("workers did not start")


def sql(settings, query: str, params=()) -> list[dict]:
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(settings.database_url, autocommit=True, row_factory=dict_row) as conn:
        return conn.execute(query, params).fetchall()


def clone(base, admin: str, kb_name: str):
    """A fresh database cloned from the bench's KB database (which nothing else connects to)."""
    import uuid

    import psycopg
    from psycopg import sql as pgsql

    from agent.storage.db import _with_database

    name = f"godot_rag_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(pgsql.SQL("CREATE DATABASE {} TEMPLATE {}").format(pgsql.Identifier(name),
                                                                        pgsql.Identifier(kb_name)))
    return base.with_(database_name=name, database_url=_with_database(admin, name))


def one_phase(base, admin, kb_name: str, targets: Path, *, workers: int, logdir: Path, judge: str = "evidence",
              extra_env: dict[str, str] | None = None, kill_halfway: bool = False, keep: bool = False):
    """Fresh database, `workers` processes, submit, wait; (report, info). Dropped unless `keep`."""
    from bench.analyze import drop_database

    settings = clone(base, admin, kb_name)
    name = settings.database_name
    env = env_for(settings, **(extra_env or {}))
    info: dict = {}
    try:
        procs = start_workers(env, workers, logdir)
        killed = []

        def maybe_kill(final: int, total: int) -> None:
            if kill_halfway and not killed and final >= total // 2:
                info["done_at_kill"] = {(r["run_id"], r["chunk_id"]) for r in sql(
                    settings, "SELECT run_id, chunk_id FROM godot_rag.run_chunks WHERE status = 'done'")}
                os.kill(procs[0].pid, signal.SIGKILL)
                procs[0].wait()
                killed.append(time.monotonic())
                info["killed_after_final"] = final

        try:
            wait_registered(settings, workers, procs)
            sub = cli(env, "batch", "submit", str(targets), "--judge", judge)
            wait_finished(settings, sub["batch_id"], procs, on_progress=maybe_kill)
        finally:
            stop(procs)
        report = cli(env, "batch", "report", sub["batch_id"])
        info["jobs"] = sql(settings, "SELECT status::text AS status, count(*) AS n FROM procrastinate_jobs GROUP BY 1")
        info["attempts"] = {(r["run_id"], r["chunk_id"]): r["attempts"] for r in sql(
            settings, "SELECT run_id, chunk_id, attempts FROM godot_rag.run_chunks")}
        info["env"], info["settings"], info["submit"] = env, settings, sub
        return report, info
    finally:
        if not keep:
            drop_database(admin, name)


def export_check(info: dict, out: Path) -> None:
    """`godot-rag export corpus` of the batch: one folder per verdict, chunks.jsonl valid against the schema."""
    import jsonschema

    from agent.batch.corpus import SCHEMA_PATH

    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "agent.cli", "export", "corpus", "--batch",
                           info["submit"]["batch_id"], "--out", str(out)], env=info["env"], cwd=ROOT,
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"godot-rag export corpus: {done.stderr[-2000:]}")
    schema = json.loads(SCHEMA_PATH.read_text())
    lines = [json.loads(x) for x in (out / "chunks.jsonl").read_text().splitlines() if x.strip()]
    for line in lines:
        jsonschema.validate(line, schema)
    folders = {d.name: len([p for p in d.iterdir() if p.is_dir()]) for d in out.iterdir() if d.is_dir()}
    print(f"  export corpus: {folders} project folders per verdict, {len(lines)} chunks in chunks.jsonl, all valid "
          f"against {SCHEMA_PATH.name}; manifest {sorted(json.loads((out / 'manifest.json').read_text()))}; "
          f"{time.monotonic() - t0:.1f} s", flush=True)


def row(label: str, report: dict) -> tuple[str, float, float, int, float]:
    s = report["status"]
    chunks = sum(i["chunks_done"] for i in report["items"] if i["state"] == "done")
    secs = [i["seconds"] for i in report["items"] if i["state"] == "done" and i["seconds"] is not None]
    print(f"{label:<34}{s['counts']['done']:>6}{chunks:>8}{s['elapsed_s']:>9.1f}{s['projects_per_min']:>13.2f}"
          f"{s['chunks_per_s']:>10.2f}{statistics.median(secs):>11.1f}", flush=True)
    return label, s["projects_per_min"], s["chunks_per_s"], chunks, s["elapsed_s"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--projects", type=int, default=40)
    ap.add_argument("--llm-projects", type=int, default=12)
    ap.add_argument("--llm-delay", type=float, default=0.2)
    ap.add_argument("--overhead", type=int, default=5, help="one-project batches for the overhead medians")
    ap.add_argument("--llm-concurrency", type=int, default=4,
                    help="GODOT_RAG_LLM_MAX_CONCURRENCY: chunks of one run judged at once (the settings' default 4)")
    ap.add_argument("--skip-llm", action="store_true")
    ap.add_argument("--only-llm", action="store_true", help="only the LLM phases")
    ap.add_argument("--skip-kill", action="store_true")
    ap.add_argument("--only-export", action="store_true",
                    help="only the 1-worker evidence phase, then `export corpus` of its batch, validated")
    args = ap.parse_args()

    from agent.settings import Settings
    from agent.storage import database_url
    from bench.analyze import drop_database, make_database

    base = Settings.from_env()
    admin = database_url(base.with_(database_name="postgres"))
    kb_name, _ = make_database(base, admin)  # the test KB (cloned from its template, or ingested once)
    try:
        return run_phases(args, base, admin, kb_name)
    finally:
        drop_database(admin, kb_name)


def run_phases(args, base, admin: str, kb_name: str) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="bench-batch-"))
    projects = pick_projects(args.projects)
    targets = tmp / "targets.txt"
    targets.write_text("".join(f"{p}\n" for p in projects))
    print(f"{len(projects)} projects ({sum(p.name == 'g3' for p in projects)} Godot 3, "
          f"{sum(p.name == 'g4' for p in projects)} Godot 4) from {PORTS}; load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'phase':<34}{'done':>6}{'chunks':>8}{'seconds':>9}{'projects/min':>13}{'chunks/s':>10}{'median s':>11}")

    if args.only_export:
        one, one_info = one_phase(base, admin, kb_name, targets, workers=1, logdir=tmp, keep=True)
        row("evidence, 1 worker", one)
        try:
            export_check(one_info, tmp / "corpus")
        finally:
            from bench.analyze import drop_database

            drop_database(admin, one_info["settings"].database_name)
        return 0
    if not args.only_llm:
        one, one_info = one_phase(base, admin, kb_name, targets, workers=1, logdir=tmp, keep=True)
        r1 = row("evidence, 1 worker", one)
        two, _ = one_phase(base, admin, kb_name, targets, workers=2, logdir=tmp)
        r2 = row("evidence, 2 workers", two)
        print(f"  2 workers / 1: {r2[2] / r1[2]:.2f}x chunks/s, {r2[1] / r1[1]:.2f}x projects/min", flush=True)
        verdicts = {i["target"]: i["verdict"] for i in one["items"]}
        wrong = [t for t, v in verdicts.items() if v != Path(t).name.replace("g", "godot")]
        print(f"  verdicts right: {len(verdicts) - len(wrong)}/{len(verdicts)}" + (f" (wrong: {wrong})" if wrong else ""))
        export_check(one_info, tmp / "corpus")

    if not args.skip_llm:
        from tests.llm_servers.launch import running_server

        small = tmp / "llm_targets.txt"
        small.write_text("".join(f"{p}\n" for p in projects[: args.llm_projects]))
        with running_server("stub_server.py", "--mode", "good", "--delay", str(args.llm_delay)) as llm_url:
            llm_env = {"GODOT_RAG_LLM_BASE_URL": llm_url, "GODOT_RAG_LLM_MODEL": "stub",
                       "GODOT_RAG_LLM_MAX_CONCURRENCY": str(args.llm_concurrency)}
            tag = f"llm stub {args.llm_delay * 1000:.0f} ms x{args.llm_concurrency}"
            l1, _ = one_phase(base, admin, kb_name, small, workers=1, logdir=tmp, judge="llm", extra_env=llm_env)
            a = row(f"{tag}, 1 worker", l1)
            l2, _ = one_phase(base, admin, kb_name, small, workers=2, logdir=tmp, judge="llm", extra_env=llm_env)
            b = row(f"{tag}, 2 workers", l2)
        print(f"  2 workers / 1: {b[2] / a[2]:.2f}x chunks/s, {b[1] / a[1]:.2f}x projects/min", flush=True)

    if args.only_llm:
        return 0
    if not args.skip_kill:
        killed, kinfo = one_phase(base, admin, kb_name, targets, workers=2, logdir=tmp, kill_halfway=True)
        row("evidence, 2 workers, 1 kill -9", killed)
        jobs = {r["status"]: r["n"] for r in kinfo["jobs"]}
        tries = sorted(i["tries"] for i in killed["items"])
        judged_again = [k for k in kinfo.get("done_at_kill", set()) if kinfo["attempts"].get(k, 1) > 1]
        restarted = sum(1 for a in kinfo["attempts"].values() if a > 1)
        kverdicts = {i["target"]: i["verdict"] for i in killed["items"]}
        print(f"  killed after {kinfo.get('killed_after_final')} of {len(killed['items'])} final; items done "
              f"{killed['status']['counts']['done']}/{len(killed['items'])}; jobs {jobs}; items tried twice "
              f"{sum(t > 1 for t in tries)}; chunks done at the kill judged again: {len(judged_again)}; chunks "
              f"started twice (in flight at the kill): {restarted}; verdicts equal to phase 1: "
              f"{sum(kverdicts[t] == verdicts[t] for t in verdicts)}/{len(verdicts)}", flush=True)

    settings, env = one_info["settings"], one_info["env"]
    from bench.analyze import drop_database

    try:
        t0 = time.monotonic()
        again = cli(env, "batch", "submit", str(targets))
        print(f"resubmit: {again['queued']} queued, {again['already_done']} already done, "
              f"{time.monotonic() - t0:.1f} s wall (CLI process included)", flush=True)
        procs = start_workers(env, 1, tmp)
        try:
            wait_registered(settings, 1, procs)
            starts, visible, succeeded = [], [], []
            for k in range(args.overhead):
                proj = tmp / f"tiny{k}"
                proj.mkdir()
                (proj / "project.godot").write_text("config_version=5\n")
                (proj / "main.gd").write_text(f"extends Node\n\nfunc _ready() -> void:\n\tprint({k})\n")
                one_file = tmp / f"tiny{k}.txt"
                one_file.write_text(f"{proj}\n")
                sub = cli(env, "batch", "submit", str(one_file))
                wait_finished(settings, sub["batch_id"], procs)
                (r,) = sql(settings,
                           "SELECT extract(epoch FROM (SELECT at FROM procrastinate_events e WHERE e.job_id = i.job_id"
                           "  AND type = 'started' ORDER BY at LIMIT 1) - (SELECT at FROM procrastinate_events e"
                           "  WHERE e.job_id = i.job_id AND type = 'deferred')) AS start,"
                           " extract(epoch FROM i.finished_at - r.finished_at) AS visible,"
                           " extract(epoch FROM (SELECT at FROM procrastinate_events e WHERE e.job_id = i.job_id"
                           "  AND type = 'succeeded') - i.finished_at) AS succeeded"
                           " FROM godot_rag.batch_items i JOIN godot_rag.runs r USING (run_id) WHERE i.batch_id = %s",
                           (sub["batch_id"],))
                starts.append(float(r["start"]) * 1000)
                visible.append(float(r["visible"]) * 1000)
                succeeded.append(float(r["succeeded"]) * 1000)
            print(f"queue overhead (idle worker, {args.overhead} one-project batches, medians): enqueue -> start "
                  f"{statistics.median(starts):.0f} ms; run end (verdict stored) -> item final {statistics.median(visible):.0f} ms "
                  f"(the report and answer steps of the run); item final -> job succeeded "
                  f"{statistics.median(succeeded):.0f} ms", flush=True)
        finally:
            stop(procs)
    finally:
        drop_database(admin, settings.database_name)
    print(f"(load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
