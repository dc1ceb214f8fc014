"""What every `godot-rag` command module shares: exit codes, failures, output, the service.

The contract of `agent.graph.cli` (analyze, resume, runs, show, export) and `agent.batch.cli`
(batch ..., worker) alike: `--format json` prints exactly one JSON object on stdout, a failure is
one redacted stderr line and a documented exit code, and SIGINT/SIGTERM leave a run resumable.
It lives here, not in one of them, so that neither command module imports the other (they did,
both ways: an import circle, issue 46). The heavy modules (the analysis service, the report, the
intake, the database) are imported inside the functions that use them: `godot-rag` imports every
command module to build its parser, and `--help` should not pay for them.
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
from collections.abc import Awaitable, Callable
from typing import Any

from agent.redact import redact
from agent.settings import Settings

log = logging.getLogger("agent.graph.cli")  # the name `-v` has always shown for a failed command

OK, FAILED, BAD_INPUT = 0, 1, 2
"""The exit codes (README: "Exit codes")."""


def positive_int(text: str) -> int:
    """An argparse `type` for counts (`--limit`, `--concurrency`): a usage error below 1, not a crash later."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


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


def err(message: str) -> None:
    """One `godot-rag: ...` line on stderr, redacted: the only way a command talks to the user there."""
    print(f"godot-rag: {redact(message, _secrets())}", file=sys.stderr)


def _secrets() -> tuple[str | None, ...]:
    """Exact values no message may contain (read from the environment; never printed)."""
    return tuple(os.environ.get(name) for name in ("GODOT_RAG_DATABASE_URL", "GODOT_RAG_LLM_API_KEY", "DISCORD_TOKEN"))


def failure_json(reason: str, *, error: str, code: int, run_id: str | None = None) -> dict[str, Any]:
    """The one JSON object `--format json` prints when a command fails before or without a report."""
    return {"status": "failed", "error": error, "reason": redact(reason, _secrets()), "run_id": run_id,
            "exit_code": code}


def _emit_failure(fmt: str, failure: CliFailure) -> int:
    err(failure.reason)
    if fmt == "json":
        write_json(failure_json(failure.reason, error=failure.error, code=failure.code, run_id=failure.run_id))
    return failure.code


def write_json(obj: Any) -> None:
    """The one JSON object `--format json` promises, as one flushed line on stdout (scripts parse it)."""
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
        err(f"interrupted ({stop.signame}); run {rid} is resumable: godot-rag resume {rid}")
        if fmt == "json":
            write_json(stop.report)
        else:
            print_report(stop.report, fmt)
        return FAILED
    err(f"interrupted ({stop.signame}) before the analysis started: nothing was changed")
    if fmt == "json":
        write_json({"status": "interrupted", "error": "interrupted",
                    "reason": f"{stop.signame} before the analysis started", "run_id": None,
                    "exit_code": FAILED})
    return FAILED


# ---- output --------------------------------------------------------------------------------------


def print_report(report: dict[str, Any], fmt: str) -> int:
    """A run's report on stdout (JSON or text); the exit code says whether the run completed."""
    from agent.graph.report import render_text

    if fmt == "json":
        write_json(report)
    else:
        sys.stdout.write(render_text(report) + "\n")
        sys.stdout.flush()
    return OK if report["status"] == "completed" else FAILED


class Progress:
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


def using_service(
    settings: Settings,
    call: Callable[[Any, Progress | None], Awaitable[Any]],
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
                bar = Progress() if progress else None
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


def load_settings() -> Settings:
    """The environment's settings; a malformed variable is bad input (exit 2), not a crash."""
    try:
        return Settings.from_env()
    except ValueError as exc:
        raise CliFailure(str(exc), error="config") from None
