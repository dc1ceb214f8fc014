"""Crawl a Sphinx docs site into the corpus layout: search index first, navigation links second."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from tqdm import tqdm

from agent.crawl import corpus
from agent.crawl.convert import convert_page
from agent.crawl.corpus import FailedPage, PageRecord
from agent.crawl.errors import CrawlError, PageError, SearchIndexError
from agent.crawl.fetch import Fetcher, FetchPolicy
from agent.crawl.searchindex import parse_docnames, parse_version
from agent.crawl.urls import canonical, flat_name, in_scope, page_key, page_url, resolve_link, section_of
from agent.crawl.urls import validate_base_url

log = logging.getLogger(__name__)

PROJECT_URL = "https://github.com/godot-rag/godot-rag"


def default_user_agent() -> str:
    """`godot-rag-crawler/<version> (+<project url>)`, so site operators know who is asking."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("godot-rag")
    except PackageNotFoundError:
        ours = "0"
    return f"godot-rag-crawler/{ours} (+{PROJECT_URL})"


@dataclass(frozen=True, kw_only=True)
class CrawlConfig:
    """What to crawl, where to write it, and how politely."""

    base_url: str
    """Docs root, e.g. https://docs.godotengine.org/en/stable/ (must serve searchindex.js)."""
    out_dir: Path
    """Corpus directory; an earlier crawl there enables conditional re-fetching."""
    concurrency: int = 4
    """Requests in flight at once."""
    delay: float = 0.25
    """Seconds between request starts on one host."""
    max_pages: int | None = None
    """Stop scheduling after this many pages (trial runs); the rest are reported missing."""
    user_agent: str = field(default_factory=default_user_agent)
    """User-Agent header, also matched against robots.txt."""
    timeout: float = 30.0
    """Seconds per request."""
    max_retries: int = 3
    """Retries after 5xx/429/timeouts, with exponential backoff."""
    backoff: float = 0.5
    """First retry delay in seconds."""
    max_page_bytes: int = 10_000_000
    """Larger pages fail with 'page too large'."""
    follow_links: bool = True
    """Also follow toctree/navigation links (the second URL source)."""
    sections: tuple[str, ...] = ()
    """Only pages under these top-level folders (e.g. classes, tutorials) plus the home page; () = all."""
    progress: bool = True
    """tqdm progress bar on stderr."""

    def validated(self) -> CrawlConfig:
        """A copy with the base URL normalized; raises CrawlError on nonsense numbers."""
        if self.concurrency < 1:
            raise CrawlError(f"concurrency must be >= 1, got {self.concurrency}")
        if self.delay < 0:
            raise CrawlError(f"delay must be >= 0 seconds, got {self.delay}")
        if self.max_pages is not None and self.max_pages < 1:
            raise CrawlError(f"max-pages must be >= 1, got {self.max_pages}")
        if self.max_retries < 0 or self.max_page_bytes < 1 or self.timeout <= 0:
            raise CrawlError("max_retries must be >= 0, max_page_bytes >= 1 and timeout > 0")
        sections = tuple(sorted({part.strip().strip("/") for part in self.sections if part.strip().strip("/")}))
        return replace(
            self, base_url=validate_base_url(self.base_url), out_dir=Path(self.out_dir), sections=sections
        )


@dataclass(kw_only=True)
class CrawlReport:
    """What a crawl did; `summary` is what summary.json holds."""

    out_dir: Path
    summary: dict[str, object]
    failed: list[FailedPage]
    missing_from_searchindex: list[str]
    requests_sent: int
    elapsed: float

    @property
    def passed(self) -> bool:
        """The quality gate: nothing failed and every search-index page was collected."""
        return not self.failed and not self.missing_from_searchindex


def run_crawl(config: CrawlConfig) -> CrawlReport:
    """Synchronous entry point (CLI, bench)."""
    return asyncio.run(crawl(config))


