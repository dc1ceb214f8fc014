"""Issue 35 item 5: a knowledge base whose vectors are still filling in answers, and says so.

Rows without an embedding (what `godot-rag ingest --no-vectors` stores) take no part in the vector
leg; a run made meanwhile completes, its report records `knowledge.complete = false` and the text
front door says evidence is partial. The fill (`--vectors-only`) then stores for each row the
vector a full ingest stored, and the next run's report has no `knowledge` field (complete).
"""

from __future__ import annotations

import numpy as np
import psycopg
import pytest

from agent.graph.report import render_text
from agent.intake import intake_snippet
from agent.knowledge import read_knowledge
from agent.storage import connection
from tests.graph.projects import ENEMY_GD_3

def _vectors(settings, table: str, id_col: str) -> dict[str, np.ndarray]:
    with connection(settings) as conn:
        rows = conn.execute(f"SELECT {id_col} AS id, embedding FROM godot_rag.{table}").fetchall()
    return {r["id"]: np.asarray(r["embedding"]) for r in rows if r["embedding"] is not None}


@pytest.mark.asyncio(loop_scope="session")
async def test_partial_knowledge_answers_says_so_and_fills_in(kb_db_factory, embedder):
    from agent.graph.service import AnalysisService
    from agent.ingest.vectors import fill_vectors, pending

    settings = kb_db_factory()
    before = _vectors(settings, "docs_chunks", "chunk_id")
    mappings_before = _vectors(settings, "api_mapping", "mapping_id")
    with psycopg.connect(settings.database_url, autocommit=True) as conn:  # as --no-vectors left them
        conn.execute("UPDATE godot_rag.docs_chunks SET embedding = NULL WHERE id % 2 = 0")
        conn.execute("UPDATE godot_rag.api_mapping SET embedding = NULL WHERE id % 3 = 0")
    with connection(settings) as conn:
        partial = read_knowledge(conn)
    assert not partial.complete and 0 < partial.embedded < partial.total

    async with await AnalysisService.create(settings, embedder=embedder) as svc:
        assert (await svc.knowledge()) == partial
        report = await svc.analyze(intake_snippet(ENEMY_GD_3, prompt="Godot 4?", settings=settings))
        assert report["status"] == "completed"
        assert report["verdict"]["label"] == "godot3"  # the API index and mappings answer without vectors
        assert report["knowledge"] == {"complete": False, "embedded": partial.embedded, "total": partial.total}
        assert f"Evidence is still partial: {partial.embedded:,} of {partial.total:,}" in render_text(report)

        todos = pending(settings)
        assert len({t.text for t in todos}) == len(todos)
        seen: list[tuple[int, int]] = []
        filled = fill_vectors(settings, embedder=embedder, batch=64, on_batch=lambda d, t, _s: seen.append((d, t)))
        assert filled.rows == partial.total - partial.embedded and seen[-1][0] == seen[-1][1]
        assert (await svc.knowledge()).complete
        # the fill stores what the full ingest stored (same texts, same model)
        after = _vectors(settings, "docs_chunks", "chunk_id")
        assert after.keys() == before.keys()
        worst = min(float(np.dot(before[k], after[k])) for k in before)
        assert worst > 0.999, worst
        m_after = _vectors(settings, "api_mapping", "mapping_id")
        assert min(float(np.dot(mappings_before[k], m_after[k])) for k in mappings_before) > 0.999

        again = await svc.analyze(intake_snippet(ENEMY_GD_3, prompt="Godot 4?", settings=settings))
        assert "knowledge" not in again  # the report names partial evidence only
        with connection(settings) as conn:
            stored = conn.execute("SELECT knowledge FROM godot_rag.runs WHERE run_id = %s", (again["run_id"],)).fetchone()
        assert stored["knowledge"] == {"complete": True, "embedded": partial.total, "total": partial.total}
        assert "Evidence is still partial" not in render_text(again)


def test_estimate_measures_on_a_kept_sample(kb_db_factory, monkeypatch, capsys):
    import json

    from agent.cli import main
    from agent.ingest.vectors import pending

    settings = kb_db_factory()
    monkeypatch.setenv("GODOT_RAG_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["ingest", "--estimate"]) == 2  # it goes with --vectors-only
    capsys.readouterr()
    with psycopg.connect(settings.database_url, autocommit=True) as conn:
        conn.execute("UPDATE godot_rag.docs_chunks SET embedding = NULL WHERE id % 10 = 0")
    with connection(settings) as conn:
        before = read_knowledge(conn)
    texts = len(pending(settings))
    assert main(["ingest", "--vectors-only", "--estimate", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pending"] == texts - 64 and out["rate"] > 0 and out["seconds"] > 0
    with connection(settings) as conn:
        after = read_knowledge(conn)
    assert after.embedded >= before.embedded + 64  # the sample's vectors are kept, not thrown away
    assert main(["ingest", "--vectors-only", "--json"]) == 0
    filled = json.loads(capsys.readouterr().out)
    assert filled["texts"] == texts - 64
    with connection(settings) as conn:
        assert read_knowledge(conn).complete
