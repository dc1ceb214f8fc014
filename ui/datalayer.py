"""Chainlit's own SQLAlchemy data layer on the project's Postgres (tables in schema `chainlit`, sql/020)."""

from __future__ import annotations

from agent.settings import Settings
from ui.files import OwnerFileStorage, files_root


def sqlalchemy_url(url: str) -> str:
    """Turn a libpq URL into SQLAlchemy's async psycopg form (the project's one driver)."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    raise ValueError("the database URL must start with postgresql://")


def make_data_layer(settings: Settings):
    """Threads, steps, feedback and users persist here, so threads survive a restart."""
    from chainlit.data.sql_alchemy import SQLAlchemyDataLayer

    from agent.storage import database_url

    return SQLAlchemyDataLayer(
        conninfo=sqlalchemy_url(database_url(settings)),
        connect_args={"options": "-c search_path=chainlit"},
        storage_provider=OwnerFileStorage(files_root(settings)),
    )