async def crawl(config: CrawlConfig) -> CrawlReport:
    """Crawl `config.base_url` into `config.out_dir`; page failures are recorded, never raised."""
    config = config.validated()
    started = time.monotonic()
    out_dir = config.out_dir
    try:
        (out_dir / "pages").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CrawlError(f"cannot create output directory {out_dir}: {exc}") from exc
    previous = corpus.load_previous_manifest(out_dir)
    previous_summary = corpus.load_previous_summary(out_dir) if previous else {}
    policy = FetchPolicy(
        user_agent=config.user_agent,
        concurrency=config.concurrency,
        delay=config.delay,
        timeout=config.timeout,
        max_retries=config.max_retries,
        backoff=config.backoff,
        max_bytes=config.max_page_bytes,
    )
    async with Fetcher.client_for(policy) as client:
        fetcher = Fetcher(client, policy)
        run = _Run(config, fetcher, previous, previous_summary)
        await run.discover()
        await run.collect()
    return run.write(elapsed=time.monotonic() - started)


class _Run:
    """State of one crawl: the schedule, the collected rows and the failures."""

    def __init__(
        self,
        config: CrawlConfig,
        fetcher: Fetcher,
        previous: dict[str, PageRecord],
        previous_summary: dict[str, object],
    ) -> None:
        self.config = config
        self.base = config.base_url
        self.fetcher = fetcher
        self.previous = previous
        self.searchindex_urls: list[str] = []
        self.godot_version: str | None = None
        self.scheduled: dict[str, str] = {}  # url -> origin: searchindex | link | previous
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.records: dict[str, PageRecord] = {}
        self.files: dict[str, str] = {}  # file -> url, to catch two URLs flattening to one name
        self.failed: dict[str, FailedPage] = {}
        self.redirects: dict[str, str] = {}
        self.removed: list[str] = []
        self.broken_links: list[str] = []
        self.fetched = 0
        self.not_modified = 0
        self.bar: tqdm | None = None
        # ETag/Last-Modified of searchindex.js and documentation_options.js from the last crawl.
        old = previous_summary.get("site_validators") if previous_summary.get("base_url") == self.base else None
        self.old_validators: dict[str, list[str | None]] = old if isinstance(old, dict) else {}
        self.site_validators: dict[str, list[str | None]] = {}
        self.old_summary = previous_summary

    async def _get_site_file(self, url: str) -> bytes | None:
        """A site file, or None when the server confirms the copy the last crawl read is current (304)."""
        old = self.old_validators.get(url) or [None, None]
        fetched = await self.fetcher.get(url, html=False, validators=lambda _u: (old[0], old[1]))
        self.site_validators[url] = [fetched.etag or old[0], fetched.last_modified or old[1]]
        return None if fetched.not_modified else (fetched.body or b"")

    async def discover(self) -> None:
        """Read the search index (required) and the project version (optional); seed the schedule.

        On a re-crawl both are requested conditionally; a 304 reuses searchindex_urls.txt and the
        previous godot_version, so an unchanged site costs no body downloads at all.
        """
        index_url = self.base + "searchindex.js"
        saved = corpus.read_lines(self.config.out_dir / "searchindex_urls.txt")
        if saved is None:
            self.old_validators.pop(index_url, None)
        try:
            body = await self._get_site_file(index_url)
        except PageError as exc:
            raise SearchIndexError(f"cannot read {index_url}: {exc}; is the base URL a Sphinx docs root?") from exc
        if body is None and saved is not None:
            self.searchindex_urls = saved
        else:
            names = parse_docnames((body or b"").decode("utf-8", errors="replace"))
            self.searchindex_urls = list(dict.fromkeys(canonical(page_url(self.base, n)) for n in names))
        self.searchindex_urls = [u for u in self.searchindex_urls if self._wanted(u)]
        options_url = self.base + "_static/documentation_options.js"
        try:
            body = await self._get_site_file(options_url)
            if body is None:
                old_version = self.old_summary.get("godot_version")
                self.godot_version = old_version if isinstance(old_version, str) else None
            else:
                self.godot_version = parse_version(body.decode("utf-8", errors="replace"))
        except PageError as exc:
            log.info("no documentation_options.js (%s); godot_version unknown", exc)
        for url in self.searchindex_urls:
            self._schedule(url, "searchindex")
        for url in sorted(self.previous):
            if self._wanted(url):
                self._schedule(url, "previous")

    def _wanted(self, url: str) -> bool:
        """A docs page under the base URL, and in one of the chosen sections if any were chosen."""
        if not in_scope(self.base, url):
            return False
        sections = self.config.sections
        rel = url[len(self.base):]
        return not sections or rel in ("", "index.html") or rel.split("/", 1)[0] in sections

    def _schedule(self, url: str, origin: str) -> None:
        if url in self.scheduled or url in self.records:
            return
        if self.config.max_pages is not None and len(self.scheduled) >= self.config.max_pages:
            return
        self.scheduled[url] = origin
        self.queue.put_nowait(url)
        if self.bar is not None:
            self.bar.total = len(self.scheduled)
            self.bar.refresh()

    async def collect(self) -> None:
        """Fetch every scheduled page with `concurrency` workers; links found add to the schedule."""
        self.bar = tqdm(
            total=len(self.scheduled), unit="page", desc="crawl", file=sys.stderr,
            disable=not self.config.progress, dynamic_ncols=True,
        )
        workers = [asyncio.create_task(self._worker()) for _ in range(self.config.concurrency)]
        done_waiting = asyncio.create_task(self.queue.join())
        try:
            # Workers only end by raising (a bug or a disk error); surface that instead of waiting forever.
            done, _ = await asyncio.wait([done_waiting, *workers], return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if task is not done_waiting:
                    task.result()
        finally:
            done_waiting.cancel()
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            self.bar.close()

    async def _worker(self) -> None:
        while True:
            url = await self.queue.get()
            try:
                await self._collect_one(url)
            except PageError as exc:
                self._fail(url, exc)
            finally:
                self.queue.task_done()
                assert self.bar is not None
                self.bar.update(1)
                if self.failed:
                    self.bar.set_postfix(failed=len(self.failed), refresh=False)

    def _fail(self, url: str, exc: PageError) -> None:
        origin = self.scheduled.get(url)
        if exc.status in (404, 410) and origin == "previous":
            self.removed.append(url)  # gone from the site since the last crawl: not a failure
            return
        if exc.status in (404, 410) and origin == "link":
            self.broken_links.append(url)  # a dead link on the site, not a page the corpus lacks
            return
        self.failed[url] = FailedPage(url=url, status=exc.status, error=str(exc))

    def _validators(self, url: str) -> tuple[str | None, str | None]:
        prev = self._conditional(page_key(self.base, canonical(url))) if url.startswith(self.base) else None
        return (prev.etag, prev.last_modified) if prev else (None, None)

    def _conditional(self, url: str) -> PageRecord | None:
        """The earlier row for `url` if its file is still intact (only then may a 304 keep it)."""
        prev = self.previous.get(url)
        if prev is None or not (prev.etag or prev.last_modified):
            return None
        path = self.config.out_dir / prev.file
        if not path.is_file() or corpus.sha256_file(path) != prev.sha256:
            return None
        return prev

    async def _collect_one(self, url: str) -> None:
        fetched = await self.fetcher.get(url, validators=self._validators, within=self.base)
        final = canonical(fetched.final_url)
        if final != url:
            if not in_scope(self.base, final):
                raise PageError(f"redirected outside the docs: {url} -> {fetched.final_url}")
            final = page_key(self.base, final)
            self.redirects[url] = final
            if final in self.records or (final in self.scheduled and final != url):
                return  # the target is collected on its own
            self.scheduled.setdefault(final, "link")
        now = datetime.now(UTC).isoformat(timespec="seconds")
        if fetched.not_modified:
            prev = self._conditional(final)
            if prev is None:
                raise PageError("HTTP 304 for a page without a saved copy", status=304)
            self.records[final] = replace(prev, url=final)
            self.not_modified += 1
            return
        try:
            page = await asyncio.to_thread(convert_page, fetched.body or b"", url=final)
        except (RecursionError, ValueError) as exc:  # malformed HTML is this page's problem only
            raise PageError(f"cannot convert the HTML: {type(exc).__name__}: {exc}", status=fetched.status) from exc
        file = "pages/" + flat_name(self.base, final)
        owner = self.files.setdefault(file, final)
        if owner != final:
            raise PageError(f"{final} and {owner} both flatten to {file}")
        try:
            size, digest = corpus.write_page(self.config.out_dir, file, page.markdown)
        except OSError as exc:
            raise CrawlError(f"cannot write {self.config.out_dir / file}: {exc}") from exc
        self.records[final] = PageRecord(
            url=final,
            file=file,
            status=fetched.status,
            bytes=size,
            sha256=digest,
            fetched_at=now,
            etag=fetched.etag,
            last_modified=fetched.last_modified,
            redirected_from=[url] if final != url else [],
        )
        self.fetched += 1
        if self.config.follow_links:
            for href in page.links:
                link = resolve_link(final, href)
                if link and self._wanted(link):
                    self._schedule(page_key(self.base, link), "link")

    def write(self, *, elapsed: float) -> CrawlReport:
        """Write manifest, lists, summary, failures and notice; return the report."""
        out = self.config.out_dir
        urls = sorted(self.records)
        covered = set(urls) | {src for src, dst in self.redirects.items() if dst in self.records}
        missing = [u for u in sorted(self.searchindex_urls) if u not in covered]
        failed = [self.failed[u] for u in sorted(self.failed)]
        kept_files = {r.file for r in self.records.values()}
        stale = corpus.remove_stale_pages(out, self.previous, kept_files)
        corpus.write_json(out / "manifest.json", [self.records[u].as_json() for u in urls])
        corpus.write_lines(out / "urls.txt", urls)
        corpus.write_lines(out / "searchindex_urls.txt", sorted(self.searchindex_urls))
        corpus.write_lines(out / "missing_from_searchindex.txt", missing)
        corpus.write_lines(out / "broken_links.txt", sorted(self.broken_links))
        corpus.write_json(out / "failed.json", [vars(f) for f in failed])
        corpus.write_notice(out, self.base)
        page_files = sum(1 for f in kept_files if (out / f).is_file())
        in_index = set(self.searchindex_urls)
        summary: dict[str, object] = {
            "source": f"{self.base} crawled to Markdown by godot-rag crawl",
            "base_url": self.base,
            "doc_version": _doc_version(self.base),
            "sections": list(self.config.sections) or "all",
            "godot_version": self.godot_version,
            "crawled_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "user_agent": self.config.user_agent,
            "target_pages": len(self.scheduled) - len(self.removed) - len(self.broken_links) - len(self.redirects),
            "searchindex_pages": len(self.searchindex_urls),
            "collected_pages": len(urls),
            "page_files": page_files,
            "failed_fetches": len(failed),
            "missing_from_searchindex": len(missing),
            "found_only_by_links": sum(1 for u in urls if u not in in_index),
            "redirects": len(self.redirects),
            "fetched_pages": self.fetched,
            "not_modified_pages": self.not_modified,
            "removed_pages": len(self.removed),
            "broken_links": len(self.broken_links),
            "stale_files_deleted": stale,
            "quality_gate": "pass" if not failed and not missing else "fail",
            "by_section": corpus.by_section(urls, lambda u: section_of(self.base, u)),
            "site_validators": self.site_validators,
        }
        corpus.write_json(out / "summary.json", summary)
        return CrawlReport(
            out_dir=out,
            summary=summary,
            failed=failed,
            missing_from_searchindex=missing,
            requests_sent=self.fetcher.requests_sent,
            elapsed=elapsed,
        )


def _doc_version(base: str) -> str:
    """The last path segment of the base URL (`stable`, `latest`, `4.6`), or '' for a bare host."""
    parts = [p for p in urlsplit(base).path.split("/") if p]
    return parts[-1] if parts else ""
