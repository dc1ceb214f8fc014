"""`godot-rag batch submit | status | report | retry` and `godot-rag worker`.

Same contract as the analysis commands (`agent.graph.cli`), from the same `agent.cli_common`:
`--format json` prints exactly one JSON object on stdout, failures are one stderr line and the
documented exit code. The work is in `agent.batch`; these functions parse, call and print.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from typing import Any

from agent.cli_common import (
    OK,
    CliFailure,
    command,
    err,
    load_settings,
    positive_int,
    using_service,
    write_json,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add `batch ...` and `worker` to the `godot-rag` parser."""
    batch = sub.add_parser("batch", help="analyze many projects through the job queue (see `worker`)")
    bsub = batch.add_subparsers(dest="batch_command", metavar="BATCH_COMMAND")

    p = bsub.add_parser("submit", help="queue one analysis per line of FILE ('-': stdin): GitHub URLs, folders, zips")
    p.add_argument("file", help="a file with one target per line ('#' comments), or '-' for stdin")
    p.add_argument("--prompt", default="", help="what you want to know (as for analyze)")
    p.add_argument("--judge", choices=("evidence", "llm"), default=None, help="judge (default: GODOT_RAG_JUDGE)")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_submit)

    p = bsub.add_parser("status", help="per-state counts and throughput (a live bar on a terminal)")
    p.add_argument("batch_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.add_argument("--no-wait", action="store_true", help="print once, even on a terminal")
    p.set_defaults(func=cmd_status)

    p = bsub.add_parser("report", help="per target: state, verdict, chunks, time, tries, error")
    p.add_argument("batch_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_report)

    p = bsub.add_parser("retry", help="queue the failed targets of a batch again")
    p.add_argument("batch_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_retry)

    p = sub.add_parser("worker", help="run queued batch jobs until stopped (start as many as you like)")
    p.add_argument("--concurrency", type=positive_int, default=1, help="jobs at once in this process")
    p.add_argument("--queues", nargs="+", choices=("github", "local"), default=None,
                   help="only these queues (default: all)")
    p.add_argument("--name", default=None, help="the worker's name in logs")
    p.set_defaults(func=cmd_worker)


def _read_lines(path: str) -> list[str]:
    from agent.batch.targets import read_targets

    if path == "-":
        return read_targets(sys.stdin.read().splitlines())
    try:
        with open(path, encoding="utf-8") as fh:
            return read_targets(fh.read().splitlines())
    except OSError as exc:
        raise CliFailure(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CliFailure(f"cannot read {path}: it is not UTF-8 text") from None


async def _with_app(service: Any, call: Any) -> Any:
    from agent.batch.queue import make_app

    app = make_app(service.url, service.settings)
    async with app.open_async():
        return await call(app)


@command
def cmd_submit(args: argparse.Namespace) -> int:
    """`godot-rag batch submit FILE`."""
    from agent.batch.submit import submit

    settings = load_settings()
    targets = _read_lines(args.file)
    if not targets:
        raise CliFailure(f"no targets in {args.file}: one GitHub URL, folder or zip per line")
    judge = args.judge or settings.judge
    line = "godot-rag " + " ".join(shlex.quote(a) for a in sys.argv[1:])

    async def go(service: Any, _: Any) -> Any:
        return await _with_app(service, lambda app: submit(service, app, targets, prompt=args.prompt, judge=judge,
                                                           command=line))

    result = using_service(settings, go, reading_only=True)
    if args.format == "json":
        write_json(result.model_dump(mode="json"))
        return OK
    print(f"batch {result.batch_id}: {result.queued} queued, {result.already_done} already done, "
          f"{len(result.refused)} refused" + (f", {result.duplicates} duplicate(s)" if result.duplicates else ""))
    for r in result.refused:
        print(f"  refused {r.target}: {r.reason}")
    sys.stdout.flush()
    if result.queued:
        err(f"run workers (`godot-rag worker`) and follow it with `godot-rag batch status {result.batch_id}`")
    return OK


async def _status(service: Any, batch_id: str) -> Any:
    from agent.batch.store import BatchStore

    store = BatchStore(service.pool)
    if await store.get_batch(batch_id) is None:
        raise CliFailure(f"no batch {batch_id!r}", error="unknown_batch")
    return await store.status(batch_id)


def _status_line(s: Any) -> str:
    counts = ", ".join(f"{n} {state.replace('_', ' ')}" for state, n in s.counts.items() if n)
    rate = ""
    if s.projects_per_min is not None:
        rate = f"; {s.projects_per_min:.1f} projects/min, {s.chunks_per_s:.1f} chunks/s over {s.elapsed_s:.0f} s"
    return f"batch {s.batch_id}: {s.total} target(s): {counts or 'none'}{rate}" + (" (finished)" if s.finished else "")


@command
def cmd_status(args: argparse.Namespace) -> int:
    """`godot-rag batch status ID`: once, or a live bar until the batch finishes when stderr is a terminal."""
    from agent.batch.models import FINAL_STATES

    settings = load_settings()
    live = args.format == "text" and not args.no_wait and sys.stderr.isatty()

    async def go(service: Any, _: Any) -> Any:
        status = await _status(service, args.batch_id)
        if not live or status.finished:
            return status
        from tqdm import tqdm

        bar = tqdm(total=status.total, unit="project", file=sys.stderr, desc=args.batch_id)
        try:
            while True:
                bar.n = sum(n for state, n in status.counts.items() if state in FINAL_STATES)
                bar.set_postfix_str(f"{status.counts['running']} running, {status.counts['failed']} failed, "
                                    f"{status.chunks_done} chunks", refresh=True)
                if status.finished:
                    return status
                await asyncio.sleep(1.0)
                status = await _status(service, args.batch_id)
        finally:
            bar.close()

    status = using_service(settings, go, reading_only=True)
    if args.format == "json":
        write_json(status.model_dump(mode="json"))
    else:
        print(_status_line(status))
    return OK


@command
def cmd_report(args: argparse.Namespace) -> int:
    """`godot-rag batch report ID`."""
    from agent.batch.models import BatchReport
    from agent.batch.store import BatchStore

    settings = load_settings()

    async def go(service: Any, _: Any) -> BatchReport:
        store = BatchStore(service.pool)
        batch = await store.get_batch(args.batch_id)
        if batch is None:
            raise CliFailure(f"no batch {args.batch_id!r}", error="unknown_batch")
        items = await store.items(args.batch_id)
        return BatchReport(
            batch_id=args.batch_id, created_at=batch["created_at"].isoformat(), judge=batch["judge_kind"],
            kb_version=batch["kb_version"], prompt=batch["prompt"], status=await store.status(args.batch_id, items),
            items=items,
        )

    report = using_service(settings, go, reading_only=True)
    if args.format == "json":
        write_json(report.model_dump(mode="json"))
        return OK
    print(_status_line(report.status))
    for i in report.items:
        took = f"{i.seconds:.1f}s" if i.seconds is not None else "-"
        why = f"  {i.reason}" if i.reason else ""
        print(f"{i.position:>4} {i.state:<12} {i.verdict or '-':<9} {i.chunks_done:>5}/{i.chunks:<5} {took:>8} "
              f"x{i.tries} {i.run_id or '-':<26} {i.target}{why}")
    return OK


@command
def cmd_retry(args: argparse.Namespace) -> int:
    """`godot-rag batch retry ID`."""
    from agent.batch.submit import retry_failed

    settings = load_settings()

    async def go(service: Any, _: Any) -> int:
        try:
            return await _with_app(service, lambda app: retry_failed(service, app, args.batch_id))
        except KeyError:
            raise CliFailure(f"no batch {args.batch_id!r}", error="unknown_batch") from None

    queued = using_service(settings, go, reading_only=True)
    if args.format == "json":
        write_json({"batch_id": args.batch_id, "queued": queued})
    else:
        print(f"batch {args.batch_id}: {queued} failed target(s) queued again")
    return OK


@command
def cmd_worker(args: argparse.Namespace) -> int:
    """`godot-rag worker`: runs jobs until SIGINT/SIGTERM (running jobs finish first)."""
    from agent.batch.queue import serve

    settings = load_settings()
    err(f"worker {args.name or os.getpid()}: concurrency {args.concurrency}, "
        f"queues {', '.join(args.queues) if args.queues else 'all'}")
    try:
        asyncio.run(serve(settings, concurrency=args.concurrency, queues=args.queues, name=args.name))
    except KeyboardInterrupt:
        pass
    return OK
