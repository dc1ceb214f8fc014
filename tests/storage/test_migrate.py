"""The migration runner: idempotent, ordered, tracked, and strict about file names."""

from __future__ import annotations

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
