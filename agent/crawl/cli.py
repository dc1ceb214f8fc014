"""`godot-rag crawl`: collect a Sphinx docs site into the corpus layout ingest reads."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `crawl` command."""
    p = subparsers.add_parser(
        "crawl",
        help="crawl the Godot docs (a Sphinx site) into a Markdown corpus for ingest",
        description=(
            "Discover pages from the site's searchindex.js and its navigation links, fetch them politely "
            "(robots.txt, per-host delay, retries, conditional re-fetch) and write pages/*.md, manifest.json, "
            "summary.json, failed.json, urls.txt, searchindex_urls.txt and missing_from_searchindex.txt. "
            "Exit status 0 when every search-index page was collected, 1 when pages failed or are missing."
        ),
    )
    p.add_argument("--base-url", required=True, help="docs root, e.g. https://docs.godotengine.org/en/stable/")
    p.add_argument("--out", required=True, type=Path, help="output corpus directory (re-crawls update it)")
    p.add_argument("--concurrency", type=int, default=4, help="requests in flight at once (default 4)")
    p.add_argument("--delay", type=float, default=0.25, help="seconds between requests to one host (default 0.25)")
    p.add_argument("--max-pages", type=int, default=None, help="stop after this many pages (trial runs)")
    p.add_argument("--user-agent", default=None, help="User-Agent (default godot-rag-crawler/<version> (+url))")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default 30)")
    p.add_argument("--retries", type=int, default=3, help="retries after 5xx/timeouts (default 3)")
    p.add_argument("--max-page-bytes", type=int, default=10_000_000, help="size cap per page (default 10 MB)")
    p.add_argument("--section", action="append", default=[], metavar="NAME",
                   help="only this top-level folder (repeatable, e.g. --section classes --section tutorials)")
    p.add_argument("--no-links", action="store_true", help="only the search index, do not follow links")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from agent.crawl.crawler import CrawlConfig, default_user_agent, run_crawl
    from agent.crawl.errors import CrawlError

    config = CrawlConfig(
        base_url=args.base_url,
        out_dir=args.out,
        concurrency=args.concurrency,
        delay=args.delay,
        max_pages=args.max_pages,
        user_agent=args.user_agent or default_user_agent(),
        timeout=args.timeout,
        max_retries=args.retries,
        max_page_bytes=args.max_page_bytes,
        follow_links=not args.no_links,
        sections=tuple(args.section),
        progress=not args.no_progress,
    )
    try:
        report = run_crawl(config)
    except CrawlError as exc:
        print(f"crawl: error: {exc}", file=sys.stderr)
        return 2
    s = report.summary
    print(
        f"crawl: {s['collected_pages']}/{s['target_pages']} pages collected into {report.out_dir} "
        f"({s['fetched_pages']} fetched, {s['not_modified_pages']} unchanged) in {report.elapsed:.1f}s; "
        f"failed {s['failed_fetches']}, missing from search index {s['missing_from_searchindex']}",
        file=sys.stderr,
    )
    for failure in report.failed[:20]:
        print(f"  failed: {failure.url}: {failure.error}", file=sys.stderr)
    if len(report.failed) > 20:
        print(f"  ... {len(report.failed) - 20} more in failed.json", file=sys.stderr)
    if not report.passed:
        print("crawl: quality gate failed; ingest will refuse this corpus unless forced", file=sys.stderr)
        return 1
    return 0
