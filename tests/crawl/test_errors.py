"""Bad input and misbehaving servers give clear errors; page failures never stop the crawl."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from agent.cli import main as cli_main
from agent.crawl.crawler import run_crawl
from agent.crawl.errors import CrawlError, InvalidBaseUrl, SearchIndexError
from tests.crawl.conftest import fast_config
from tests.crawl.site_server import SiteServer
from tests.crawl.sphinx_site import BASE_PATH, page_html, searchindex_js, simple_page

P = BASE_PATH  # server path prefix


def _write_site(root: Path, pages: dict[str, str], docnames: list[str]) -> Path:
    base = root / BASE_PATH.strip("/")
    base.mkdir(parents=True)
    (base / "searchindex.js").write_text(searchindex_js(docnames))
    for rel, html in pages.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html)
    return root


@pytest.fixture
def bad_site(tmp_path: Path) -> Path:
    ok = page_html(title="Fine", depth=0, body=simple_page("Fine", "A page that works."))
    huge = page_html(title="Huge", depth=0, body=simple_page("Huge", "word " * 60_000))
    return _write_site(
        tmp_path / "site",
        {"index.html": ok, "data.html": '{"not": "html"}', "huge.html": huge, "huge_stream.html": huge,
         "sick.html": ok},
        ["index", "loop_a", "data", "huge", "huge_stream", "sick", "away"],
    )


def test_misbehaving_pages_are_recorded_with_clear_reasons(bad_site: Path, tmp_path: Path) -> None:
    server = SiteServer(
        bad_site,
        redirects={P + "loop_a.html": "loop_b.html", P + "loop_b.html": "loop_a.html",
                   P + "away.html": "https://elsewhere.example.org/page.html"},
        content_types={P + "data.html": "application/json"},
        no_length={P + "huge_stream.html"},
        fail_first={P + "sick.html": 10},
    )
    with server:
        base = server.url()
        out = tmp_path / "out"
        report = run_crawl(fast_config(base, out, max_retries=2, max_page_bytes=100_000))
        assert server.requests[P + "sick.html"] == 3  # first try + 2 retries
    errors = {f["url"].removeprefix(base): f["error"] for f in json.loads((out / "failed.json").read_text())}
    assert errors["loop_a.html"] == f"redirect loop: {base}loop_a.html -> {base}loop_b.html -> {base}loop_a.html"
    assert errors["data.html"] == "not an HTML page (content-type: application/json)"
    assert errors["huge.html"].startswith("page too large:") and "declared, limit 100000" in errors["huge.html"]
    assert errors["huge_stream.html"] == "page too large: more than 100000 bytes"
    assert errors["sick.html"] == "HTTP 500 after 3 attempts"
    assert errors["away.html"].startswith("redirected outside the docs")
    assert report.summary["collected_pages"] == 1  # index.html still made it
    assert report.summary["failed_fetches"] == 6 and report.summary["missing_from_searchindex"] == 6


@pytest.mark.parametrize("raw", ["", "ftp://example.org/", "https:///en/stable/", "example.org/en/stable/"])
def test_invalid_base_url_raises_before_anything_is_written(raw: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidBaseUrl):
        run_crawl(fast_config(raw, tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_site_without_search_index_is_a_clear_error(tmp_path: Path, capsys) -> None:
    root = tmp_path / "site"
    (root / "en" / "stable").mkdir(parents=True)
    (root / "en" / "stable" / "index.html").write_text("<html><body><p>not sphinx</p></body></html>")
    with SiteServer(root) as server:
        with pytest.raises(SearchIndexError, match=r"searchindex\.js: HTTP 404; is the base URL a Sphinx docs root"):
            run_crawl(fast_config(server.url(), tmp_path / "out"))
        code = cli_main(["crawl", "--base-url", server.url(), "--out", str(tmp_path / "out2"), "--no-progress"])
    assert code == 2 and "searchindex.js" in capsys.readouterr().err


def test_unreachable_host_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    with pytest.raises(SearchIndexError, match="connection error"):
        run_crawl(fast_config(f"http://127.0.0.1:{port}/en/stable/", tmp_path / "out", max_retries=1))


def test_bad_settings_and_a_damaged_previous_manifest(tmp_path: Path) -> None:
    with pytest.raises(CrawlError, match="concurrency must be >= 1"):
        run_crawl(fast_config("http://127.0.0.1:9/", tmp_path / "a", concurrency=0))
    with pytest.raises(CrawlError, match="max-pages must be >= 1"):
        run_crawl(fast_config("http://127.0.0.1:9/", tmp_path / "a", max_pages=0))
    out = tmp_path / "b"
    out.mkdir()
    (out / "manifest.json").write_text("{not json")
    with pytest.raises(CrawlError, match="manifest.json is not valid JSON"):
        run_crawl(fast_config("http://127.0.0.1:9/", out))


def test_unwritable_output_aborts_the_crawl_instead_of_hanging(site_server: SiteServer, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "pages").mkdir(parents=True)
    (out / "pages" / "tutorials__hidden.md").mkdir()  # a directory where a page file must go
    with pytest.raises(CrawlError, match="cannot write .*tutorials__hidden.md"):
        run_crawl(fast_config(site_server.url(), out))
