"""Postgres access: embedded server, connections, pools and migrations."""

from agent.storage.db import DatabaseError, connect, connection, database_url, make_async_pool, make_pool
from agent.storage.migrate import migrate

__all__ = ["DatabaseError", "connect", "connection", "database_url", "make_async_pool", "make_pool", "migrate"]
