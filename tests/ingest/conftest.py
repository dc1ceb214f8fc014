"""Small corpora built from a few real docs pages, and a small rename table, for ingest tests."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from agent.settings import default_docs_dir

MINI_PAGES = [
    "classes__class_marker2d.md",
    "classes__class_characterbody2d.md",
    "classes__class_trianglemesh.md",
    "tutorials__migrating__upgrading_to_godot_4.md",
]

# A handful of real converter rows (facts: old name, new name), in the shared file's shape.
MINI_RENAMES = {
    "source": "test subset of the converter rename tables",
    "tables": {
        "class_renames": [
            {"old": "KinematicBody2D", "new": "CharacterBody2D", "classes": "", "enabled": True, "note": ""},
            {"old": "Spatial", "new": "Node3D", "classes": "", "enabled": True, "note": ""},
            {"old": "World", "new": "World3D", "classes": "", "enabled": False, "note": "Too common."},
        ],
        "gdscript_function_renames": [
            {"old": "instance", "new": "instantiate", "classes": "PackedScene", "enabled": True, "note": ""},
            {"old": "update", "new": "queue_redraw", "classes": "CanvasItem", "enabled": True, "note": ""},
        ],
    },
}


def build_corpus(dest: Path, pages: list[str]) -> Path:
    """Copy real pages and their manifest rows into `dest` in the crawler's layout."""
    docs = default_docs_dir()
    if docs is None:
        pytest.skip("../shared/godot-docs is absent")
    manifest = {r["file"]: r for r in json.loads((docs / "manifest.json").read_text())}
    (dest / "pages").mkdir(parents=True, exist_ok=True)
    rows = []
    for name in pages:
        row = dict(manifest[f"pages/{name}"])
        shutil.copyfile(docs / row["file"], dest / row["file"])
        rows.append(row)
    write_manifest(dest, rows)
    (dest / "summary.json").write_text(json.dumps(
        {"doc_version": "stable", "godot_version": "4.4", "collected_pages": len(rows), "page_files": len(rows),
         "failed_fetches": 0}
    ))
    (dest / "failed.json").write_text("[]")
    return dest


def write_manifest(dest: Path, rows: list[dict]) -> None:
    (dest / "manifest.json").write_text(json.dumps(rows, indent=1))


def manifest_rows(dest: Path) -> list[dict]:
    return json.loads((dest / "manifest.json").read_text())


def rewrite_page(dest: Path, name: str, text: str | bytes) -> None:
    """Change a page and keep the manifest's sha256/bytes in step, as a re-crawl would."""
    raw = text.encode() if isinstance(text, str) else text
    (dest / "pages" / name).write_bytes(raw)
    rows = manifest_rows(dest)
    for r in rows:
        if r["file"] == f"pages/{name}":
            r["sha256"] = hashlib.sha256(raw).hexdigest()
            r["bytes"] = len(raw)
    write_manifest(dest, rows)


@pytest.fixture
def mini_corpus(tmp_path: Path) -> Path:
    return build_corpus(tmp_path / "docs", MINI_PAGES)


@pytest.fixture
def mini_renames(tmp_path: Path) -> Path:
    path = tmp_path / "renames.json"
    path.write_text(json.dumps(MINI_RENAMES))
    return path
