"""The test knowledge base (KB_PAGES ingested by the real pipeline): content, integrity, indexes."""

from __future__ import annotations

import pytest

from agent.ingest.check import REPRESENTATIVE_QUESTIONS, retrieval_check
from agent.models import LABELS
from agent.storage import connection


@pytest.fixture(scope="module")
def conn(kb_settings):
    with connection(kb_settings) as c:
        yield c


def test_class_members_have_their_own_chunks(conn):
    rows = conn.execute(
        "SELECT symbol, api_symbols, doc_type, heading, metadata FROM godot_rag.docs_chunks WHERE symbol = ANY(%s)",
        (["Node2D.position", "CharacterBody2D.move_and_slide", "Input.is_action_pressed", "Node.ready",
          "@GDScript.@onready"],),
    ).fetchall()
    found = {r["symbol"]: r for r in rows}
    assert set(found) == {"Node2D.position", "CharacterBody2D.move_and_slide", "Input.is_action_pressed",
                          "Node.ready", "@GDScript.@onready"}
    assert "Node2D.position" in found["Node2D.position"]["api_symbols"]
    assert found["Node2D.position"]["doc_type"] == "class_reference"
    assert found["Node.ready"]["metadata"]["member_kind"] == "signal"


def test_every_chunk_has_provenance_and_fits_the_model(conn):
    bad = conn.execute(
        "SELECT count(*) AS n FROM godot_rag.docs_chunks WHERE source_url = '' OR source_file = ''"
        " OR length(source_sha256) <> 64 OR embedding IS NULL OR search_tsv IS NULL OR content = ''"
        " OR (metadata ->> 'token_count')::int > 256 OR metadata ->> 'converter_version' IS NULL"
        " OR NOT (metadata ? 'godot_version_tags') OR NOT (metadata ? 'language_tags')"
    ).fetchone()["n"]
    assert bad == 0
    types = {r["doc_type"] for r in conn.execute("SELECT DISTINCT doc_type FROM godot_rag.docs_chunks")}
    assert {"class_reference", "migration", "tutorial"} <= types
    langs = conn.execute(
        "SELECT count(*) AS n FROM godot_rag.docs_chunks WHERE metadata -> 'language_tags' ? 'csharp'"
    ).fetchone()["n"]
    assert langs > 0


def test_chunk_id_shape(conn):
    row = conn.execute(
        "SELECT chunk_id FROM godot_rag.docs_chunks WHERE source_file = 'pages/classes__class_node.md'"
        " AND heading = 'Description'"
    ).fetchone()
    assert row["chunk_id"] == "godot-stable:classes/class_node.html#description:0001"


def test_evidence_ids_all_exist(conn):
    missing = conn.execute(
        "SELECT m.mapping_id, e FROM godot_rag.api_mapping m, unnest(m.evidence_chunk_ids) e"
        " WHERE NOT EXISTS (SELECT 1 FROM godot_rag.docs_chunks d WHERE d.chunk_id = e)"
        " UNION ALL SELECT p.prototype_id, e FROM godot_rag.label_prototypes p, unnest(p.evidence_chunk_ids) e"
        " WHERE NOT EXISTS (SELECT 1 FROM godot_rag.docs_chunks d WHERE d.chunk_id = e)"
        " UNION ALL SELECT p.prototype_id, e FROM godot_rag.label_prototypes p, unnest(p.evidence_mapping_ids) e"
        " WHERE NOT EXISTS (SELECT 1 FROM godot_rag.api_mapping m WHERE m.mapping_id = e)"
    ).fetchall()
    assert missing == []
    unverified = conn.execute(
        "SELECT count(*) AS n FROM godot_rag.api_mapping WHERE confidence = 'verified_from_docs'"
        " AND cardinality(evidence_chunk_ids) = 0"
    ).fetchone()["n"]
    assert unverified == 0


