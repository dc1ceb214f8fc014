"""What `godot-rag ingest` prints at the end: every warning by name, not only their count."""

from __future__ import annotations

from types import SimpleNamespace

from agent.ingest.cli import _print_summary


def test_each_warning_is_named(capsys):
    warnings = [f"warning [chunk] page produced no chunks: pages/p{i}.md" for i in range(52)]
    s = SimpleNamespace(pages=3, pages_3_4=0, pages_changed=3, pages_unchanged=0, pages_removed=0, chunks=5,
                        chunks_embedded=5, mappings=1, mappings_embedded=1, prototypes=1, prototypes_embedded=1,
                        api_index_rows=9, warnings=warnings, errors=[], seconds=1.0, out_dir="/kb",
                        retrieval_checks=[])
    _print_summary(s)
    out = capsys.readouterr().out
    assert "warnings: 52" in out and "  warning: warning [chunk] page produced no chunks: pages/p0.md" in out
    assert "pages/p49.md" in out and "pages/p50.md" not in out
    assert "...and 2 more warnings in /kb/ingest_report.jsonl" in out
