"""The embedded server's own guarantees: self-check, existing data, Unix socket only, no warning noise."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from agent.settings import PROJECT_ROOT
from agent.storage.db import _with_database
from agent.storage.embedded import (
    SELF_CHECK_SQL,
    EmbeddedServer,
    EmbeddedServerError,
    _postmaster_state,
    bundled_major,
    self_check,
)


@pytest.fixture
def server(tmp_path: Path):
    srv = EmbeddedServer(tmp_path / "home")
    srv.start()
    yield srv
    srv.release()
    if _postmaster_state(srv.pgdata):
        srv.stop_now()


def _kill_backend_running(url: str, needle: str, sig: int) -> None:
    """Send `sig` to the backend whose query contains `needle`, once it shows up."""
    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(200):
            row = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE query LIKE %s AND pid <> pg_backend_pid()",
                (f"%{needle}%",),
            ).fetchone()
            if row:
                os.kill(row[0], sig)
                return
            time.sleep(0.05)
    raise AssertionError("the probe's backend never appeared")


def test_self_check_passes_and_is_remembered(server: EmbeddedServer):
    url = _with_database(server.uri, "postgres")
    self_check(server, url)
    marker = server.pgdata / "godot_rag_self_check.json"
    assert '"ok": true' in marker.read_text()
    # the real 384-d statements ran: the temp table is gone and the server still answers
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert any("hnsw" in s for s in SELF_CHECK_SQL)


def test_backend_crash_in_self_check_is_one_clear_error_and_stops_the_server(server: EmbeddedServer):
    """A backend killed by SIGILL (what the old pgvector did on AVX2-only CPUs) stops the product cleanly."""
    url = _with_database(server.uri, "postgres")
    killer = threading.Thread(target=_kill_backend_running, args=(url, "pg_sleep(20)", signal.SIGILL))
    killer.start()
    with pytest.raises(EmbeddedServerError) as err:
        self_check(server, url, statements=("SELECT pg_sleep(20)",))
    killer.join()
    message = str(err.value)
    assert "signal 4" in message and "Illegal instruction" in message
    assert "CPU instructions this machine lacks" in message
    assert "GODOT_RAG_DATABASE_URL" in message
    # stopped: not left looping through recovery under other users
    assert _postmaster_state(server.pgdata) is None
    # later starts fail at once with the same message, without crashing anything again
    t0 = time.monotonic()
    with pytest.raises(EmbeddedServerError) as again:
        self_check(server, url)
    assert str(again.value) == message
    assert time.monotonic() - t0 < 1.0


def test_listens_on_a_unix_socket_only(server: EmbeddedServer):
    assert "host=/" in server.uri
    with psycopg.connect(_with_database(server.uri, "postgres"), autocommit=True) as conn:
        assert conn.execute("SHOW listen_addresses").fetchone() == ("",)


def test_existing_data_of_the_same_major_is_reused(tmp_path: Path):
    """Data made earlier (as by the previous wheel) is opened as it is, never re-initialised."""
    home = tmp_path / "home"
    first = EmbeddedServer(home)
    url = _with_database(first.start(), "postgres")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (v text)")
        conn.execute("INSERT INTO kept VALUES ('still here')")
    first.release()
    assert _postmaster_state(first.pgdata) is None
    if os.geteuid() == 0:  # the previous wheel ran postgres as its own system user
        subprocess.run(["useradd", "-M", "pgserver"], capture_output=True)
        subprocess.run(["chown", "-R", "pgserver", str(first.pgdata)], check=True)
    second = EmbeddedServer(home)
    try:
        url = _with_database(second.start(), "postgres")
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("SELECT v FROM kept").fetchone() == ("still here",)
    finally:
        second.release()


def _tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def test_data_of_another_major_is_refused_and_untouched(tmp_path: Path):
    pgdata = tmp_path / "home" / "pgdata"
    (pgdata / "base").mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text("16\n")
    (pgdata / "base" / "1").write_bytes(b"old rows")
    before = _tree(pgdata)
    with pytest.raises(EmbeddedServerError) as err:
        EmbeddedServer(tmp_path / "home").start()
    assert f"PostgreSQL 16, but the embedded server is PostgreSQL {bundled_major()}" in str(err.value)
    assert "left untouched" in str(err.value)
    assert _tree(pgdata) == before


def test_a_non_empty_folder_without_pg_version_is_refused(tmp_path: Path):
    pgdata = tmp_path / "home" / "pgdata"
    pgdata.mkdir(parents=True)
    (pgdata / "notes.txt").write_text("mine")
    with pytest.raises(EmbeddedServerError, match="not a PostgreSQL data directory"):
        EmbeddedServer(tmp_path / "home").start()
    assert (pgdata / "notes.txt").read_text() == "mine" and len(list(pgdata.iterdir())) == 1


def test_a_command_prints_no_runtime_dir_warning(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GODOT_RAG_") and k != "XDG_RUNTIME_DIR"}
    env.update(GODOT_RAG_HOME=str(tmp_path / "home"), PYTHONPATH=str(PROJECT_ROOT))
    out = subprocess.run(
        [sys.executable, "-c", "from agent.settings import Settings; from agent.storage import connect;"
         " connect(Settings.from_env()).close()"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Warning" not in out.stderr, out.stderr
