"""Element files (JSON reports, uploaded zips and scripts): kept per owner, served only to that owner.

Chainlit's data layer hands every element's bytes to a storage provider under the key
`<user uuid or "unknown">/<element uuid>/<name>`. Files stored in the public folder would be served
to anyone holding the URL, uploads included, so they live under `GODOT_RAG_HOME/chainlit_files/
<owner digest>/<key>` instead, and `/godot-rag/files/<key>` looks a key up only under the
logged-in user's own folder: another user (or nobody logged in) gets 404 or 401.
"""

from __future__ import annotations

import hashlib
import mimetypes
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROUTE = "/godot-rag/files"
_NOBODY = "\0nobody"  # an owner no login can have: files stored outside a session are never served


def files_root(settings: Any) -> Path:
    """Shared by every UI on one GODOT_RAG_HOME (a thread reopened on another instance keeps its files)."""
    return settings.home / "chainlit_files"


def _session_owner() -> str:
    """The identifier of the user whose websocket session is storing the file."""
    from chainlit.context import context

    try:
        user = context.session.user
    except Exception:  # no chainlit context (e.g. a script): nobody may read it back
        return _NOBODY
    return getattr(user, "identifier", None) or _NOBODY


class OwnerFileStorage:
    """Chainlit storage provider on local disk, one folder per owner."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, owner: str, object_key: str) -> Path:
        """Where `object_key` of `owner` lives; keys never escape the owner's folder."""
        base = (self.root / hashlib.sha256(owner.encode("utf-8")).hexdigest()[:32]).resolve()
        path = (base / object_key).resolve()
        if not path.is_relative_to(base) or path == base:
            raise ValueError(f"bad object key {object_key!r}")
        return path

    async def upload_file(self, object_key: str, data: bytes | str, mime: str = "application/octet-stream",
                          overwrite: bool = True, content_disposition: str | None = None) -> dict[str, Any]:
        path = self.path(_session_owner(), object_key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return {"object_key": object_key, "url": await self.get_read_url(object_key)}

    async def delete_file(self, object_key: str) -> bool:
        if not self.root.is_dir():
            return True
        for owner_dir in self.root.iterdir():
            path = (owner_dir / object_key).resolve()
            if path.is_relative_to(owner_dir.resolve()):
                path.unlink(missing_ok=True)
        return True

    async def get_read_url(self, object_key: str) -> str:
        return f"{ROUTE}/{quote(object_key)}"

    async def close(self) -> None:
        return None


def install(app: Any, storage: OwnerFileStorage) -> None:
    """Add `GET /godot-rag/files/<key>` ahead of Chainlit's catch-all page route."""
    from chainlit.auth import get_current_user
    from fastapi import Depends, HTTPException
    from fastapi.responses import FileResponse

    async def download(object_key: str, user: Any = Depends(get_current_user)) -> FileResponse:
        """One stored file, only for the user who stored it."""
        if user is None:
            raise HTTPException(status_code=401, detail="log in to download files")
        try:
            path = storage.path(user.identifier, object_key)
        except ValueError:
            raise HTTPException(status_code=404, detail="no such file") from None
        if not path.is_file():
            raise HTTPException(status_code=404, detail="no such file")
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        # attachment + nosniff: an uploaded .html or .svg never runs as a page on the chat's origin
        return FileResponse(path, media_type=mime, filename=path.name, content_disposition_type="attachment",
                            headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "private, no-store"})

    app.add_api_route(ROUTE + "/{object_key:path}", download, methods=["GET"], include_in_schema=False)
    app.router.routes.insert(0, app.router.routes.pop())
