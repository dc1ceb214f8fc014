"""Limits bench: the worst input each intake limit still accepts, and what it costs before any judging.

Each case runs in a fresh child process (so peak RSS is that case's own) and measures what a
front door does with the input: intake (walk, read, decode, the chunk-cap count) and the graph's
own chunking that follows it (a parse-cache hit in the same process). The baseline is a one-function
snippet through the same steps, in the same run. Cases, at the CLI's default limits:

- largest file: one .gd of just under GODOT_RAG_MAX_FILE_BYTES (long functions, under the chunk cap);
- most files: GODOT_RAG_MAX_FILES scripts, two chunks each;
- most listed: GODOT_RAG_MAX_LISTED_FILES entries (the analysed scripts plus PNG assets only listed);
- most chunks: exactly the chunk cap, in three-line functions (the smallest pieces the parser does
  not fold: runs of 16+ one-line pieces fold into chunks of up to 64 lines);
- over cap: one function more, to show how long the refusal takes;
- the issue's paste: 50,001 one-line functions, which fold into about 1,600 chunks and are accepted;
- a 10,000-chunk project: 400 scripts of 24 functions each, the size of a real mid-size app.

`--whole` also analyses the 10,000-chunk project end to end with `godot-rag analyze` in a child process
(the embedded database and its knowledge base) and prints its wall time and peak memory.

With `--analyze N` (default 200) it also judges the first N chunks of the most-chunks case through
the real service (evidence judge; the test KB template when it exists, else an empty KB) and
extrapolates the time a run at the cap would take at each front door's default.

    .venv/bin/python bench/limits.py [--analyze 200] [--only most_chunks ...]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES = ("baseline", "largest_file", "most_files", "most_listed", "most_chunks", "over_cap", "issue_paste",
         "project_10k")


def _unfolded_funcs(n: int) -> str:
    """`extends Node` and n - 1 three-line functions: n chunks (nothing tiny enough to fold)."""
    return "extends Node\n" + "".join(f"func f{i}():\n\tvar v = {i}\n\tprint(v)\n" for i in range(n - 1))


def _func(i: int, body_lines: int) -> str:
    body = "".join(f"\tvar v{k} = position.x * {k} + delta\n" for k in range(body_lines))
    return f"func step_{i}(delta: float) -> void:\n{body}\tmove_and_slide()\n\n"


def build(case: str, root: Path) -> str:
    """Write the case's input under `root`; the CLI target to give intake."""
    from agent.settings import Settings

    s = Settings.from_env()
    root.mkdir(parents=True, exist_ok=True)
    if case == "baseline":
        (root / "main.gd").write_text("extends Node\n\nfunc _ready() -> void:\n\tprint(1)\n")
    elif case == "largest_file":
        one = _func(0, 100)
        n = (s.max_file_bytes - 100) // len(one.encode())
        text = "extends CharacterBody2D\n\n" + "".join(_func(i, 100) for i in range(n))
        (root / "big.gd").write_text(text[: s.max_file_bytes - 10])
    elif case in ("most_files", "most_listed"):
        for i in range(s.max_files):
            (root / f"s{i:04d}.gd").write_text(f"extends Node\n\nfunc f{i}() -> void:\n\tpass\n")
        if case == "most_listed":
            art = root / "art"
            art.mkdir()
            for i in range(s.max_listed_files - s.max_files):
                (art / f"sprite_{i:05d}.png").write_bytes(b"\x89PNG\r\n")
    elif case == "most_chunks":
        (root / "many.gd").write_text(_unfolded_funcs(s.chunk_limit))
    elif case == "over_cap":
        (root / "many.gd").write_text(_unfolded_funcs(s.chunk_limit + 1))
    elif case == "project_10k":
        for i in range(400):  # 400 scripts x (extends + 24 functions) = 10,000 chunks
            funcs = 24
            (root / f"s{i:03d}.gd").write_text("extends Node2D\n\n" + "".join(
                f"func f{j}(delta: float) -> void:\n\tposition.x += delta * {j}\n\tif position.x > {i}:\n"
                f"\t\tqueue_redraw()\n\n" for j in range(funcs)))
        (root / "project.godot").write_text("config_version=5\n")
    elif case == "issue_paste":
        (root / "paste.gd").write_text("extends Node\n" + "".join(f"func f{i}():\n\tpass\n" for i in range(50_000)))
    else:
        raise SystemExit(f"unknown case {case!r}")
    return str(root if case in ("most_files", "most_listed", "project_10k") else next(root.iterdir()))


def child(case: str, target: str) -> None:
    """Run one case (intake, then the graph's chunking) and print its numbers as JSON."""
    from agent.intake import IntakeError, intake_target
    from agent.parse import chunk_project
    from agent.settings import Settings

    settings = Settings.from_env()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    out: dict = {"case": case}
    try:
        r = intake_target(target, settings=settings)
        t1 = time.perf_counter()
        chunks = chunk_project(r.expansion, project_id=r.project_id)
        t2 = time.perf_counter()
        out.update(accepted=True, files=len(r.expansion.included), listed=len(r.expansion.files),
                   chunks=len(chunks), intake_s=t1 - t0, chunk_s=t2 - t1,
                   bytes=sum(f.size for f in r.expansion.included))
    except IntakeError as exc:
        out.update(accepted=False, intake_s=time.perf_counter() - t0, chunk_s=0.0, refusal=str(exc)[:160])
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["start_mb"] = rss0 / 1024
    print(json.dumps(out))