def test_mappings_cover_the_three_sources(conn):
    kb = conn.execute(
        "SELECT * FROM godot_rag.api_mapping WHERE mapping_id = 'godot3-to-4:class:kinematicbody2d-to-characterbody2d'"
    ).fetchone()
    assert kb["target_api"] == "CharacterBody2D" and kb["confidence"] == "verified_from_docs"
    assert "KinematicBody2D" in kb["match_terms"] and "KinematicBody2D" in kb["negative_patterns"]
    assert kb["evidence_chunk_ids"][0].startswith("godot-stable:tutorials/migrating/upgrading_to_godot_4.html#")
    by_type = {r["change_type"]: r["n"] for r in conn.execute(
        "SELECT change_type, count(*) AS n FROM godot_rag.api_mapping GROUP BY 1")}
    assert {"rename", "removed", "syntax_change", "behavior_change"} <= set(by_type)
    syntax = {r["source_api"]: r for r in conn.execute(
        "SELECT * FROM godot_rag.api_mapping WHERE change_type = 'syntax_change'")}
    for old in ("export", "onready", "yield", "setget", "tool", "remote", "master", "puppet", "instance"):
        assert old in syntax, old
        assert syntax[old]["evidence_chunk_ids"], old
    rejected = conn.execute(
        "SELECT notes FROM godot_rag.api_mapping WHERE status = 'rejected' LIMIT 5").fetchall()
    assert rejected and all("rejected:" in r["notes"] for r in rejected)
    assert conn.execute("SELECT count(*) AS n FROM godot_rag.api_mapping WHERE status = 'approved'").fetchone()["n"] == 0
    # the same old name with class-specific targets keeps separate rows
    maps = conn.execute(
        "SELECT DISTINCT target_api FROM godot_rag.api_mapping WHERE source_api = 'map_to_world'").fetchall()
    assert maps


def test_prototypes_cover_every_label(conn):
    rows = conn.execute("SELECT * FROM godot_rag.label_prototypes").fetchall()
    assert {r["label"] for r in rows} == set(LABELS)
    for r in rows:
        assert set(r["validator_rules"]) == {"requires_ast_symbol", "forbidden_answer_terms"}
        assert r["severity"] in ("low", "medium", "high") and r["embedding"] is not None
    patterns = " ".join(r["input_pattern"] for r in rows)
    assert "move_and_slide(velocity" in patterns and "Input.is_action_pressed" in patterns


def test_representative_questions(conn):
    results = retrieval_check(conn)
    assert [r.question for r in results] == list(REPRESENTATIVE_QUESTIONS)
    for r in results:
        assert r.mapping_hits and r.docs_hits, r


def _plan(conn, sql, params) -> str:
    return "\n".join(r["QUERY PLAN"] for r in conn.execute("EXPLAIN " + sql, params))


def test_indexes_are_used(conn, embedder):
    vec = embedder.embed_query("character movement with velocity")
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")  # the test KB is small; prove the index is usable
        plan = _plan(conn, "SELECT chunk_id FROM godot_rag.docs_chunks ORDER BY embedding <=> %s LIMIT 5", (vec,))
        assert "docs_chunks_embedding_hnsw" in plan
        plan = _plan(conn, "SELECT chunk_id FROM godot_rag.docs_chunks WHERE search_tsv @@ plainto_tsquery('simple', %s)",
                     ("move_and_slide",))
        assert "docs_chunks_search_tsv_gin" in plan
        plan = _plan(conn, "SELECT chunk_id FROM godot_rag.docs_chunks WHERE search_text %% %s", ("move_and_slde",))
        assert "docs_chunks_search_text_trgm" in plan
        plan = _plan(conn, "SELECT mapping_id FROM godot_rag.api_mapping WHERE match_terms && %s", (["yield"],))
        assert "api_mapping_match_terms_gin" in plan
        plan = _plan(conn, "SELECT prototype_id FROM godot_rag.label_prototypes ORDER BY embedding <=> %s LIMIT 3", (vec,))
        assert "label_prototypes_embedding_hnsw" in plan


def test_view_exposes_all_three_tables(conn):
    rows = conn.execute(
        "SELECT table_name, count(*) AS n FROM godot_rag.dynamic_retrieval_view GROUP BY 1").fetchall()
    assert {r["table_name"] for r in rows} == {"docs_chunks", "api_mapping", "label_prototypes"}
