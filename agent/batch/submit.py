"""`batch submit` and `batch retry`: targets in, one queued job per target that still has work.

A local target (folder, zip, file) is read at submit, so its run id is known at once: work
already done is counted and not queued, and bad input is refused with the intake's reason. A
GitHub URL is only validated here; its job resolves the commit (rate-limited) and names the run
then, so submitting 100k URLs costs no network.
"""

from __future__ import annotations

import uuid
from typing import Any

from agent.batch.jobs import JobArgs
from agent.batch.models import Refusal, SubmitResult
from agent.batch.queue import defer
from agent.batch.store import BatchStore
from agent.batch.targets import is_github, kb_version, local_identity, queue_key, run_id_for
from agent.intake import IntakeError, from_source, parse_github_url


def new_batch_id() -> str:
    """A fresh batch id."""
    return f"batch-{uuid.uuid4().hex[:12]}"


async def submit(
    service: Any, app: Any, targets: list[str], *, prompt: str, judge: str, command: str
) -> SubmitResult:
    """Record a batch of `targets` and queue a job for each that has work left."""
    store = BatchStore(service.pool)
    kb = await kb_version(service.pool)
    batch_id = new_batch_id()
    await store.create_batch(batch_id, command=command, prompt=prompt, judge=judge, kb_version=kb)
    queued = already = duplicates = 0
    refused: list[Refusal] = []
    seen: set[str] = set()
    for position, target in enumerate(targets):
        github = is_github(target)
        run_id = None
        try:
            if github:
                parse_github_url(target)
                key = queue_key(target, kb_version=kb, judge=judge, prompt=prompt)
            else:
                intake = await from_source(target=target, prompt=prompt, settings=service.settings)
                run_id = key = run_id_for(local_identity(intake).key, kb_version=kb, judge=judge, prompt=prompt)
        except IntakeError as exc:
            refused.append(Refusal(target=target, reason=str(exc)))
            await store.add_item(batch_id, position, target, state="refused", reason=str(exc))
            continue
        if key in seen:
            duplicates += 1
            await store.add_item(batch_id, position, target, state="already_done", run_key=key, run_id=run_id,
                                 reason="the same work is listed earlier in this batch")
            continue
        seen.add(key)
        if run_id is not None:
            run = await service.store.get_run(run_id)
            if run is not None and run["status"] == "completed":
                already += 1
                await store.add_item(batch_id, position, target, state="already_done", run_key=key, run_id=run_id)
                continue
        await store.add_item(batch_id, position, target, state="queued", run_key=key, run_id=run_id)
        args = JobArgs(batch_id=batch_id, position=position, target=target, prompt=prompt, judge=judge)
        job_id = await defer(app, args, key=key, github=github)
        if job_id is None:
            duplicates += 1
            await store.finish(batch_id, position, state="already_done", run_id=run_id,
                               reason="a job for the same work is already in the queue")
            continue
        await store.set_job(batch_id, position, job_id)
        queued += 1
    return SubmitResult(batch_id=batch_id, queued=queued, already_done=already, refused=refused,
                        duplicates=duplicates)


async def retry_failed(service: Any, app: Any, batch_id: str) -> int:
    """Queue again the failed items of a batch (KeyError if there is no such batch); how many were queued."""
    store = BatchStore(service.pool)
    batch = await store.get_batch(batch_id)
    if batch is None:
        raise KeyError(batch_id)
    queued = 0
    for item in await store.failed_items(batch_id):
        args = JobArgs(batch_id=batch_id, position=item["position"], target=item["target"],
                       prompt=batch["prompt"], judge=batch["judge_kind"])
        key = item["run_key"] or queue_key(item["target"], kb_version=batch["kb_version"],
                                           judge=batch["judge_kind"], prompt=batch["prompt"])
        await store.requeue(batch_id, item["position"])
        job_id = await defer(app, args, key=key, github=is_github(item["target"]))
        if job_id is None:
            await store.finish(batch_id, item["position"], state="already_done",
                               reason="a job for the same work is already in the queue")
            continue
        await store.set_job(batch_id, item["position"], job_id)
        queued += 1
    return queued
