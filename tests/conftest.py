"""Shared fixtures: the real embedded Postgres, a per-session database, the real model and KB.

Every test session gets its own database, cloned from a template that holds the test
knowledge base (a subset of ../shared/godot-docs ingested by the real pipeline). The
template is keyed by a fingerprint of the pages, the ingest code and the SQL, so it is
rebuilt only when one of them changes, and sessions running side by side never share rows.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from agent.settings import PROJECT_ROOT, Settings, default_docs_dir, default_renames_file

SHARED = PROJECT_ROOT.parent / "shared"

# The test KB: class pages named in the ingest issue, the migration pages and the GDScript reference.
KB_PAGES = [
    "classes__class_node.md",
    "classes__class_node2d.md",
    "classes__class_characterbody2d.md",
    "classes__class_characterbody3d.md",
    "classes__class_area2d.md",
    "classes__class_input.md",
    "classes__class_vector2.md",
    "classes__class_animatedsprite2d.md",
    "classes__class_collisionshape2d.md",
    "classes__class_viewport.md",
    "classes__class_texture.md",
    "classes__class_fileaccess.md",
    "classes__class_diraccess.md",
    "classes__class_displayserver.md",
    "classes__class_tween.md",
    "classes__class_thread.md",
    "classes__class_os.md",
    "classes__class_packedscene.md",
    "classes__class_object.md",
    "classes__class_@gdscript.md",
    "classes__class_label.md",
    "classes__class_node3d.md",
    "tutorials__migrating__upgrading_to_godot_4.md",
    "tutorials__scripting__gdscript__gdscript_basics.md",
    "tutorials__scripting__gdscript__gdscript_exports.md",
]


# The 3.4 reference subset: the classes the judge tests resolve receivers against.
KB_CLASSREF3 = ["Label", "Spatial", "Camera", "Input", "InputEventMouseButton", "File", "Thread"]


def classref_subset_dir(dest: Path) -> Path | None:
    """The 3.4 XML subset in the shared layout; its summary.json keeps no counts (they are the full set's)."""
    import json

    from agent.settings import default_classref3_dir

    src = default_classref3_dir()
    if src is None:
        return None
    (dest / "classes").mkdir(parents=True, exist_ok=True)
    for name in KB_CLASSREF3:
        shutil.copyfile(src / "classes" / f"{name}.xml", dest / "classes" / f"{name}.xml")
    summary = json.loads((src / "summary.json").read_text())
    summary.pop("counts", None)
    (dest / "summary.json").write_text(json.dumps(summary, indent=1))
    return dest


def kb_subset_dir(dest: Path) -> Path:
    """Materialize the test corpus subset in the shared layout (manifest, summary, failed, pages)."""
    import json

    docs = default_docs_dir()
    if docs is None:
        pytest.skip("../shared/godot-docs is absent")
    manifest = json.loads((docs / "manifest.json").read_text())
    wanted = {f"pages/{p}" for p in KB_PAGES}
    rows = [r for r in manifest if r["file"] in wanted]
    (dest / "pages").mkdir(parents=True, exist_ok=True)
    for r in rows:
        shutil.copyfile(docs / r["file"], dest / r["file"])
    (dest / "manifest.json").write_text(json.dumps(rows, indent=1))
    summary = json.loads((docs / "summary.json").read_text())
    summary.update({"collected_pages": len(rows), "page_files": len(rows), "failed_fetches": 0})
    (dest / "summary.json").write_text(json.dumps(summary, indent=1))
    (dest / "failed.json").write_text("[]")
    return dest


def _fingerprint() -> str:
    h = hashlib.sha256()
    docs = default_docs_dir()
    for name in KB_PAGES:
        p = docs / "pages" / name if docs else None
        h.update(name.encode())
        if p and p.exists():
            h.update(hashlib.sha256(p.read_bytes()).digest())
    for pattern in ("agent/ingest/**/*.py", "agent/data/**/*", "sql/*.sql", "agent/embeddings.py",
                    "agent/embeddings_onnx.py", "agent/embedding_config.py"):
        for p in sorted(PROJECT_ROOT.glob(pattern)):
            if p.is_file():
                h.update(str(p.relative_to(PROJECT_ROOT)).encode())
                h.update(p.read_bytes())
    rn = default_renames_file()
    if rn:
        h.update(hashlib.sha256(rn.read_bytes()).digest())
    from agent.embeddings import resolve_precision  # a bf16 KB is no float32 KB: the goldens are made in float32

    h.update(resolve_precision(Settings.from_env().embedding_precision).encode())
    from agent.settings import default_classref3_dir

    cr = default_classref3_dir()
    for name in KB_CLASSREF3 if cr else []:
        h.update(name.encode())
        h.update(hashlib.sha256((cr / "classes" / f"{name}.xml").read_bytes()).digest())
    for p in sorted(PROJECT_ROOT.glob("agent/apiindex.py")):
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


@pytest.fixture(scope="session")
def base_settings() -> Settings:
    """Settings on the embedded server under GODOT_RAG_HOME (default: the repo's .godot_rag_home)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return Settings.from_env()


@pytest.fixture(scope="session")
def admin_url(base_settings: Settings) -> str:
    from agent.storage.db import database_url

    return database_url(base_settings.with_(database_name="postgres"))


def _db_url(admin: str, name: str) -> str:
    from agent.storage.db import _with_database

    return _with_database(admin, name)


def _create_db(admin: str, name: str, template: str | None = None) -> None:
    q = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template:
        q = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template))
    with psycopg.connect(admin, autocommit=True) as conn:
        for attempt in range(30):
            try:
                conn.execute(q)
                return
            except psycopg.errors.ObjectInUse:  # template briefly in use by a parallel session
                time.sleep(0.5 + attempt * 0.2)
        conn.execute(q)


def _drop_db(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def empty_db_factory(base_settings: Settings, admin_url: str):
    """Make fresh migrated databases; all are dropped at session end."""
    from agent.storage import connection, migrate

    made: list[str] = []

    def make(prefix: str = "t") -> Settings:
        name = f"godot_rag_{prefix}_{uuid.uuid4().hex[:10]}"
        _create_db(admin_url, name)
        made.append(name)
        s = base_settings.with_(database_name=name, database_url=_db_url(admin_url, name))
        with connection(s) as conn:
            migrate(conn, s)
        return s

    yield make
    for name in made:
        _drop_db(admin_url, name)


@pytest.fixture
def empty_db(empty_db_factory) -> Settings:
    """A fresh, migrated database with no knowledge base."""
    return empty_db_factory("empty")


def _drop_stale_templates(conn: psycopg.Connection, *, keep: str) -> None:
    """Old fingerprints' templates are dead weight once a new one exists; one still in use is left."""
    stale = conn.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE 'godot\\_rag\\_kbtpl\\_%%' AND datname <> %s", (keep,)
    ).fetchall()
    for row in stale:
        name = sql.Identifier(row["datname"] if isinstance(row, dict) else row[0])
        try:
            conn.execute(sql.SQL("ALTER DATABASE {} WITH is_template = false").format(name))
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(name))
        except psycopg.errors.ObjectInUse:
            pass  # a parallel session is cloning it right now; a later build drops it


