"""Bad input: fatal corpus problems, per-page errors that name the page, and JSONL validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.ingest.corpus import CorpusError, load_corpus
from agent.ingest.pipeline import load_jsonl, run_ingest
from agent.storage import connection
from tests.ingest.conftest import build_corpus, manifest_rows, write_manifest

SMALL = ["classes__class_marker2d.md", "classes__class_trianglemesh.md"]


@pytest.fixture(scope="module")
def db(empty_db_factory):
    return empty_db_factory("ingesterr")


def test_missing_manifest_is_fatal(tmp_path: Path, db):
    (tmp_path / "pages").mkdir()
    with pytest.raises(CorpusError, match=r"manifest missing: .*manifest\.json"):
        run_ingest(db, docs_dir=tmp_path, renames_file=None, out_dir=tmp_path / "kb", progress=False)
    with pytest.raises(CorpusError, match="docs directory not found"):
        load_corpus(tmp_path / "absent")


def test_incomplete_crawl_needs_force(tmp_path: Path):
    docs = build_corpus(tmp_path / "docs", SMALL)
    summary = json.loads((docs / "summary.json").read_text())
    (docs / "summary.json").write_text(json.dumps({**summary, "failed_fetches": 2, "missing_from_searchindex": 3}))
    with pytest.raises(CorpusError) as err:
        load_corpus(docs)
    assert "failed_fetches=2" in str(err.value) and "missing_from_searchindex=3" in str(err.value)
    assert "--force" in str(err.value)
    (docs / "summary.json").write_text(json.dumps(summary))
    (docs / "failed.json").write_text(json.dumps([{"url": "https://docs.example/x.html", "error": "timeout"}]))
    with pytest.raises(CorpusError, match="failed.json lists 1 page"):
        load_corpus(docs)
    forced = load_corpus(docs, force=True)
    assert len(forced.pages) == 2 and any("--force" in str(i) for i in forced.issues)


def test_page_errors_name_the_page_and_the_rest_goes_in(tmp_path: Path, db):
    docs = build_corpus(tmp_path / "docs", SMALL)
    rows = manifest_rows(docs)
    base = "https://docs.godotengine.org/en/stable/classes/"
    (docs / "pages" / "classes__class_empty.md").write_bytes(b"  \n\n")
    (docs / "pages" / "classes__class_latin1.md").write_bytes("# Caf\u00e9\n\nx".encode("latin-1"))
    (docs / "pages" / "classes__class_stale.md").write_text("# Stale\n\nSome text.\n")
    (docs / "pages" / "classes__class_twin.md").write_text("# Twin\n\nSome text.\n")
    rows += [
        {"url": base + "class_gone.html", "file": "pages/classes__class_gone.md", "sha256": "0" * 64},
        {"url": base + "class_empty.html", "file": "pages/classes__class_empty.md"},
        {"url": base + "class_latin1.html", "file": "pages/classes__class_latin1.md"},
        {"url": base + "class_stale.html", "file": "pages/classes__class_stale.md", "sha256": "f" * 64},
        {"url": rows[0]["url"], "file": "pages/classes__class_twin.md"},
    ]
    write_manifest(docs, rows)
    summary = run_ingest(db, docs_dir=docs, renames_file=None, out_dir=tmp_path / "kb", progress=False)
    errors = "\n".join(summary.errors)
    assert "pages/classes__class_gone.md: missing page file" in errors
    assert "pages/classes__class_empty.md: empty page" in errors
    assert "pages/classes__class_latin1.md: invalid UTF-8" in errors
    assert "pages/classes__class_stale.md: sha256 mismatch" in errors
    assert "pages/classes__class_twin.md: duplicate URL" in errors
    assert summary.pages == 2 and summary.chunks >= 3
    report = [json.loads(x) for x in (tmp_path / "kb" / "ingest_report.jsonl").read_text().splitlines()]
    assert {r.get("page") for r in report if r["level"] == "error"} >= {
        "pages/classes__class_gone.md", "pages/classes__class_empty.md", "pages/classes__class_latin1.md"}
    assert report[-1]["stage"] == "summary"

    # a page that breaks on a later run keeps its previous chunks instead of being deleted
    (docs / "pages" / "classes__class_marker2d.md").write_bytes(b"\xff\xfe broken")
    again = run_ingest(db, docs_dir=docs, renames_file=None, out_dir=tmp_path / "kb", progress=False)
    assert "pages/classes__class_marker2d.md: invalid UTF-8" in "\n".join(again.errors)
    assert again.pages_removed == 0
    with connection(db) as c:
        n = c.execute("SELECT count(*) AS n FROM godot_rag.docs_chunks WHERE source_file = %s",
                      ("pages/classes__class_marker2d.md",)).fetchone()["n"]
    assert n > 0


def test_bad_jsonl_lines_are_reported_and_the_rest_goes_in(tmp_path: Path, db):
    docs = build_corpus(tmp_path / "docs", SMALL)
    out = tmp_path / "kb"
    good = run_ingest(db, docs_dir=docs, renames_file=None, out_dir=out, progress=False)
    assert good.errors == []
    chunk = json.loads((out / "docs_chunks.jsonl").read_text().splitlines()[0])
    with (out / "docs_chunks.jsonl").open("a") as fh:
        fh.write("{not json\n")
        fh.write(json.dumps({**chunk, "chunk_id": "test:no-content", "content": None}) + "\n")
        fh.write(json.dumps(chunk) + "\n")  # duplicate id
    mapping_lines = (out / "api_mapping.jsonl").read_text().splitlines()
    mapping = json.loads(mapping_lines[0])
    # the first row now fails validation: its previous DB version must survive, not be deleted
    mapping_lines[0] = json.dumps({**mapping, "confidence": "certain"})
    (out / "api_mapping.jsonl").write_text("\n".join(mapping_lines) + "\n")
    with (out / "api_mapping.jsonl").open("a") as fh:
        fh.write(json.dumps({**mapping, "mapping_id": "test:ghost-evidence", "evidence_chunk_ids": ["nope:0001"]}) + "\n")
        fh.write(json.dumps({**mapping, "mapping_id": "test:bad-status", "status": "maybe"}) + "\n")
    proto = json.loads((out / "label_prototypes.jsonl").read_text().splitlines()[0])
    with (out / "label_prototypes.jsonl").open("a") as fh:
        fh.write(json.dumps({**proto, "prototype_id": "test:ghost-map", "evidence_mapping_ids": ["no:such"]}) + "\n")
    summary = load_jsonl(db, out, progress=False)
    errors = "\n".join(summary.errors)
    assert "line does not parse" in errors
    assert "test:no-content: missing content" in errors
    assert "duplicate id" in errors
    assert "test:ghost-evidence: evidence id does not exist (nope:0001)" in errors
    assert "test:bad-status: status='maybe'" in errors
    assert "test:ghost-map: evidence id does not exist (no:such)" in errors
    assert f"{mapping['mapping_id']}: confidence='certain'" in errors
    assert summary.chunks == good.chunks and summary.mappings == good.mappings - 1
    # prototypes citing the now-invalid mapping fail their evidence check too
    citing = sum(mapping["mapping_id"] in json.loads(x)["evidence_mapping_ids"]
                 for x in (out / "label_prototypes.jsonl").read_text().splitlines())
    assert summary.prototypes == good.prototypes - citing and summary.embeddings == 0
    with connection(db) as c:
        assert c.execute("SELECT count(*) AS n FROM godot_rag.docs_chunks").fetchone()["n"] == good.chunks
        kept = c.execute("SELECT confidence FROM godot_rag.api_mapping WHERE mapping_id = %s",
                         (mapping["mapping_id"],)).fetchone()
        assert kept["confidence"] == mapping["confidence"]
        for table, col, rid in (("api_mapping", "mapping_id", "test:ghost-evidence"),
                                ("label_prototypes", "prototype_id", "test:ghost-map")):
            assert c.execute(f"SELECT 1 FROM godot_rag.{table} WHERE {col} = %s", (rid,)).fetchone() is None
