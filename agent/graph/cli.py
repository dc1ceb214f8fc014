"""`godot-rag analyze | resume | runs | show | export` (a fixed contract: scripts parse it).

Progress goes to stderr (tqdm); `--format json` prints exactly one JSON object on stdout.
Intake errors print a clear message on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent.runs.store import dumps
from agent.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    """Add the analysis commands to the `godot-rag` parser."""
    p = sub.add_parser("analyze", help="analyze a project, file, zip, GitHub URL or a snippet on stdin ('-')")
    p.add_argument("target", help="directory | .zip | file | GitHub URL | '-' for a snippet on stdin")
    p.add_argument("--prompt", default="", help="what you want to know (default: Godot 3 or 4, and what to change)")
    p.add_argument("--format", choices=("json", "text"), default="text", help="stdout format")
    p.add_argument("--run-id", default=None, help="id for the run (default: a new random id)")
    p.add_argument("--judge", choices=("evidence", "llm"), default=None, help="judge (default: GODOT_RAG_JUDGE)")
    p.add_argument("--owner", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("resume", help="continue an interrupted run at its first chunk that is not done")
    p.add_argument("run_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("runs", help="list recent runs")
    p.add_argument("--owner", default=None, help="only this owner's runs")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("show", help="show a stored run's report")
    p.add_argument("run_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", help="write a run's per-chunk results as JSONL (training data)")
    p.add_argument("run_id")
    p.add_argument("--out", default=None, help="output file (default: stdout)")
    p.set_defaults(func=cmd_export)


def _err(message: str) -> None:
    print(f"godot-rag: {message}", file=sys.stderr)


def _print_report(report: dict[str, Any], fmt: str) -> int:
    from agent.graph.report import render_text

    if fmt == "json":
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render_text(report) + "\n")
    sys.stdout.flush()
    return 0 if report["status"] == "completed" else 1


class _Progress:
    """A tqdm bar on stderr fed by progress events."""

    def __init__(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=0, unit="chunk", file=sys.stderr, mininterval=0.5, desc="analyze")

    async def __call__(self, event: Any) -> None:
        if event.total and self.bar.total != event.total:
            self.bar.total = event.total
        if event.kind == "files" and event.message:
            self.bar.write(event.message, file=sys.stderr)
        if event.kind == "chunk_status" and event.status == "processing":
            self.bar.set_postfix_str(f"{event.source_file}:{event.start_line}-{event.end_line}", refresh=False)
        if event.kind == "chunk_status" and event.status == "failed":
            self.bar.write(f"failed {event.source_file}:{event.start_line}: {event.message}", file=sys.stderr)
        if event.done != self.bar.n:
            self.bar.n = event.done
            self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


async def _service(settings: Settings, *, reading_only: bool = False):
    from agent.graph.service import AnalysisService

    return await AnalysisService.create(settings, reading_only=reading_only)


def _using_service(
    settings: Settings,
    call: Callable[[Any, _Progress | None], Awaitable[Any]],
    *,
    reading_only: bool = False,
    progress: bool = False,
) -> Any:
    """Open the service, await `call(service, progress_bar)`, and close both whatever happens."""

    async def run() -> Any:
        service = await _service(settings, reading_only=reading_only)
        bar = _Progress() if progress else None
        try:
            return await call(service, bar)
        finally:
            if bar is not None:
                bar.close()
            await service.close()

    return asyncio.run(run())


async def _warn_if_kb_empty(service: Any) -> None:
    counts = await service.kb_counts()
    if not any(counts.values()):
        _err("the knowledge base is empty: run `godot-rag ingest` first (judging without evidence for now)")


def _intake(args: argparse.Namespace, settings: Settings) -> Any:
    from agent.intake import intake_target

    return intake_target(args.target, prompt=args.prompt, settings=settings)


def cmd_analyze(args: argparse.Namespace) -> int:
    """`godot-rag analyze TARGET`."""
    from agent.intake import IntakeError

    settings = Settings.from_env()
    try:
        intake = _intake(args, settings)
    except IntakeError as exc:
        _err(str(exc))
        return 2

    async def analyze(service: Any, progress: _Progress | None) -> dict[str, Any]:
        await _warn_if_kb_empty(service)
        return await service.analyze(
            intake, run_id=args.run_id, judge=args.judge, owner=args.owner, on_event=progress
        )

    try:
        report = _using_service(settings, analyze, progress=True)
    except ValueError as exc:  # bad run id, run id already used, unknown judge
        _err(str(exc))
        return 2
    return _print_report(report, args.format)


def cmd_resume(args: argparse.Namespace) -> int:
    """`godot-rag resume RUN_ID`."""
    from agent.graph.service import RunBusyError

    settings = Settings.from_env()

    async def resume(service: Any, progress: _Progress | None) -> dict[str, Any]:
        return await service.resume(args.run_id, on_event=progress)

    try:
        report = _using_service(settings, resume, progress=True)
    except KeyError:
        _err(f"no run {args.run_id!r} (see `godot-rag runs`)")
        return 2
    except RunBusyError as exc:
        _err(str(exc))
        return 2
    return _print_report(report, args.format)


def cmd_show(args: argparse.Namespace) -> int:
    """`godot-rag show RUN_ID`."""
    settings = Settings.from_env()

    try:
        report = _using_service(settings, lambda service, _: service.report(args.run_id), reading_only=True)
    except KeyError:
        _err(f"no run {args.run_id!r} (see `godot-rag runs`)")
        return 2
    _print_report(report, args.format)
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    """`godot-rag runs`."""
    settings = Settings.from_env()

    runs = _using_service(
        settings, lambda service, _: service.list_runs(owner=args.owner, limit=args.limit), reading_only=True
    )
    if args.format == "json":
        print(json.dumps(runs, ensure_ascii=False))
        return 0
    if not runs:
        print("no runs yet")
    for r in runs:
        print(
            f"{r['run_id']:<18} {r['status']:<11} {r['verdict'] or '-':<9} {r['done']:>4}/{r['total']:<4} "
            f"{r['created_at'][:19]}  {r['source'] or ''}"
        )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """`godot-rag export RUN_ID [--out FILE]`: one JSON line per done chunk."""
    settings = Settings.from_env()

    try:
        rows = _using_service(
            settings, lambda service, _: service.export_rows(args.run_id), reading_only=True
        )
    except KeyError:
        _err(f"no run {args.run_id!r} (see `godot-rag runs`)")
        return 2
    text = "".join(dumps(r) + "\n" for r in rows)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        _err(f"wrote {len(rows)} record(s) to {args.out}")
    else:
        sys.stdout.write(text)
    return 0