@pytest.fixture(scope="session")
def kb_template(base_settings: Settings, admin_url: str, tmp_path_factory) -> str:
    """Name of a template database holding the test KB, built once per fingerprint."""
    from agent.ingest.pipeline import run_ingest
    from agent.storage import connection, migrate

    template = f"godot_rag_kbtpl_{_fingerprint()}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(4242)")
        try:
            ready = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s AND datistemplate", (template,)
            ).fetchone()
            if not ready:
                _drop_db(admin_url, template)
                _create_db(admin_url, template)
                s = base_settings.with_(database_name=template, database_url=_db_url(admin_url, template))
                with connection(s) as c:
                    migrate(c, s)
                docs = kb_subset_dir(tmp_path_factory.mktemp("kb_docs"))
                run_ingest(
                    s,
                    docs_dir=docs,
                    renames_file=default_renames_file(),
                    out_dir=tmp_path_factory.mktemp("kb_jsonl"),
                    progress=False,
                    classref_dir=classref_subset_dir(tmp_path_factory.mktemp("kb_classref")),
                )
                conn.execute(sql.SQL("ALTER DATABASE {} WITH is_template = true").format(sql.Identifier(template)))
                _drop_stale_templates(conn, keep=template)
        finally:
            conn.execute("SELECT pg_advisory_unlock(4242)")
    return template


@pytest.fixture(scope="session")
def kb_settings(kb_template: str, admin_url: str, base_settings: Settings):
    """Session database cloned from the KB template (read-mostly tests share it)."""
    name = f"godot_rag_kb_{uuid.uuid4().hex[:10]}"
    _create_db(admin_url, name, template=kb_template)
    yield base_settings.with_(database_name=name, database_url=_db_url(admin_url, name))
    _drop_db(admin_url, name)


@pytest.fixture
def kb_db_factory(kb_template: str, admin_url: str, base_settings: Settings):
    """Fresh KB databases for tests that write (runs, resume, reviews)."""
    made: list[str] = []

    def make() -> Settings:
        name = f"godot_rag_kbw_{uuid.uuid4().hex[:10]}"
        _create_db(admin_url, name, template=kb_template)
        made.append(name)
        return base_settings.with_(database_name=name, database_url=_db_url(admin_url, name))

    yield make
    for name in made:
        _drop_db(admin_url, name)


@pytest.fixture(scope="session")
def embedder(base_settings: Settings):
    """The real embedding model, loaded once."""
    from agent.embeddings import get_embedder

    return get_embedder(base_settings)


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Where tests keep screenshots and reports (ignored by git)."""
    d = PROJECT_ROOT / "test-artifacts"
    d.mkdir(exist_ok=True)
    return d


@pytest.fixture(scope="session")
def full_api(base_settings: Settings):
    """The API index of the whole shared corpus (4.x docs and the 3.4 reference), built by the real ingest's
    chunking once per fingerprint (no database, no embeddings): the GDScript 4 checker calls a name undeclared
    only where the 4.x side is complete."""
    import fcntl

    from agent.apiindex import ApiIndex
    from agent.ingest.pipeline import API_INDEX_FILE, _read_api_index, generate_jsonl
    from agent.settings import default_classref3_dir

    docs, classref = default_docs_dir(), default_classref3_dir()
    if docs is None or classref is None:
        pytest.skip("../shared/godot-docs or the 3.4 class reference is absent")
    h = hashlib.sha256((docs / "manifest.json").read_bytes())
    for p in [*sorted(PROJECT_ROOT.glob("agent/ingest/**/*.py")), PROJECT_ROOT / "agent" / "apiindex.py"]:
        h.update(p.read_bytes())
    for xml in sorted((classref / "classes").glob("*.xml")):
        h.update(xml.name.encode() + hashlib.sha256(xml.read_bytes()).digest())
    out = base_settings.home / "test-cache" / f"api-{h.hexdigest()[:16]}"
    out.mkdir(parents=True, exist_ok=True)
    with (out / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # sessions side by side build it once
        if not (out / API_INDEX_FILE).is_file():
            generate_jsonl(base_settings, docs_dir=docs, renames_file=default_renames_file(), out_dir=out,
                           progress=False, classref_dir=classref)
    entries, classes = _read_api_index(out / API_INDEX_FILE)
    return ApiIndex(entries, classes)
