"""Fault handling without worker processes: transient errors are retried (tries counted, the last
one fails the item with its reason), fetch errors are sorted, and the GitHub bucket spaces fetches."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
import pytest_asyncio

from agent.batch import ratelimit
from agent.batch.jobs import JobArgs, TransientError, is_transient_intake, run_job
from agent.batch.store import BatchStore
from agent.intake import IntakeError
from agent.runs import RunStore
from agent.storage import make_async_pool


class _FlakyService(SimpleNamespace):
    """The service's surface a job uses, whose analysis fails as a lost connection would."""

    async def analyze_report(self, *_a, **_kw):
        raise ConnectionError("server closed the connection unexpectedly")


@pytest_asyncio.fixture(loop_scope="session")
async def pool(empty_db):
    pool = await make_async_pool(empty_db, max_size=4)
    yield pool
    await pool.close()


@pytest.mark.asyncio(loop_scope="session")
async def test_a_transient_error_is_retried_then_fails_with_its_reason(empty_db, pool, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.gd").write_text("extends Node\n")
    service = _FlakyService(settings=empty_db, pool=pool, store=RunStore(pool))
    store = BatchStore(pool)
    await store.create_batch("b1", command="", prompt="", judge="evidence", kb_version="kb-x")
    await store.add_item("b1", 0, str(project), state="queued")
    args = JobArgs(batch_id="b1", position=0, target=str(project), prompt="", judge="evidence")
    with pytest.raises(TransientError):
        await run_job(service, args, job_id=1, last_try=False)
    (item,) = await store.items("b1")
    assert item.state == "retrying" and item.tries == 1 and "server closed the connection" in item.reason
    with pytest.raises(TransientError):
        await run_job(service, args, job_id=1, last_try=True)
    (item,) = await store.items("b1")
    assert item.state == "failed" and item.tries == 2 and item.reason.startswith("gave up: ConnectionError")


def test_fetch_errors_are_sorted_into_transient_and_bad_input():
    assert is_transient_intake(IntakeError("Could not fetch https://github.com/a/b: timed out after 60 s (unreachable or too slow)."))
    assert is_transient_intake(IntakeError("Could not fetch https://github.com/a/b: fatal: unable to access 'x': Could not resolve host: github.com"))
    assert not is_transient_intake(IntakeError("Could not fetch https://github.com/a/b: the repository has no branch or tag 'nope'."))
    assert not is_transient_intake(IntakeError("Refused 'x': host 'gitlab.com' is not github.com."))


@pytest.mark.asyncio(loop_scope="session")
async def test_the_github_bucket_spaces_fetches_across_callers(pool):
    start = time.monotonic()
    waits = [await ratelimit.take(pool, "example.test", rate=5.0, burst=2) for _ in range(5)]
    elapsed = time.monotonic() - start
    assert waits[0] == 0 and waits[1] == 0  # the burst goes at once
    assert elapsed >= 0.5, elapsed  # then one token per 0.2 s: 3 more take at least 0.6 s (less the refill during the burst)
