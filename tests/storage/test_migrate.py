"""The migration runner: idempotent, ordered, tracked, and strict about file names."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from agent.storage import connection, migrate
from agent.storage.migrate import migration_files


def test_migrations_are_tracked_and_idempotent(empty_db):
    with connection(empty_db) as conn:
        assert migrate(conn, empty_db) == []  # the fixture already applied everything
        rows = conn.execute("SELECT version, name FROM godot_rag.schema_migrations ORDER BY version").fetchall()
    assert [r["version"] for r in rows] == [v for v, _ in migration_files()]


def test_schema_has_designed_tables_and_indexes(empty_db):
    with connection(empty_db) as conn:
        idx = {
            r["indexname"]: r["indexdef"]
            for r in conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'godot_rag'")
        }
        view_cols = [
            r["column_name"]
            for r in conn.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = 'godot_rag' AND table_name = 'dynamic_retrieval_view' ORDER BY ordinal_position"
            )
        ]
    assert "USING hnsw" in idx["docs_chunks_embedding_hnsw"]
    assert "gin_trgm_ops" in idx["docs_chunks_search_text_trgm"]
    assert "USING gin (api_symbols)" in idx["docs_chunks_api_symbols_gin"]
    assert "USING gin (match_terms)" in idx["api_mapping_match_terms_gin"]
    assert "USING hnsw" in idx["label_prototypes_embedding_hnsw"]
    assert view_cols == ["table_name", "id", "title", "content", "embedding", "search_text", "search_tsv", "metadata"]


def test_bad_migration_names_are_refused(tmp_path: Path):
    (tmp_path / "001_ok.sql").write_text("SELECT 1;")
    (tmp_path / "oops.sql").write_text("SELECT 1;")
    with pytest.raises(ValueError, match="001_reason.sql"):
        migration_files(tmp_path)
    (tmp_path / "oops.sql").unlink()
    (tmp_path / "001_twin.sql").write_text("SELECT 1;")
    with pytest.raises(ValueError, match="share number 001"):
        migration_files(tmp_path)


def test_embeddings_are_stored_in_the_row(empty_db, tmp_path: Path):
    """sql/050: vectors live in the row (no TOAST read per distance); a pre-050 row is rewritten, same value."""
    older = tmp_path / "sql"
    older.mkdir()
    for version, path in migration_files():
        if version < 50:
            (older / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    vector = "[" + ",".join(f"{(i % 7) / 7:.4f}" for i in range(empty_db.embedding_dim)) + "]"
    with connection(empty_db) as conn:
        conn.execute("DROP SCHEMA godot_rag CASCADE")
        migrate(conn, empty_db, sql_dir=older)
        conn.execute(
            "INSERT INTO godot_rag.api_mapping (mapping_id, source_api, change_type, confidence, status, notes,"
            " embedding) VALUES ('m1', 'Spatial', 'rename', 'candidate', 'candidate', %s, %s::vector)",
            # a row just past the 2 kB TOAST target, like a real mapping's: its largest field, the vector, moves out
            (secrets.token_hex(400), vector),
        )
        out_of_line = ("SELECT pg_column_toast_chunk_id(embedding) IS NOT NULL AS toasted, embedding::text AS v"
                       " FROM godot_rag.api_mapping WHERE mapping_id = 'm1'")
        before = conn.execute(out_of_line).fetchone()
        assert before["toasted"]  # what every KB built before 050 holds
        assert migrate(conn, empty_db) == [p.name for v, p in migration_files() if v >= 50]
        after = conn.execute(out_of_line).fetchone()
        storage = {r["attrelid"]: r["attstorage"] for r in conn.execute(
            "SELECT attrelid::regclass::text AS attrelid, attstorage FROM pg_attribute"
            " WHERE attname = 'embedding' AND attrelid IN ('godot_rag.docs_chunks'::regclass,"
            " 'godot_rag.api_mapping'::regclass, 'godot_rag.label_prototypes'::regclass)")}
    assert not after["toasted"] and after["v"] == before["v"]
    assert set(storage.values()) == {"m"}, storage


def test_the_test_kb_has_no_vector_out_of_line(kb_settings):
    with connection(kb_settings) as conn:
        for table in ("docs_chunks", "api_mapping", "label_prototypes"):
            row = conn.execute(f"SELECT count(*) AS n, count(*) FILTER (WHERE pg_column_toast_chunk_id(embedding)"
                               f" IS NOT NULL) AS toasted FROM godot_rag.{table}").fetchone()
            assert row["n"] > 0 and row["toasted"] == 0, (table, row)
