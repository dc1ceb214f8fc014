"""End-to-end crawls of the local test site: layout, counts, failures, retries, robots, re-crawls."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from pathlib import Path

from agent.cli import main as cli_main
from agent.crawl.crawler import run_crawl
from tests.crawl.conftest import fast_config
from tests.crawl.site_server import SiteServer
from tests.crawl.sphinx_site import BASE_PATH, FixtureSite

MANIFEST_KEYS = {"url", "file", "status", "bytes", "sha256", "fetched_at", "etag", "last_modified"}


def _read(out: Path, name: str):
    return json.loads((out / name).read_text(encoding="utf-8"))


def _lines(out: Path, name: str) -> list[str]:
    return (out / name).read_text(encoding="utf-8").splitlines()


def test_first_crawl_writes_the_corpus_layout(site_server: SiteServer, fixture_site: FixtureSite, tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    report = run_crawl(fast_config(site_server.url(), out))
    base = site_server.url()

    manifest = _read(out, "manifest.json")
    urls = [row["url"] for row in manifest]
    assert urls == sorted(urls) == [base + p for p in fixture_site.expected_collected]
    for row in manifest:
        assert MANIFEST_KEYS <= row.keys()
        data = (out / row["file"]).read_bytes()
        assert row["status"] == 200 and row["bytes"] == len(data)
        assert row["sha256"] == hashlib.sha256(data).hexdigest()
        assert row["etag"] and row["last_modified"] and row["fetched_at"].endswith("+00:00")
    files = {row["file"] for row in manifest}
    assert "pages/classes__class_@gdscript.md" in files  # %40 decoded, / -> __
    assert "pages/tutorials__scripting__moving_things.md" in files
    assert sorted(p.name for p in (out / "pages").iterdir()) == sorted(f.removeprefix("pages/") for f in files)

    assert _lines(out, "urls.txt") == urls
    assert _lines(out, "searchindex_urls.txt") == sorted(base + d + ".html" for d in fixture_site.docnames)
    failed_urls = [base + p for p in fixture_site.expected_failed]
    assert _lines(out, "missing_from_searchindex.txt") == failed_urls
    assert (out / "NOTICE.md").read_text().startswith("# Notice")

    summary = _read(out, "summary.json")
    assert summary["searchindex_pages"] == 11
    assert summary["collected_pages"] == summary["page_files"] == 10
    assert summary["target_pages"] == 12  # 11 in the index - 1 redirected + 2 found only by links
    assert summary["failed_fetches"] == 2 and summary["missing_from_searchindex"] == 2
    assert summary["found_only_by_links"] == 2  # extra.html and the redirect target
    assert summary["broken_links"] == 1 and _lines(out, "broken_links.txt") == [base + "classes/class_node.html"]
    assert summary["redirects"] == 1 and summary["quality_gate"] == "fail"
    assert summary["doc_version"] == "stable" and summary["godot_version"] == "4.4"
    assert summary["by_section"] == {"classes": 3, "tutorials": 6, "other": 1}
    assert not report.passed

    failed = _read(out, "failed.json")
    assert [f["url"] for f in failed] == failed_urls
    by_url = {f["url"]: f for f in failed}
    assert by_url[base + "tutorials/gone.html"]["status"] == 404
    assert "robots.txt" in by_url[base + "private/secret.html"]["error"]


def test_discovery_uses_both_the_search_index_and_the_links(site_server: SiteServer, tmp_path: Path) -> None:
    base = site_server.url()
    run_crawl(fast_config(base, tmp_path / "a"))
    urls = set(_lines(tmp_path / "a", "urls.txt"))
    assert base + "tutorials/hidden.html" in urls  # only the search index lists it
    assert base + "tutorials/extra.html" in urls  # only the toctree links it

    run_crawl(fast_config(base, tmp_path / "b", follow_links=False))
    urls = set(_lines(tmp_path / "b", "urls.txt"))
    assert base + "tutorials/hidden.html" in urls
    assert base + "tutorials/extra.html" not in urls


def test_retry_redirect_robots_and_user_agent(site_server: SiteServer, tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    run_crawl(fast_config(site_server.url(), out, user_agent="godot-rag-crawler/test (+https://example.org)"))
    flaky = BASE_PATH + "tutorials/flaky.html"
    assert site_server.errors[flaky] == 1 and site_server.requests[flaky] == 2 and site_server.bodies[flaky] == 1
    assert "fails once before it is served" in (out / "pages" / "tutorials__flaky.md").read_text()
    assert site_server.requests[BASE_PATH + "private/secret.html"] == 0  # robots.txt obeyed
    assert site_server.user_agents == {"godot-rag-crawler/test (+https://example.org)"}
    rows = {r["url"]: r for r in _read(out, "manifest.json")}
    target = rows[site_server.url() + "tutorials/renamed_target.html"]
    assert target["redirected_from"] == [site_server.url() + "tutorials/renamed.html"]
    assert site_server.url() + "tutorials/renamed.html" not in rows
    for path, count in site_server.bodies.items():
        assert count == 1, f"{path} downloaded {count} times"


def test_recrawl_of_an_unchanged_site_downloads_no_page_bodies(site_server: SiteServer, tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    config = fast_config(site_server.url(), out)
    run_crawl(config)
    first_manifest = _read(out, "manifest.json")
    site_server.reset_counts()

    report = run_crawl(config)
    page_bodies = {p: n for p, n in site_server.bodies.items() if p.endswith((".html", ".js"))}
    assert page_bodies == {}, page_bodies  # only robots.txt is read again
    assert site_server.conditional_requests == 13  # 10 pages, the redirect's second hop, searchindex, options
    assert report.summary["not_modified_pages"] == 10 and report.summary["fetched_pages"] == 0
    assert _read(out, "manifest.json") == first_manifest  # fetched_at etc. kept
    assert report.summary["godot_version"] == "4.4" and report.summary["searchindex_pages"] == 11


def test_recrawl_refetches_changed_and_damaged_pages_and_drops_removed_ones(
    site_server: SiteServer, fixture_site: FixtureSite, tmp_path: Path
) -> None:
    out = tmp_path / "corpus"
    config = fast_config(site_server.url(), out)
    run_crawl(config)
    site_root = fixture_site.root / BASE_PATH.strip("/")
    hidden = site_root / "tutorials" / "hidden.html"
    hidden.write_text(hidden.read_text().replace("Only the search index", "Now only the index"))
    later = time.time() + 5
    os.utime(hidden, (later, later))
    (out / "pages" / "tutorials__flaky.md").write_text("damaged locally\n")
    (site_root / "tutorials" / "extra.html").unlink()  # gone from the site (it was found by links)
    site_server.reset_counts()

    report = run_crawl(config)
    assert site_server.bodies[BASE_PATH + "tutorials/hidden.html"] == 1
    assert site_server.bodies[BASE_PATH + "tutorials/flaky.html"] == 1  # local copy did not match its sha256
    assert "Now only the index" in (out / "pages" / "tutorials__hidden.md").read_text()
    assert "damaged" not in (out / "pages" / "tutorials__flaky.md").read_text()
    assert not (out / "pages" / "tutorials__extra.md").exists()
    assert report.summary["removed_pages"] == 1 and report.summary["stale_files_deleted"] == 1
    assert report.summary["fetched_pages"] == 2 and report.summary["not_modified_pages"] == 7
    assert report.summary["collected_pages"] == report.summary["page_files"] == 9


def test_max_pages_limits_the_crawl_and_reports_the_rest_missing(site_server: SiteServer, tmp_path: Path) -> None:
    report = run_crawl(fast_config(site_server.url(), tmp_path / "c", max_pages=3))
    assert report.summary["target_pages"] == 3
    assert report.summary["collected_pages"] == 3
    assert report.summary["missing_from_searchindex"] == 11 - 3


def test_cli_crawl_exit_codes(site_server: SiteServer, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cli"
    code = cli_main(["crawl", "--base-url", site_server.url(), "--out", str(out), "--delay", "0",
                     "--concurrency", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and "quality gate failed" in err and "tutorials/gone.html: HTTP 404" in err
    assert (out / "summary.json").is_file()

    code = cli_main(["crawl", "--base-url", "ftp://example.org/docs/", "--out", str(tmp_path / "x")])
    assert code == 2 and "must use http or https" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cli_crawl_of_a_clean_site_passes_the_gate(tmp_path: Path, capsys) -> None:
    from tests.crawl.sphinx_site import FAIL_FIRST, REDIRECTS, write_fixture_site

    site = write_fixture_site(tmp_path / "site", clean=True)
    with SiteServer(site.root, redirects=REDIRECTS, fail_first=FAIL_FIRST) as server:
        code = cli_main(["crawl", "--base-url", server.url(), "--out", str(tmp_path / "out"), "--delay", "0",
                         "--no-progress"])
    assert code == 0, capsys.readouterr().err
    summary = _read(tmp_path / "out", "summary.json")
    assert summary["failed_fetches"] == 0 and summary["missing_from_searchindex"] == 0
    assert summary["quality_gate"] == "pass"
    assert _lines(tmp_path / "out", "missing_from_searchindex.txt") == []
    assert _read(tmp_path / "out", "failed.json") == []


async def test_requests_to_one_host_are_spaced_by_the_delay(site_server: SiteServer) -> None:
    from agent.crawl.fetch import Fetcher, FetchPolicy

    policy = FetchPolicy(user_agent="godot-rag-crawler/test", concurrency=4, delay=0.1)
    urls = [site_server.url() + p for p in ("index.html", "tutorials/index.html", "tutorials/hidden.html",
                                            "tutorials/extra.html", "classes/index.html")]
    async with Fetcher.client_for(policy) as client:
        fetcher = Fetcher(client, policy)
        await fetcher.load_robots(urls[0])
        started = time.monotonic()
        results = await asyncio.gather(*(fetcher.get(u) for u in urls))
        elapsed = time.monotonic() - started
    assert all(r.status == 200 and r.body for r in results)
    assert elapsed >= 0.1 * (len(urls) - 1) - 0.02  # five starts, at least 0.1 s apart, despite 4 slots
    assert not fetcher.allowed(site_server.url() + "private/secret.html")


def test_sections_limit_the_crawl_and_the_gate(site_server: SiteServer, tmp_path: Path) -> None:
    out = tmp_path / "classes_only"
    report = run_crawl(fast_config(site_server.url(), out, sections=("classes",)))
    base = site_server.url()
    assert _lines(out, "urls.txt") == [base + "classes/class_@gdscript.html", base + "classes/class_node2d.html",
                                       base + "classes/index.html", base + "index.html"]
    assert report.passed and report.summary["sections"] == ["classes"]
    assert site_server.requests[BASE_PATH + "tutorials/index.html"] == 0