def run_case(case: str, tmp: Path) -> dict:
    target = build(case, tmp / case)
    done = subprocess.run([sys.executable, __file__, "--child", case, target], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{case} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def analyze_sample(n: int) -> float:
    """Chunks/s of the evidence judge on `n` one-line-function chunks, through the real service."""
    import asyncio
    import uuid

    import psycopg
    from psycopg import sql

    from agent.graph.service import AnalysisService
    from agent.intake import intake_snippet
    from agent.settings import Settings
    from agent.storage import connection, database_url, migrate
    from agent.storage.db import _with_database

    base = Settings.from_env()
    admin = database_url(base.with_(database_name="postgres"))
    name = f"godot_rag_benchlim_{uuid.uuid4().hex[:8]}"
    kb = "empty KB"
    with psycopg.connect(admin, autocommit=True) as conn:
        tpl = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'godot\\_rag\\_kbtpl\\_%%' AND datistemplate").fetchone()
        if tpl:
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(tpl[0])))
            kb = f"test KB ({tpl[0]})"
        else:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    settings = base.with_(database_name=name, database_url=_with_database(admin, name))
    try:
        with connection(settings) as c:
            migrate(c, settings)
        intake = intake_snippet(_unfolded_funcs(n), settings=settings)

        async def go() -> float:
            svc = await AnalysisService.create(settings)
            try:
                await svc.analyze(intake_snippet(_unfolded_funcs(2), settings=settings))  # warm: model, pools, graph
                t = time.perf_counter()
                report = await svc.analyze(intake)
                assert report["status"] == "completed", report["status"]
                return len(report["chunks"]) / (time.perf_counter() - t)
            finally:
                await svc.close()

        rate = asyncio.run(go())
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    print(f"\nanalysis sample: {n} chunks, evidence judge, {kb}: {rate:.1f} chunks/s")
    return rate


def whole(target: str) -> None:
    """The 10,000-chunk project through `godot-rag analyze` as a user runs it: wall time and peak RSS."""
    import os

    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", "from agent.cli import main; raise SystemExit(main())", "analyze",
                             target, "--format", "json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={k: v for k, v in os.environ.items() if k != "GODOT_RAG_MAX_CHUNKS"})
    out, err = proc.communicate()
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    try:
        report = json.loads(out)
        what = f"{report.get('status')}, {len(report.get('chunks') or [])} chunks, verdict " \
               f"{(report.get('verdict') or {}).get('label')}"
    except ValueError:
        what = "no report: " + err[-300:]
    estimate = next((line for line in err.splitlines() if "chunks to judge" in line), "")
    print(f"\nwhole 10,000-chunk project: {what}; {seconds:.0f} s wall ({seconds / 60:.1f} min), "
          f"peak RSS {peak:.0f} MB (largest child process)\n  told at intake: {estimate}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", nargs=2, metavar=("CASE", "TARGET"), help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="*", choices=CASES, default=None, help="run only these cases (baseline always)")
    ap.add_argument("--analyze", type=int, default=200, help="chunks judged for the throughput sample (0: skip)")
    ap.add_argument("--whole", action="store_true", help="analyse the 10,000-chunk project end to end (minutes)")
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    from agent.settings import DEFAULT_MAX_CHUNKS, Settings

    s = Settings.from_env()
    print(f"limits: file {s.max_file_bytes:,} B, files {s.max_files:,}, listed {s.max_listed_files:,}, "
          f"total {s.max_total_bytes:,} B, chunks {DEFAULT_MAX_CHUNKS} (GODOT_RAG_MAX_CHUNKS={s.max_chunks})")
    cases = ["baseline", *[c for c in CASES[1:] if args.only is None or c in args.only]]
    rows = []
    with tempfile.TemporaryDirectory(prefix="godot-rag-limits-") as tmp:
        for case in cases:
            rows.append(run_case(case, Path(tmp)))
    base = rows[0]
    print(f"\n{'case':<14} {'accepted':>8} {'files':>6} {'listed':>7} {'chunks':>7} {'MB in':>6} "
          f"{'intake s':>9} {'chunk s':>8} {'peak MB':>8} {'vs base':>8}")
    for r in rows:
        mb = r.get("bytes", 0) / 1e6
        print(f"{r['case']:<14} {str(r['accepted']):>8} {r.get('files', '-'):>6} {r.get('listed', '-'):>7} "
              f"{r.get('chunks', '-'):>7} {mb:>6.2f} {r['intake_s']:>9.2f} {r['chunk_s']:>8.2f} "
              f"{r['peak_mb']:>8.0f} {r['peak_mb'] - base['peak_mb']:>+8.0f}")
        if not r["accepted"]:
            print(f"{'':<14} refused: {r['refusal']}")
    if args.whole:
        with tempfile.TemporaryDirectory(prefix="godot-rag-limits-") as tmp:
            whole(build("project_10k", Path(tmp) / "project_10k"))
    if args.analyze > 0:
        rate = analyze_sample(args.analyze)
        for door, cap in DEFAULT_MAX_CHUNKS.items():
            print(f"  a run at the {door} cap of {cap:,} chunks: ~{cap / rate / 60:.1f} min of judging")


if __name__ == "__main__":
    main()
