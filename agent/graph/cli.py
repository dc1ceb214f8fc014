"""`godot-rag analyze | resume | runs | show | export` (a fixed contract: scripts parse it).

Progress goes to stderr (tqdm); `--format json` prints exactly one JSON object on stdout, on
success and on failure alike. Exit codes: 0 the run completed; 1 it failed or was interrupted
(Ctrl-C, SIGTERM, an unexpected error); 2 bad input, an unknown run, a run busy elsewhere or a
database that cannot be reached. A failure's JSON is `{"status": "failed", "error": KIND,
"reason": TEXT, "run_id": ID-or-null, "exit_code": N}`; an interrupted run prints its own report
(status `interrupted`) and says on stderr how to resume it. Every message is redacted
(`agent.redact`): no credentials, tokens or database URLs reach the terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import logging
import os
import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agent.redact import redact
from agent.settings import Settings

log = logging.getLogger(__name__)

OK, FAILED, BAD_INPUT = 0, 1, 2
"""The exit codes (README: "Exit codes")."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


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

    p = sub.add_parser("migrate", help="write the validated Godot 4 form of a project, file, zip, GitHub URL or "
                                       "snippet ('-'): a migrated copy (--out) or a unified diff (--patch), never in place")
    p.add_argument("target", help="directory | .zip | file | GitHub URL | '-' for a snippet on stdin")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", default=None, help="a new (or empty) folder for the migrated copy")
    where.add_argument("--patch", default=None, help="a file for the unified diff ('-' for stdout)")
    p.add_argument("--format", choices=("json", "text"), default="text", help="the summary's format on stdout")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("check", help="what Godot 4 refuses in the GDScript of a project, file, zip, GitHub URL or "
                                     "snippet ('-'): undeclared names, missing members, calls, redeclarations, "
                                     "Godot 3 grammar (exit 1 when it finds an error)")
    p.add_argument("target", help="directory | .zip | file | GitHub URL | '-' for a snippet on stdin")
    p.add_argument("--format", choices=("json", "text"), default="text", help="stdout format")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("resume", help="continue an interrupted run at its first chunk that is not done")
    p.add_argument("run_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("runs", help="list recent runs")
    p.add_argument("--owner", default=None, help="only this owner's runs")
    p.add_argument("--limit", type=_positive_int, default=50, help="at most this many runs (at least 1)")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("show", help="show a stored run's report")
    p.add_argument("run_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", help="write a run's per-chunk results as JSONL (training data); "
                                      "`export corpus --batch ID --out DIR`: a batch's classified corpus")
    p.add_argument("run_id", help="a run id, or `corpus` with --batch")
    p.add_argument("--out", default=None, help="output file (default: stdout); its folder must exist; "
                                               "with --batch, the corpus folder")
    p.add_argument("--batch", default=None, help="`export corpus`: the batch whose completed runs to add")
    p.add_argument("--min-confidence", type=float, default=0.0,
                   help="`export corpus`: leave out chunks judged below this confidence (0-1)")
    p.add_argument("--format", choices=("json", "text"), default="text", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_export)


# ---- failures and interruptions ------------------------------------------------------------------


class CliFailure(Exception):
    """A command that cannot do what was asked: `reason` for the user, `error` a stable kind for scripts."""

    def __init__(self, reason: str, *, error: str = "bad_input", code: int = BAD_INPUT, run_id: str | None = None):
        super().__init__(reason)
        self.reason, self.error, self.code, self.run_id = reason, error, code, run_id


class Interrupted(Exception):
    """SIGINT or SIGTERM arrived; `report` is the interrupted run's report when the run exists."""

    def __init__(self, signame: str, run_id: str | None, report: dict[str, Any] | None):
        super().__init__(signame)
        self.signame, self.run_id, self.report = signame, run_id, report


def _err(message: str) -> None:
    print(f"godot-rag: {redact(message, _secrets())}", file=sys.stderr)


def _secrets() -> tuple[str | None, ...]:
    """Exact values no message may contain (read from the environment; never printed)."""
    return tuple(os.environ.get(name) for name in ("GODOT_RAG_DATABASE_URL", "GODOT_RAG_LLM_API_KEY", "DISCORD_TOKEN"))


def failure_json(reason: str, *, error: str, code: int, run_id: str | None = None) -> dict[str, Any]:
    """The one JSON object `--format json` prints when a command fails before or without a report."""
    return {"status": "failed", "error": error, "reason": redact(reason, _secrets()), "run_id": run_id,
            "exit_code": code}


def _emit_failure(fmt: str, failure: CliFailure) -> int:
    _err(failure.reason)
    if fmt == "json":
        _write_json(failure_json(failure.reason, error=failure.error, code=failure.code, run_id=failure.run_id))
    return failure.code


def _write_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _classify(exc: BaseException, run_id: str | None) -> CliFailure:
    """Map what a command raised to the user's reason, the error kind and the exit code."""
    from agent.graph.service import RunBusyError
    from agent.intake import IntakeError
    from agent.storage import DatabaseError

    if isinstance(exc, CliFailure):
        return exc
    if isinstance(exc, IntakeError):
        return CliFailure(str(exc), run_id=run_id)
    if isinstance(exc, DatabaseError):
        return CliFailure(
            f"the database cannot be used: {' '.join(str(exc).split())} (check GODOT_RAG_DATABASE_URL, or unset it for the embedded one)",
            error="database", run_id=run_id,
        )
    if isinstance(exc, RunBusyError):
        return CliFailure(str(exc), error="run_busy", run_id=run_id)
    if isinstance(exc, KeyError) and run_id is not None and exc.args == (run_id,):
        return CliFailure(f"no run {run_id!r} (see `godot-rag runs`)", error="unknown_run", run_id=run_id)
    log.debug("command failed", exc_info=exc)
    return CliFailure(
        f"internal error: {type(exc).__name__}: {exc} (run with -v for details)",
        error="internal", code=FAILED, run_id=run_id,
    )


def command(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Run a command so that every way it can end is one stderr line, one JSON object with
    `--format json`, and the documented exit code; an interrupted run names its resume command."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        fmt = getattr(args, "format", "text")
        try:
            return func(args)
        except Interrupted as stop:
            return _report_interrupted(stop, fmt)
        except KeyboardInterrupt:  # before or after the event loop (intake, a git fetch, printing)
            return _report_interrupted(Interrupted("SIGINT", None, None), fmt)
        except Exception as exc:
            if logging.getLogger().isEnabledFor(logging.DEBUG):
                log.exception("command failed")
            return _emit_failure(fmt, _classify(exc, getattr(args, "run_id", None)))

    return wrapper


def _report_interrupted(stop: Interrupted, fmt: str) -> int:
    if stop.report is not None:
        rid = stop.run_id
        _err(f"interrupted ({stop.signame}); run {rid} is resumable: godot-rag resume {rid}")
        if fmt == "json":
            _write_json(stop.report)
        else:
            _print_report(stop.report, fmt)
        return FAILED
    _err(f"interrupted ({stop.signame}) before the analysis started: nothing was changed")
    if fmt == "json":
        _write_json({"status": "interrupted", "error": "interrupted",
                     "reason": f"{stop.signame} before the analysis started", "run_id": None,
                     "exit_code": FAILED})
    return FAILED


# ---- output --------------------------------------------------------------------------------------


def _print_report(report: dict[str, Any], fmt: str) -> int:
    from agent.graph.report import render_text

    if fmt == "json":
        _write_json(report)
    else:
        sys.stdout.write(render_text(report) + "\n")
        sys.stdout.flush()
    return OK if report["status"] == "completed" else FAILED


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


# ---- the service, with stop signals turned into a resumable interruption -------------------------


def _using_service(
    settings: Settings,
    call: Callable[[Any, _Progress | None], Awaitable[Any]],
    *,
    reading_only: bool = False,
    progress: bool = False,
    run_id: str | None = None,
) -> Any:
    """Open the service, await `call(service, progress_bar)`, and close both whatever happens.

    SIGINT and SIGTERM cancel the call: the service marks the run interrupted (finished chunks
    kept, chunks in flight `stopped`), and `Interrupted` carries the run's report when `run_id`
    names a run that exists. A second signal ends the process at once (the run stays resumable,
    as after kill -9).
    """

    async def run() -> Any:
        from agent.graph.service import AnalysisService

        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        caught: list[str] = []
        working = [True]  # a signal once the call has returned only waits for the clean-up

        def stop(sig: signal.Signals) -> None:
            if caught:  # the second one: no more waiting
                signal.signal(sig, signal.SIG_DFL)
                os.kill(os.getpid(), sig)
            caught.append(sig.name)
            if working[0]:
                task.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop, sig)
        service = None
        bar = None
        try:
            try:
                service = await AnalysisService.create(settings, reading_only=reading_only)
                bar = _Progress() if progress else None
                result = await call(service, bar)
                working[0] = False
                return result
            except asyncio.CancelledError:
                if not caught:
                    raise
                working[0] = False
                task.uncancel()
                report = None
                if service is not None and run_id is not None:
                    try:
                        report = await service.report(run_id)
                    except KeyError:  # stopped before the run was created
                        report = None
                raise Interrupted(caught[0], run_id, report) from None
        finally:
            working[0] = False
            if bar is not None:
                bar.close()
            if service is not None:
                await service.close()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    return asyncio.run(run())


def _settings() -> Settings:
    """The environment's settings; a malformed variable is bad input (exit 2), not a crash."""
    try:
        return Settings.from_env()
    except ValueError as exc:
        raise CliFailure(str(exc), error="config") from None


async def _warn_if_kb_empty(service: Any) -> None:
    counts = await service.kb_counts()
    if not any(counts.values()):
        _err("the knowledge base is empty: run `godot-rag ingest` first (judging without evidence for now)")


# ---- commands ------------------------------------------------------------------------------------


@command
def cmd_analyze(args: argparse.Namespace) -> int:
    """`godot-rag analyze TARGET`."""
    from agent.graph.service import check_run_id, new_run_id
    from agent.intake import intake_target
    from agent.limits import expected_time
    from agent.runs import RunExistsError

    settings = _settings()
    try:
        run_id = check_run_id(args.run_id) if args.run_id else new_run_id()
    except ValueError as exc:
        raise CliFailure(str(exc)) from None
    intake = intake_target(args.target, prompt=args.prompt, settings=settings)
    args.run_id = run_id  # from here on a failure names the run

    async def analyze(service: Any, progress: _Progress | None) -> dict[str, Any]:
        await _warn_if_kb_empty(service)
        if intake.chunks:  # above the progress bar, not on its line
            estimate = expected_time(intake.chunks, await service.store.chunk_rate(args.judge or settings.judge))
            if progress is not None:
                progress.bar.write(f"godot-rag: {estimate}", file=sys.stderr)
            else:
                _err(estimate)
        return await service.analyze(intake, run_id=run_id, judge=args.judge, owner=args.owner, on_event=progress)

    try:
        report = _using_service(settings, analyze, progress=True, run_id=run_id)
    except RunExistsError as exc:
        raise CliFailure(str(exc), error="run_exists", run_id=run_id) from None
    return _print_report(report, args.format)


@command
def cmd_migrate(args: argparse.Namespace) -> int:
    """`godot-rag migrate TARGET (--out DIR | --patch FILE)`: the migration engine on the intake's files."""
    from agent.intake import intake_target
    from agent.intake.raw import raw_files
    from agent.migrate.patch import summary_text, unified_diff, write_copy
    from agent.migrate.shaders import SHADER_SUFFIXES

    settings = _settings()
    out = Path(args.out).expanduser() if args.out else None
    if out is not None and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CliFailure(f"cannot write to {args.out}: it exists and is not an empty folder (nothing is written over)")
    patch = None if args.patch in (None, "-") else _check_out_path(args.patch)
    if patch is not None and patch.exists():
        raise CliFailure(f"cannot write to {args.patch}: the file exists (nothing is written over)")
    intake = intake_target(args.target, settings=settings)
    files = intake.expansion.texts()
    raw = raw_files(args.target, settings, texts=files)
    for path, data in raw.data.items():  # shader files: not judged by the analysis, migrated here
        if path.endswith(SHADER_SUFFIXES) and path not in files:
            try:
                files[path] = data.decode("utf-8")
            except UnicodeDecodeError:
                continue

    async def migrate(service: Any, _progress: Any) -> Any:
        await _warn_if_kb_empty(service)
        return await service.migrate(files)

    migration = _using_service(settings, migrate, reading_only=True)
    try:
        if out is not None:
            migration.manifest = write_copy(migration, files, out, raw)
        elif patch is not None:
            _write_atomically(patch, unified_diff(migration, files))
        else:
            sys.stdout.write(unified_diff(migration, files))
    except (OSError, ValueError) as exc:
        raise CliFailure(f"cannot write the migration: {getattr(exc, 'strerror', None) or exc}") from None
    if args.format == "json":
        _write_json(migration.model_dump(mode="json"))
    elif args.patch != "-":
        sys.stdout.write(summary_text(migration) + "\n")
    else:
        _err(summary_text(migration))
    return OK


@command
def cmd_check(args: argparse.Namespace) -> int:
    """`godot-rag check TARGET`: the GDScript 4 checker on the intake's scripts; exit 1 on any error."""
    from agent.graph.service import KnowledgeBaseMissingError
    from agent.intake import intake_target

    settings = _settings()
    intake = intake_target(args.target, settings=settings)
    files = intake.expansion.texts()
    if not any(p.endswith(".gd") for p in files):
        raise CliFailure(f"{args.target} holds no GDScript (.gd) file to check")
    try:
        report = _using_service(settings, lambda service, _: service.check(files), reading_only=True)
    except KnowledgeBaseMissingError as exc:
        raise CliFailure(str(exc), error="knowledge_base_missing") from None
    if args.format == "json":
        _write_json(report.model_dump(mode="json"))
    else:
        sys.stdout.write(report.text() + "\n")
    return FAILED if report.errors else OK


@command
def cmd_resume(args: argparse.Namespace) -> int:
    """`godot-rag resume RUN_ID`."""
    settings = _settings()

    async def resume(service: Any, progress: _Progress | None) -> dict[str, Any]:
        return await service.resume(args.run_id, on_event=progress)

    report = _using_service(settings, resume, progress=True, run_id=args.run_id)
    return _print_report(report, args.format)


@command
def cmd_show(args: argparse.Namespace) -> int:
    """`godot-rag show RUN_ID`."""
    settings = _settings()
    report = _using_service(settings, lambda service, _: service.report(args.run_id), reading_only=True)
    _print_report(report, args.format)
    return OK


@command
def cmd_runs(args: argparse.Namespace) -> int:
    """`godot-rag runs`."""
    settings = _settings()

    runs = _using_service(
        settings, lambda service, _: service.list_runs(owner=args.owner, limit=args.limit), reading_only=True
    )
    if args.format == "json":
        _write_json(runs)
        return OK
    if not runs:
        print("no runs yet")
    for r in runs:
        print(
            f"{r['run_id']:<18} {r['status']:<11} {r['verdict'] or '-':<9} {r['done']:>4}/{r['total']:<4} "
            f"{r['created_at'][:19]}  {r['source'] or ''}"
        )
    return OK


def _check_out_path(out: str) -> Path:
    """`--out` must name a file in a folder that exists; checked before the database is opened."""
    path = Path(out).expanduser()
    if path.is_dir():
        raise CliFailure(f"cannot write to {out}: it is a directory; give a file name, e.g. {Path(out) / 'run.jsonl'}")
    if not path.parent.is_dir():
        raise CliFailure(f"cannot write to {out}: the folder {path.parent} does not exist")
    return path


def _write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder: an existing file is replaced whole or not at all."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@command
def cmd_export(args: argparse.Namespace) -> int:
    """`godot-rag export RUN_ID [--out FILE]`: one JSON line per done chunk (`export corpus --batch`: agent.batch)."""
    from agent.runs.store import dumps

    if args.batch is not None or args.run_id == "corpus":
        from agent.batch.cli import export_corpus_command

        return export_corpus_command(args)

    settings = _settings()
    out = _check_out_path(args.out) if args.out else None
    rows = _using_service(settings, lambda service, _: service.export_rows(args.run_id), reading_only=True)
    text = "".join(dumps(r) + "\n" for r in rows)
    if out is None:
        sys.stdout.write(text)
        return OK
    try:
        _write_atomically(out, text)
    except OSError as exc:
        raise CliFailure(f"cannot write to {args.out}: {exc.strerror or exc}") from None
    _err(f"wrote {len(rows)} record(s) to {args.out}")
    return OK
