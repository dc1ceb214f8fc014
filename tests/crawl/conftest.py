"""Fixtures: the Sphinx-like test site on a local server, and a crawl config pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.crawl.crawler import CrawlConfig
from tests.crawl.sphinx_site import FAIL_FIRST, REDIRECTS, FixtureSite, write_fixture_site
from tests.crawl.site_server import SiteServer


@pytest.fixture
def fixture_site(tmp_path: Path) -> FixtureSite:
    """The full test site, with its 404, robots-blocked, flaky and redirected pages."""
    return write_fixture_site(tmp_path / "site")


@pytest.fixture
def site_server(fixture_site: FixtureSite) -> Iterator[SiteServer]:
    """The test site served on a free 127.0.0.1 port."""
    with SiteServer(fixture_site.root, redirects=REDIRECTS, fail_first=FAIL_FIRST) as server:
        yield server


def fast_config(base_url: str, out_dir: Path, **changes: object) -> CrawlConfig:
    """A crawl config for local tests: no pacing, quick backoff, no progress bar."""
    values: dict[str, object] = {
        "base_url": base_url, "out_dir": out_dir, "delay": 0.0, "backoff": 0.01, "timeout": 5.0, "progress": False,
    }
    values.update(changes)
    return CrawlConfig(**values)  # type: ignore[arg-type]
