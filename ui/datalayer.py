"""Chainlit's own SQLAlchemy data layer on the project's Postgres (tables in schema `chainlit`, sql/020)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from agent.settings import Settings


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
        storage_provider=LocalFileStorage(_public_files()),
    )


def _public_files() -> Path:
    """`<app root>/public/files`: Chainlit serves the app root's public folder."""
    root = Path(os.environ.get("CHAINLIT_APP_ROOT") or Path.cwd())
    return root / "public" / "files"


class LocalFileStorage:
    """Element files (JSON reports, task lists) on local disk, served from the app's /public/files.

    Object keys are `<user uuid>/<element uuid>/<name>`, so URLs are unguessable; use a cloud
    storage client instead when the chat is exposed beyond a trusted network.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, object_key: str) -> Path:
        path = (self.root / object_key).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise ValueError(f"bad object key {object_key!r}")
        return path

    async def upload_file(self, object_key: str, data: bytes | str, mime: str = "application/octet-stream",
                          overwrite: bool = True, content_disposition: str | None = None) -> dict[str, Any]:
        path = self._path(object_key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return {"object_key": object_key, "url": await self.get_read_url(object_key)}

    async def delete_file(self, object_key: str) -> bool:
        self._path(object_key).unlink(missing_ok=True)
        return True

    async def get_read_url(self, object_key: str) -> str:
        return "/public/files/" + quote(object_key)

    async def close(self) -> None:
        return None
