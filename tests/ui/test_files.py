"""Element files are kept per owner and never leave the owner's folder (fast, no server)."""

from __future__ import annotations

import asyncio

import pytest

from ui import files
from ui.files import OwnerFileStorage


def test_files_are_stored_per_owner_and_looked_up_only_there(tmp_path, monkeypatch):
    storage = OwnerFileStorage(tmp_path)
    monkeypatch.setattr(files, "_session_owner", lambda: "alice")
    stored = asyncio.run(storage.upload_file("u1/e1/game.zip", b"PK"))
    assert stored["url"] == "/godot-rag/files/u1/e1/game.zip"
    assert storage.path("alice", "u1/e1/game.zip").read_bytes() == b"PK"
    assert not storage.path("bob", "u1/e1/game.zip").exists()
    assert asyncio.run(storage.delete_file("u1/e1/game.zip"))
    assert not storage.path("alice", "u1/e1/game.zip").exists()


@pytest.mark.parametrize("key", ["../x", "a/../../x", "/etc/passwd", ""])
def test_keys_never_escape_the_owners_folder(tmp_path, key):
    with pytest.raises(ValueError):
        OwnerFileStorage(tmp_path).path("alice", key)


def test_outside_a_session_nobody_can_read_it_back(tmp_path):
    storage = OwnerFileStorage(tmp_path)
    asyncio.run(storage.upload_file("unknown/e2/r.json", "{}"))
    assert files._session_owner() == files._NOBODY
    assert not storage.path("anonymous", "unknown/e2/r.json").exists()
