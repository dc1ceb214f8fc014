"""Re-ingest on a small corpus of real pages: idempotent, incremental, keeps review decisions."""

from __future__ import annotations

from pathlib import Path

from agent.ingest.pipeline import run_ingest
from agent.ingest.review import review_mapping
from agent.storage import connection
from tests.ingest.conftest import manifest_rows, rewrite_page, write_manifest


def _counts(settings) -> dict:
    with connection(settings) as c:
        return {
            t: c.execute(f"SELECT count(*) AS n FROM godot_rag.{t}").fetchone()["n"]
            for t in ("docs_chunks", "api_mapping", "label_prototypes", "docs_pages")
        }


def _ids_of(settings, source_file: str) -> list[str]:
    with connection(settings) as c:
        return [r["chunk_id"] for r in c.execute(
            "SELECT chunk_id FROM godot_rag.docs_chunks WHERE source_file = %s ORDER BY chunk_id", (source_file,))]


def test_reingest_is_incremental_idempotent_and_keeps_reviews(empty_db_factory, mini_corpus: Path, mini_renames, tmp_path):
    settings = empty_db_factory("ingest")
    out = tmp_path / "kb"
    first = run_ingest(settings, docs_dir=mini_corpus, renames_file=mini_renames, out_dir=out, progress=False)
    assert first.errors == [] and first.pages == 4 and first.pages_changed == 4
    assert first.chunks_embedded == first.chunks > 40
    assert first.mappings_embedded == first.mappings and first.prototypes_embedded == first.prototypes
    ok = {c["question"]: c["ok"] for c in first.retrieval_checks}
    assert ok["KinematicBody2D"] and ok["move_and_slide"], first.retrieval_checks
    assert first.seconds < 120 and first.timings
    before = _counts(settings)
    assert before["docs_chunks"] == first.chunks and before["docs_pages"] == 4
    for name in ("docs_chunks.jsonl", "api_mapping.jsonl", "label_prototypes.jsonl", "ingest_report.jsonl",
                 "normalization_report.md"):
        assert (out / name).is_file(), name

    # a person reviews two rules
    with connection(settings) as c:
        review_mapping(c, "godot3-to-4:class:kinematicbody2d-to-characterbody2d", decision="approved", reviewer="ana")
        review_mapping(c, "godot3-to-4:class:spatial-to-node3d", decision="rejected", reviewer="bo", note="test reason")

    # unchanged corpus: nothing embedded, same rows, decisions kept
    second = run_ingest(settings, docs_dir=mini_corpus, renames_file=mini_renames, out_dir=out, progress=False)
    assert second.embeddings == 0 and second.pages_changed == 0 and second.pages_unchanged == 4
    assert _counts(settings) == before
    with connection(settings) as c:
        rows = {r["mapping_id"]: r for r in c.execute(
            "SELECT mapping_id, status, reviewed_by, review_note, reviewed_at FROM godot_rag.api_mapping"
            " WHERE reviewed_by IS NOT NULL")}
    assert rows["godot3-to-4:class:kinematicbody2d-to-characterbody2d"]["status"] == "approved"
    assert rows["godot3-to-4:class:spatial-to-node3d"]["status"] == "rejected"
    assert rows["godot3-to-4:class:spatial-to-node3d"]["review_note"] == "test reason"
    assert all(r["reviewed_at"] is not None for r in rows.values())

    # one page changes: only its chunks are re-embedded
    marker = "classes__class_marker2d.md"
    text = (mini_corpus / "pages" / marker).read_text()
    rewrite_page(mini_corpus, marker, text.replace("## Description\n", "## Description\n\nA freshly added test sentence.\n\n", 1))
    third = run_ingest(settings, docs_dir=mini_corpus, renames_file=mini_renames, out_dir=out, progress=False)
    assert third.pages_changed == 1
    assert third.chunks_embedded == len(_ids_of(settings, f"pages/{marker}")) > 0
    assert third.mappings_embedded == 0 and third.prototypes_embedded == 0
    with connection(settings) as c:
        desc = c.execute(
            "SELECT content FROM godot_rag.docs_chunks WHERE chunk_id = %s",
            ("godot-stable:classes/class_marker2d.html#description:0001",),
        ).fetchone()
    assert "freshly added test sentence" in desc["content"]

    # one page is removed from the corpus: its chunks go
    rows = [r for r in manifest_rows(mini_corpus) if r["file"] != "pages/classes__class_trianglemesh.md"]
    write_manifest(mini_corpus, rows)
    (mini_corpus / "pages" / "classes__class_trianglemesh.md").unlink()
    fourth = run_ingest(settings, docs_dir=mini_corpus, renames_file=mini_renames, out_dir=out, progress=False)
    assert fourth.pages_removed == 1 and fourth.chunks_embedded == 0
    assert _ids_of(settings, "pages/classes__class_trianglemesh.md") == []
    with connection(settings) as c:
        assert c.execute("SELECT 1 FROM godot_rag.docs_pages WHERE source_file = 'pages/classes__class_trianglemesh.md'").fetchone() is None
        dangling = c.execute(
            "SELECT count(*) AS n FROM godot_rag.api_mapping m, unnest(m.evidence_chunk_ids) e"
            " WHERE NOT EXISTS (SELECT 1 FROM godot_rag.docs_chunks d WHERE d.chunk_id = e)").fetchone()["n"]
    assert dangling == 0
