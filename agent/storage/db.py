"""Database access: the embedded server, the one connection factory and the pool factory.

Every connection is autocommit, returns dict rows and disables server-side prepares
(`prepare_threshold=0`): the LangGraph checkpointer needs exactly that, and using the
same shape everywhere means one code path.
"""

from __future__ import annotations

import json
import logging
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import psycopg
from pgvector.psycopg import register_vector, register_vector_async
from psycopg.rows import dict_row

from agent.settings import Settings

log = logging.getLogger(__name__)

CONNECT_KWARGS: dict[str, Any] = {"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0}


class DatabaseError(RuntimeError):
    """The database could not be reached or prepared; the message says why."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _prune_dead_handles(pgdata: Path) -> None:
    """Drop pids of processes that died (kill -9) from pgserver's handle list.

    pgserver stops the server when its last *registered* user exits; a killed owner
    stays registered forever and would pin the server. Pruning keeps the refcount honest,
    while a still-running postmaster is simply reused by `get_server`.
    """
    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return
    try:
        pids = json.loads(handles.read_text() or "[]")
    except (OSError, ValueError):
        pids = []
    alive = [p for p in pids if isinstance(p, int) and _pid_alive(p)]
    if alive != pids:
        log.info("embedded postgres: dropping dead handle pids %s", sorted(set(pids) - set(alive)))
        handles.write_text(json.dumps(alive))


_SERVERS: dict[Path, Any] = {}


def embedded_server_uri(home: Path) -> str:
    """Start (or reuse) the embedded Postgres under `home/pgdata` and return its admin URI."""
    import pgserver  # imported lazily: it starts nothing at import, but pulls psutil & co.

    home.mkdir(parents=True, exist_ok=True)
    pgdata = (home / "pgdata").resolve()
    if pgdata not in _SERVERS:
        if pgdata.exists():
            _prune_dead_handles(pgdata)
        try:
            _SERVERS[pgdata] = pgserver.get_server(pgdata, cleanup_mode="stop")
        except Exception as exc:  # pgserver raises assorted errors; surface one clear message
            raise DatabaseError(f"could not start the embedded Postgres in {pgdata}: {exc}") from exc
    return _SERVERS[pgdata].get_uri()


def _with_database(uri: str, database: str) -> str:
    # pgserver URIs look like postgresql://postgres:@/postgres?host=/socket/dir
    head, sep, query = uri.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{database}{sep}{query}"


def database_url(settings: Settings) -> str:
    """The URL to connect to: the configured one, or the embedded server's (database created if needed)."""
    if settings.database_url:
        return settings.database_url
    admin = embedded_server_uri(settings.home)
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (settings.database_name,)).fetchone()
        if not exists:
            try:
                conn.execute(
                    psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(settings.database_name))
                )
            except psycopg.errors.DuplicateDatabase:
                pass  # another process won the race
    return _with_database(admin, settings.database_name)


def configure_connection(conn: psycopg.Connection) -> None:
    """Register pgvector on a connection, if the extension exists yet."""
    try:
        register_vector(conn)
    except psycopg.ProgrammingError:
        pass  # before the first migration the `vector` type does not exist


async def configure_async_connection(conn: psycopg.AsyncConnection) -> None:
    """Async twin of `configure_connection` for async pools."""
    try:
        await register_vector_async(conn)
    except psycopg.ProgrammingError:
        pass


def connect(settings: Settings, url: str | None = None) -> psycopg.Connection:
    """A new configured connection (caller closes it)."""
    try:
        conn = psycopg.connect(url or database_url(settings), **CONNECT_KWARGS)
    except psycopg.OperationalError as exc:
        raise DatabaseError(f"cannot connect to Postgres: {exc}") from exc
    configure_connection(conn)
    return conn


@contextmanager
def connection(settings: Settings, url: str | None = None) -> Iterator[psycopg.Connection]:
    """Context-managed `connect`."""
    conn = connect(settings, url)
    try:
        yield conn
    finally:
        conn.close()


def make_pool(settings: Settings, *, min_size: int = 1, max_size: int = 8, url: str | None = None):
    """The one sync pool factory (psycopg_pool), configured like `connect`."""
    from psycopg_pool import ConnectionPool

    return ConnectionPool(
        url or database_url(settings),
        min_size=min_size,
        max_size=max_size,
        kwargs=CONNECT_KWARGS,
        configure=configure_connection,
        open=True,
    )


async def make_async_pool(settings: Settings, *, min_size: int = 1, max_size: int = 8, url: str | None = None):
    """The one async pool factory, configured like `connect`."""
    from psycopg_pool import AsyncConnectionPool

    pool = AsyncConnectionPool(
        url or database_url(settings),
        min_size=min_size,
        max_size=max_size,
        kwargs=CONNECT_KWARGS,
        configure=configure_async_connection,
        open=False,
    )
    await pool.open()
    return pool
