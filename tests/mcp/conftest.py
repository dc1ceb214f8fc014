"""MCP fixtures: the real service on a fresh KB database, with the 3.4 pages of KinematicBody2D added.

The shared test KB holds a few 3.4 classes (tests/conftest.py: KB_CLASSREF3); `lookup_api` on the enemy
snippet's `KinematicBody2D.move_and_slide` needs that class's 3.4 definitions too. They are chunked by
the ingest's own code from the shared 3.4 reference and added to this database's API index only, so no
other test's knowledge base changes.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
import pytest_asyncio

from agent.settings import PROJECT_ROOT

ENEMY = (PROJECT_ROOT / "tests" / "fixtures" / "projects" / "enemy_g3.txt").read_text()
EXTRA_3_4 = ("KinematicBody2D", "PhysicsBody2D")


def write_project(root: Path, scripts: int = 40) -> Path:
    """A Godot 3 project of `scripts` scripts, ~5 chunks each: far more than are judged before a cancel arrives."""
    for n in range(scripts):
        body = "\n\n".join(f"func f{i}(delta):\n\tvar v = Vector2({i}, {n})\n\treturn v.length()" for i in range(4))
        (root / f"s{n:02d}.gd").write_text(f"extends KinematicBody2D\n\n{body}\n")
    return root


async def cancel_after_first_progress(client, arguments: dict) -> None:
    """Call analyze_project and cancel the call (notifications/cancelled) once the run reports its chunk count."""
    import anyio

    started = anyio.Event()

    async def on_progress(progress, total, message):
        if total:
            started.set()

    async with anyio.create_task_group() as tg:
        async def call():
            await client.call_tool("analyze_project", arguments, progress_callback=on_progress)

        tg.start_soon(call)
        with anyio.fail_after(180):
            await started.wait()
        tg.cancel_scope.cancel()


async def new_interrupted_run(service, owner: str, before: set[str]) -> str:
    """The one run of `owner` that became interrupted since `before` (the server may take a moment)."""
    import asyncio

    for _ in range(200):
        new = set(await service.interrupted_runs(owner=owner)) - before
        if new:
            [run_id] = new
            return run_id
        await asyncio.sleep(0.1)
    raise AssertionError("no run was left interrupted")


def add_classref3(settings, names, embedder, tmp: Path) -> None:
    """Add `names`' 3.4 class-reference definitions to the database's API index (as the ingest reads them)."""
    from agent.apiindex import V3, rows_from_chunks
    from agent.ingest.chunks import page_chunks
    from agent.ingest.classref import load_classref
    from agent.ingest.symbols import SymbolIndex
    from agent.ingest.tokens import TokenCounter
    from agent.settings import default_classref3_dir
    from agent.storage import connection

    src = default_classref3_dir()
    if src is None:
        pytest.skip("../shared/godot-class-ref-3.4 is absent")
    (tmp / "classes").mkdir(parents=True)
    for name in names:
        shutil.copyfile(src / "classes" / f"{name}.xml", tmp / "classes" / f"{name}.xml")
    summary = json.loads((src / "summary.json").read_text())
    summary.pop("counts", None)
    (tmp / "summary.json").write_text(json.dumps(summary))
    ref = load_classref(tmp)
    counter = TokenCounter(embedder)
    chunks = [c for page in ref.pages for c in page_chunks(page, symbols=SymbolIndex(names), count_tokens=counter,
                                                           max_tokens=None, doc_version=ref.doc_version,
                                                           godot_version=ref.godot_version)]
    entries, classes = rows_from_chunks(chunks, V3)
    cols = ("version", "class_name", "member", "kind", "arg_count", "default_count", "vararg", "return_type",
            "accessor_of", "signature", "chunk_id", "source_url")
    with connection(settings) as conn, conn.transaction():
        for e in entries:
            conn.execute(f"INSERT INTO godot_rag.api_index ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))})"
                         " ON CONFLICT DO NOTHING", tuple(getattr(e, c) for c in cols))
        for c in classes:
            conn.execute("INSERT INTO godot_rag.api_classes (version, class_name, inherits, chunk_id, source_url)"
                         " VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                         (c.version, c.class_name, c.inherits, c.chunk_id, c.source_url))


@pytest.fixture(scope="session")
def mcp_settings(kb_template, admin_url, base_settings, embedder, tmp_path_factory):
    """A database cloned from the KB template, with KinematicBody2D's 3.4 definitions; the MCP chunk cap."""
    from tests.conftest import _create_db, _db_url, _drop_db

    name = f"godot_rag_mcp_{uuid.uuid4().hex[:10]}"
    _create_db(admin_url, name, template=kb_template)
    settings = base_settings.with_(database_name=name, database_url=_db_url(admin_url, name), llm_base_url=None,
                                   judge="evidence", front_door="mcp")
    add_classref3(settings, EXTRA_3_4, embedder, tmp_path_factory.mktemp("classref34"))
    yield settings
    _drop_db(admin_url, name)


@pytest_asyncio.fixture(loop_scope="session", scope="session")
async def mcp_service(mcp_settings, embedder):
    """One AnalysisService (evidence judge, no LLM) on that database, sharing the session's model."""
    from agent.graph.service import AnalysisService

    svc = await AnalysisService.create(mcp_settings, embedder=embedder)
    yield svc
    await svc.close()


@pytest.fixture
def stdio_runtime(mcp_service):
    """The runtime `godot-rag mcp` builds over stdio, on the test service."""
    from agent.mcp_server.runtime import McpRuntime

    return McpRuntime(settings=mcp_service.settings, transport="stdio", service=mcp_service)
