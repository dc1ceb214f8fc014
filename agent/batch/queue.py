"""The durable queue: procrastinate on the project's Postgres (its schema is applied by sql/073).

One job = one target of a batch = one analysis run. Jobs go to the `github` queue (remote
fetches; see `agent.batch.ratelimit`) or the `local` one (folders, zips), so a deployment can
give GitHub its own workers. Each job carries its run key twice: as `queueing_lock`, which keeps a
second job for the same work out of the queue while one waits, and as `lock`, which lets only
one job work on that run at a time. Transient failures are retried with exponential backoff; a
worker that stops heart-beating (kill -9, a lost host) has its jobs put back in the queue by the
stalled-job sweep any worker runs, and they resume at the run's last checkpointed chunk.
"""

from __future__ import annotations

import asyncio
import logging
import procrastinate
from procrastinate import exceptions as pq_errors

from agent.batch.jobs import JobArgs, TransientError, run_job
from agent.settings import Settings

log = logging.getLogger(__name__)

TASK = "analyze_target"


def queue_for(target_is_github: bool) -> str:
    """The queue a target's job goes to."""
    return "github" if target_is_github else "local"


def make_app(url: str, settings: Settings, *, pool_size: int = 4) -> procrastinate.App:
    """The procrastinate app on `url`, with the one task registered (open it with `open_async`)."""
    app = procrastinate.App(
        connector=procrastinate.PsycopgConnector(conninfo=url, min_size=1, max_size=max(2, pool_size))
    )
    retry = procrastinate.RetryStrategy(
        max_attempts=max(0, settings.job_max_attempts - 1),  # retries after the first try
        exponential_wait=settings.job_retry_wait,
        retry_exceptions=[TransientError],
    )
    app.task(name=TASK, pass_context=True, queue="local", retry=retry)(analyze_target)
    return app


async def analyze_target(
    context: procrastinate.JobContext, *, batch_id: str, position: int, target: str, prompt: str, judge: str
) -> str | None:
    """The task: one target of a batch (the worker's AnalysisService is in the job context)."""
    service = context.additional_context["service"]
    job = context.job
    assert job.id is not None
    last_try = job.attempts >= service.settings.job_max_attempts - 1
    args = JobArgs(batch_id=batch_id, position=position, target=target, prompt=prompt, judge=judge)
    return await run_job(service, args, job_id=job.id, last_try=last_try)


async def defer(app: procrastinate.App, args: JobArgs, *, key: str, github: bool) -> int | None:
    """Queue one target's job; None if a job for the same work is already waiting (its queueing lock)."""
    task = app.tasks[TASK]
    try:
        return await task.configure(queue=queue_for(github), lock=key, queueing_lock=key).defer_async(
            batch_id=args.batch_id, position=args.position, target=args.target, prompt=args.prompt,
            judge=args.judge,
        )
    except pq_errors.AlreadyEnqueued:
        return None


async def recover_stalled(app: procrastinate.App, settings: Settings) -> None:
    """Forever: put back in the queue the jobs of workers without a heartbeat for `worker_stalled_after` s.

    Every worker runs this; two that find the same job race harmlessly (the loser's retry finds the
    job no longer `doing` and is skipped).
    """
    every = max(0.5, min(settings.worker_stalled_after / 2, 15.0))
    while True:
        try:
            stalled = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=settings.worker_stalled_after)
            for job in stalled:
                try:
                    await app.job_manager.retry_job(job)
                    log.warning("job %s (%s) was stalled: queued again", job.id, job.task_kwargs.get("target"))
                except pq_errors.ConnectorException:
                    pass  # another worker took it back first
        except pq_errors.ConnectorException as exc:
            log.warning("stalled-job sweep failed (will try again): %s", exc)
        await asyncio.sleep(every)


async def serve(
    settings: Settings, *, concurrency: int = 1, queues: list[str] | None = None, name: str | None = None
) -> None:
    """A worker process: one AnalysisService (model and pools loaded once), `concurrency` jobs at a time."""
    from agent.graph.service import AnalysisService

    service = await AnalysisService.create(settings)
    try:
        app = make_app(service.url, settings, pool_size=concurrency + 3)
        async with app.open_async():
            sweep = asyncio.create_task(recover_stalled(app, settings), name="stalled-job sweep")
            try:
                await app.run_worker_async(
                    queues=queues or None,
                    concurrency=concurrency,
                    name=name,
                    additional_context={"service": service},
                    update_heartbeat_interval=settings.worker_heartbeat,
                    stalled_worker_timeout=settings.worker_stalled_after,
                    fetch_job_polling_interval=1.0,
                    install_signal_handlers=True,
                )
            finally:
                sweep.cancel()
    finally:
        await service.close()

