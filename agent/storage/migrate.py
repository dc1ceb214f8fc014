"""Forward-only migration runner for `sql/NNN_reason.sql`.

Applied versions are recorded in `godot_rag.schema_migrations`; an advisory lock makes
concurrent start-ups (UI + bot + CLI) safe. `{{EMBEDDING_DIM}}` in a file is replaced by
the configured embedding width, so a different model only needs a fresh database, and
`{{PROCRASTINATE_SCHEMA}}` by the job queue's own schema (the installed procrastinate's).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import psycopg

from agent.settings import PROJECT_ROOT, Settings
from agent.storage.db import configure_connection
from agent.storage.locks import MIGRATION_LOCK_KEY

log = logging.getLogger(__name__)

SQL_DIR = PROJECT_ROOT / "sql"
_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def migration_files(sql_dir: Path = SQL_DIR) -> list[tuple[int, Path]]:
    """Numbered migration files in order; a malformed or duplicate number is an error."""
    found: dict[int, Path] = {}
    for path in sorted(sql_dir.glob("*.sql")):
        m = _NAME.match(path.name)
        if not m:
            raise ValueError(f"migration file name must look like 001_reason.sql: {path.name}")
        version = int(m.group(1))
        if version in found:
            raise ValueError(f"two migrations share number {version:03d}: {found[version].name}, {path.name}")
        found[version] = path
    return sorted(found.items())


def _queue_schema(conn: psycopg.Connection) -> str:
    """procrastinate's schema.sql, as the installed version ships it; nothing if its tables already exist
    (they live outside `godot_rag`, so they outlive a dropped `godot_rag` schema and its version records)."""
    from procrastinate.schema import SchemaManager

    row = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL AS present").fetchone()
    return "SELECT 1" if row["present"] else SchemaManager.get_schema()


def migrate(conn: psycopg.Connection, settings: Settings, sql_dir: Path = SQL_DIR) -> list[str]:
    """Apply pending migrations; return the names applied now. Idempotent."""
    applied_now: list[str] = []
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
    try:
        conn.execute("CREATE SCHEMA IF NOT EXISTS godot_rag")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS godot_rag.schema_migrations ("
            " version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r["version"] for r in conn.execute("SELECT version FROM godot_rag.schema_migrations")}
        for version, path in migration_files(sql_dir):
            if version in done:
                continue
            text = path.read_text(encoding="utf-8").replace("{{EMBEDDING_DIM}}", str(settings.embedding_dim))
            if "{{PROCRASTINATE_SCHEMA}}" in text:
                text = text.replace("{{PROCRASTINATE_SCHEMA}}", _queue_schema(conn))
            with conn.transaction():
                conn.execute(text, prepare=False)  # multi-statement script: no server-side prepare
                conn.execute(
                    "INSERT INTO godot_rag.schema_migrations (version, name) VALUES (%s, %s)",
                    (version, path.name),
                )
            log.info("applied migration %s", path.name)
            applied_now.append(path.name)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))
    configure_connection(conn)  # the vector type exists now
    return applied_now
