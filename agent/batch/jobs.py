"""What one batch job does: name the target's run, then analyze it, resume it, or do nothing.

The run id comes from the target's content (`agent.batch.targets`), so a job that finds its run
completed does nothing, and a job that finds it unfinished (a worker killed mid-run) resumes it
through `AnalysisService.resume_report`, exactly as `godot-rag resume` does: done chunks are
never judged again. Errors sort into bad input (the item fails once, with the intake's reason)
and transient ones (retried with backoff by the queue, each try counted on the item).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Literal

from agent.batch import ratelimit
from agent.batch.store import BatchStore
from agent.batch.targets import github_identity, is_github, kb_version, local_identity, run_id_for
from agent.intake import IntakeError, from_source, parse_github_url
from agent.intake.github import resolve_commit

log = logging.getLogger(__name__)

OWNER = "batch"
"""The owner of runs made by batch jobs (`godot-rag runs --owner batch`)."""

_TRANSIENT_FETCH = (
    "timed out", "could not resolve host", "unable to access", "connection", "early eof", "rate limit",
    "429", "500", "502", "503", "504", "remote end hung up", "temporary failure",
)


class TransientError(RuntimeError):
    """A failure worth another try later (network, a run busy in another worker, a lost connection)."""


@dataclass(frozen=True)
class JobArgs:
    """The job's arguments as deferred (JSON in the queue)."""

    batch_id: str
    position: int
    target: str
    prompt: str
    judge: str


Outcome = Literal["done", "already_done"]


def is_transient_intake(exc: IntakeError) -> bool:
    """A fetch that failed on the way (timeout, network, GitHub's 5xx or rate limit), not on the input."""
    text = str(exc).lower()
    return text.startswith("could not fetch") and any(word in text for word in _TRANSIENT_FETCH)


async def run_job(service: Any, args: JobArgs, *, job_id: int, last_try: bool) -> Outcome | None:
    """Run one item: mark it running, do the work, record how it ended; raise TransientError to be retried."""
    store = BatchStore(service.pool)
    await store.start(args.batch_id, args.position, job_id)
    try:
        outcome, run_id, failure = await analyse_target(service, args)
    except IntakeError as exc:
        if not is_transient_intake(exc):
            await store.finish(args.batch_id, args.position, state="failed", reason=str(exc))
            return None
        return await _transient(store, args, exc, last_try=last_try)
    except (asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as exc:  # noqa: BLE001 - anything else may pass (a lost connection, a busy run): retried, counted
        log.warning("batch job %s/%s: %s", args.batch_id, args.position, exc, exc_info=True)
        return await _transient(store, args, exc, last_try=last_try)
    if failure:
        await store.finish(args.batch_id, args.position, state="failed", run_id=run_id, reason=failure)
        return None
    await store.finish(args.batch_id, args.position, state=outcome, run_id=run_id)
    return outcome


async def _transient(store: BatchStore, args: JobArgs, exc: BaseException, *, last_try: bool) -> None:
    reason = f"{type(exc).__name__}: {exc}" if not isinstance(exc, IntakeError) else str(exc)
    if last_try:
        await store.finish(args.batch_id, args.position, state="failed", reason=f"gave up: {reason}")
        raise TransientError(reason) from exc
    await store.finish(args.batch_id, args.position, state="retrying", reason=reason)
    raise TransientError(reason) from exc


async def analyse_target(service: Any, args: JobArgs) -> tuple[Outcome, str, str | None]:
    """(outcome, run id, failure reason or None): the target's run analysed, resumed, or found done."""
    from agent.graph.service import RunBusyError
    from agent.runs import RunExistsError

    settings = service.settings
    kb = await kb_version(service.pool)
    if is_github(args.target):
        parsed = parse_github_url(args.target)
        await ratelimit.take(service.pool, "github.com", rate=settings.github_fetch_rate,
                             burst=settings.github_fetch_burst)
        pinned = await asyncio.to_thread(resolve_commit, parsed, settings)
        identity = github_identity(pinned.owner, pinned.repo, pinned.ref or "", pinned.subdir)
        run_id = run_id_for(identity.key, kb_version=kb, judge=args.judge, prompt=args.prompt)
        if (found := await _existing(service, run_id)) is not None:
            return found
        await ratelimit.take(service.pool, "github.com", rate=settings.github_fetch_rate,
                             burst=settings.github_fetch_burst)
        intake = await from_source(url=pinned.url, prompt=args.prompt, settings=settings)
    else:
        intake = await from_source(target=args.target, prompt=args.prompt, settings=settings)
        run_id = run_id_for(local_identity(intake).key, kb_version=kb, judge=args.judge, prompt=args.prompt)
        if (found := await _existing(service, run_id)) is not None:
            return found
    try:
        report = await service.analyze_report(intake, run_id=run_id, judge=args.judge, owner=OWNER)
    except RunExistsError:  # another job made it a moment ago: finish it, or find it done
        found = await _existing(service, run_id)
        if found is None:
            raise TransientError(f"run {run_id} appeared and vanished") from None
        return found
    except RunBusyError as exc:
        raise TransientError(str(exc)) from None
    return "done", run_id, _failure(report)


async def _existing(service: Any, run_id: str) -> tuple[Outcome, str, str | None] | None:
    """None if the run does not exist; done if it completed; else resumed (busy elsewhere: TransientError)."""
    from agent.graph.service import RunBusyError

    run = await service.store.get_run(run_id)
    if run is None:
        return None
    if run["status"] == "completed":
        return "already_done", run_id, None
    try:
        report = await service.resume_report(run_id)
    except RunBusyError as exc:
        raise TransientError(str(exc)) from None
    return "done", run_id, _failure(report)


def _failure(report: Any) -> str | None:
    """Why a finished run is not a result (some chunks failed), or None."""
    data = report.to_dict()
    if data.get("status") == "completed":
        return None
    return f"run {data.get('run_id')} ended {data.get('status')}: {data.get('status_detail') or 'see godot-rag show'}"
