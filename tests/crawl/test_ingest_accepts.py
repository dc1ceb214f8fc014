"""Ingest accepts what the crawler writes: a clean crawl goes in, an incomplete one is refused unless forced."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.crawl.crawler import run_crawl
from agent.ingest.corpus import CorpusError, load_corpus
from agent.ingest.pipeline import run_ingest
from agent.storage import connection
from tests.crawl.conftest import fast_config
from tests.crawl.site_server import SiteServer
from tests.crawl.sphinx_site import FAIL_FIRST, REDIRECTS, write_fixture_site


@pytest.fixture(scope="module")
def clean_crawl(tmp_path_factory) -> tuple[Path, str]:
    """A crawl of the fixture site without its broken pages: it passes the quality gate."""
    tmp = tmp_path_factory.mktemp("clean_crawl")
    site = write_fixture_site(tmp / "site", clean=True)
    with SiteServer(site.root, redirects=REDIRECTS, fail_first=FAIL_FIRST) as server:
        report = run_crawl(fast_config(server.url(), tmp / "corpus"))
        base = server.url()
    assert report.passed, report.failed
    return tmp / "corpus", base


@pytest.fixture(scope="module")
def ingested(clean_crawl, empty_db_factory, tmp_path_factory):
    corpus_dir, base = clean_crawl
    settings = empty_db_factory("crawl")
    summary = run_ingest(
        settings, docs_dir=corpus_dir, renames_file=None, out_dir=tmp_path_factory.mktemp("kb"), progress=False
    )
    with connection(settings) as conn:
        rows = conn.execute(
            "SELECT chunk_id, source_url, symbol, doc_type, content, code_blocks FROM godot_rag.docs_chunks"
        ).fetchall()
    return summary, rows, base


def test_ingest_takes_every_crawled_page(ingested) -> None:
    summary, rows, base = ingested
    assert summary.pages == 10 and not summary.errors, summary.errors
    assert {r["source_url"] for r in rows} >= {base + "classes/class_node2d.html", base + "tutorials/hidden.html",
                                               base + "tutorials/scripting/moving_things.html"}


def test_ingest_cuts_one_chunk_per_class_member(ingested) -> None:
    _, rows, base = ingested
    symbols = {r["symbol"] for r in rows if r["source_url"] == base + "classes/class_node2d.html"}
    assert {"Node2D.position", "Node2D.rotation", "Node2D.apply_scale", "Node2D.get_angle_to", "Node2D.moved",
            "Node2D.MAX_DEPTH", "Node2D.AnchorMode"} <= symbols


def test_tutorial_code_reaches_the_chunks(ingested) -> None:
    _, rows, base = ingested
    text = " ".join(r["content"] for r in rows if r["source_url"] == base + "tutorials/scripting/moving_things.html")
    assert "func _process(delta)" in text and "public partial class Mover" in text


def test_tutorial_code_blocks_keep_the_crawled_language(ingested) -> None:
    _, rows, base = ingested
    languages = {c["language"] for r in rows if r["source_url"] == base + "tutorials/scripting/moving_things.html"
                 for c in (r["code_blocks"] or [])}
    assert {"gdscript", "csharp"} <= languages


def test_incomplete_crawl_is_refused_unless_forced(empty_db_factory, tmp_path: Path) -> None:
    site = write_fixture_site(tmp_path / "site")
    with SiteServer(site.root, redirects=REDIRECTS, fail_first=FAIL_FIRST) as server:
        run_crawl(fast_config(server.url(), tmp_path / "corpus"))
    settings = empty_db_factory("crawlgate")
    with pytest.raises(CorpusError, match="failed_fetches=2.*missing_from_searchindex=2"):
        run_ingest(settings, docs_dir=tmp_path / "corpus", renames_file=None, out_dir=tmp_path / "kb", progress=False)
    forced = load_corpus(tmp_path / "corpus", force=True)  # forcing reads what is there (no embedding here)
    assert len(forced.pages) == 10
