"""The score DB store on a real Postgres: scoping by run, idempotent writes, honest attempts."""

from __future__ import annotations

import asyncio

import pytest

from agent.models import Judgment
from agent.parse import chunk_project
from agent.runs import RunExistsError, RunStore
from agent.storage import make_async_pool
from tests.graph.projects import dodge_files, expansion_of, request_for

pytestmark = pytest.mark.asyncio(loop_scope="session")


def _result(signal: str = "godot4") -> dict:
    j = Judgment(version_signal=signal, label="godot4_valid_api", migration_required=False, confidence=0.8,
                 rationale="test", evidence_ids=["e1"])
    return {"judgment": j.model_dump(mode="json"), "query_terms": ["Area2D"],
            "evidence": [{"table": "docs_chunks", "record_id": "e1", "title": "t", "score": 1.0}],
            "judge_kind": "evidence", "prompt_version": "v1"}


@pytest.fixture
async def store(empty_db):
    pool = await make_async_pool(empty_db)
    yield RunStore(pool)
    await pool.close()


async def _new_run(store: RunStore, run_id: str) -> list:
    exp = expansion_of(dodge_files())
    req = request_for(exp)
    await store.create_run(run_id=run_id, request=req, expansion=exp, owner="alice", judge_kind="evidence")
    chunks = chunk_project(exp, project_id=req.project_id)
    await store.save_chunks(run_id, chunks)
    return chunks


async def test_intake_round_trip_and_no_reuse(store):
    chunks = await _new_run(store, "r1")
    exp = await store.load_expansion("r1")
    assert exp == expansion_of(dodge_files())
    assert (await store.load_request("r1")).project_id == "p-test"
    with pytest.raises(RunExistsError):
        await _new_run(store, "r1")
    assert (await store.progress("r1"))["total"] == len(chunks)
    # parse re-run keeps rows
    await store.save_chunks("r1", chunks)
    assert (await store.progress("r1"))["total"] == len(chunks)


async def test_claim_store_and_idempotence(store):
    chunks = await _new_run(store, "r2")
    first = await store.claim_next("r2", 2)
    assert [c.chunk_order for c in first] == [0, 1]
    assert await store.store_result("r2", first[0].chunk_id, _result()) is True
    # a re-executed step does not replace a stored judgment
    assert await store.store_result("r2", first[0].chunk_id, _result("godot3")) is False
    rows = {r["chunk_id"]: r for r in await store.chunk_rows("r2")}
    assert rows[first[0].chunk_id]["version_signal"] == "godot4"
    assert rows[first[0].chunk_id]["attempts"] == 1
    # crash: chunk 1 was in flight; resume sets it back to pending and restarts it
    assert await store.reset_in_flight("r2") == [first[1].chunk_id]
    again = await store.claim_next("r2", 1)
    assert again[0].chunk_id == first[1].chunk_id
    rows = {r["chunk_id"]: r for r in await store.chunk_rows("r2")}
    assert rows[first[1].chunk_id]["attempts"] == 2
    # claim() only restarts chunks that are not processing or done
    assert await store.claim("r2", [first[0].chunk_id, first[1].chunk_id]) == []
    await store.mark_failed("r2", first[1].chunk_id, "endpoint down")
    await store.mark_failed("r2", first[0].chunk_id, "must not override done")
    st = await store.statuses("r2")
    assert st[first[0].chunk_id] == "done" and st[first[1].chunk_id] == "failed"
    assert await store.remaining("r2") == len(chunks) - 2


async def test_two_runs_of_the_same_project_never_mix(store):
    a = await _new_run(store, "ra")
    await _new_run(store, "rb")
    got = await store.claim_next("ra", 100)
    assert len(got) == len(a)
    assert await store.claim_next("rb", 1)  # rb untouched by ra's claims
    await store.store_result("ra", a[0].chunk_id, _result())
    assert (await store.statuses("rb"))[a[0].chunk_id] == "processing"
    assert (await store.progress("rb"))["done"] == 0
    assert [r["run_id"] for r in await store.list_runs(owner="alice")] == ["rb", "ra"]
    assert await store.list_runs(owner="bob") == []


async def test_lease(store, empty_db):
    import psycopg

    from agent.storage import database_url

    await _new_run(store, "rl")
    assert not await store.is_live("rl")
    conn = await psycopg.AsyncConnection.connect(database_url(empty_db), autocommit=True)
    try:
        assert await RunStore.acquire_lease(conn, "rl")
        assert await store.is_live("rl")
    finally:
        await conn.close()
    # the server drops the lock when the backend exits, a moment after the client closes
    for _ in range(100):
        if not await store.is_live("rl"):
            break
        await asyncio.sleep(0.02)
    assert not await store.is_live("rl")


async def test_an_uploads_bytes_are_kept_for_the_migrated_copy(store, base_settings):
    """sql/074: a zip's every file (an image, a `.gdignore`) comes back byte for byte, and what a copy leaves out
    comes back with its reason; a run without them (a paste) has none."""
    import io
    import zipfile

    from agent.intake import intake_zip

    buf = io.BytesIO()
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("game/player.gd", "extends KinematicBody2D\n")
        zf.writestr("game/icon.png", png)
        zf.writestr("game/shots/.gdignore", "")
        zf.writestr("game/.import/icon.png-1.stex", b"cache")
    intake = intake_zip(buf.getvalue(), name="game.zip", settings=base_settings)
    await store.create_run(run_id="raw-1", request=intake.request, expansion=intake.expansion, owner="alice",
                           judge_kind="evidence", raw=intake.raw)
    raw = await store.load_raw("raw-1")
    assert raw.data == {"player.gd": b"extends KinematicBody2D\n", "icon.png": png, "shots/.gdignore": b""}
    assert "Godot 4 imports" in raw.left_out[".import/icon.png-1.stex"]
    await _new_run(store, "raw-2")
    assert await store.load_raw("raw-2") is None
