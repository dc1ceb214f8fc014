"""The ingest and mapping review commands, through the real console entry point."""

from __future__ import annotations

import pytest

from agent.cli import main


def test_ingest_without_docs_dir_says_where_it_looked(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "no-docs-here"
    assert main(["ingest", "--docs", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "docs corpus not found" in err and str(missing) in err
    monkeypatch.setenv("GODOT_RAG_DOCS_DIR", str(missing))
    assert main(["ingest"]) == 2
    assert str(missing) in capsys.readouterr().err


def test_mapping_review_commands(kb_db_factory, monkeypatch, capsys):
    settings = kb_db_factory()
    monkeypatch.setenv("GODOT_RAG_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("USER", "reviewer-from-env")
    mid = "godot3-to-4:class:kinematicbody2d-to-characterbody2d"
    assert main(["mapping", "list", "--status", "candidate", "--limit", "5"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 5
    assert main(["mapping", "approve", mid]) == 0
    assert "approved by reviewer-from-env" in capsys.readouterr().out
    assert main(["mapping", "reject", "godot3-to-4:syntax:yield-to-await", "--why", "testing", "--by", "ana"]) == 0
    assert main(["mapping", "list", "--status", "approved"]) == 0
    out = capsys.readouterr().out
    assert mid in out and "reviewer-from-env" in out
    assert main(["mapping", "list", "--status", "rejected", "--limit", "500"]) == 0
    assert "yield-to-await" in capsys.readouterr().out
    assert main(["mapping", "approve", "no:such:id"]) == 2
    assert "no api_mapping row" in capsys.readouterr().err
    assert main(["mapping", "reject", mid]) == 2  # --why is required: a usage error, exit 2
    assert "--why" in capsys.readouterr().err
