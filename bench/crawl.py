"""Crawler bench: a first crawl and a conditional re-crawl of a generated 1,000-page local Sphinx site.

The site is served by a separate process (tests/crawl/site_server.py) and each crawl runs in its own
process, so pages/s and peak RSS belong to the crawler alone. The re-crawl should download no page
bodies (every page answers 304), which is what the ratio shows.

    .venv/bin/python bench/crawl.py [--pages 1000] [--concurrency 8] [--delay 0]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _phase(base_url: str, out_dir: str, concurrency: int, delay: float) -> None:
    """Child process: one crawl; print its numbers as JSON on stdout."""
    sys.path.insert(0, str(ROOT))
    from agent.crawl.crawler import CrawlConfig, run_crawl

    started = time.perf_counter()
    report = run_crawl(
        CrawlConfig(
            base_url=base_url, out_dir=Path(out_dir), concurrency=concurrency, delay=delay, progress=True
        )
    )
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    s = report.summary
    print(
        json.dumps(
            {
                "pages": s["collected_pages"],
                "fetched": s["fetched_pages"],
                "not_modified": s["not_modified_pages"],
                "failed": s["failed_fetches"],
                "seconds": seconds,
                "peak_rss_mb": peak_kb / 1024,
            }
        )
    )


def _stats(origin: str, reset: bool = False) -> dict[str, int]:
    with urllib.request.urlopen(origin + "/__stats__", timeout=10) as response:
        return json.loads(response.read())


def _run_phase(base_url: str, out: Path, args: argparse.Namespace) -> dict[str, float]:
    cmd = [
        sys.executable,
        __file__,
        "--phase",
        base_url,
        str(out),
        "--concurrency",
        str(args.concurrency),
        "--delay",
        str(args.delay),
    ]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    sys.stderr.write(done.stderr[-400:] + "\n")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--phase", nargs=2, metavar=("BASE_URL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        _phase(args.phase[0], args.phase[1], args.concurrency, args.delay)
        return 0

    sys.path.insert(0, str(ROOT))
    from tests.crawl.sphinx_site import BASE_PATH, write_generated_site

    with tempfile.TemporaryDirectory(prefix="crawl-bench-") as tmp:
        site = write_generated_site(Path(tmp) / "site", args.pages)
        server = subprocess.Popen(
            [sys.executable, "-m", "tests.crawl.site_server", str(site.root)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            origin = server.stdout.readline().strip()
            base = origin + BASE_PATH
            out = Path(tmp) / "corpus"
            before = _stats(origin)
            first = _run_phase(base, out, args)
            mid = _stats(origin)
            again = _run_phase(base, out, args)
            after = _stats(origin)
        finally:
            if server.stdin:
                server.stdin.close()
            server.wait(timeout=10)

    first["page_bodies"] = mid["page_bodies"] - before["page_bodies"]
    again["page_bodies"] = after["page_bodies"] - mid["page_bodies"]
    rows = [("first crawl", first), ("conditional re-crawl", again)]
    print(
        f"crawl bench: {args.pages} generated class pages (+2 index pages), local server, "
        f"concurrency {args.concurrency}, delay {args.delay}s"
    )
    print(
        f"{'phase':<22}{'pages':>7}{'fetched':>9}{'304':>6}{'bodies':>8}{'seconds':>9}{'pages/s':>9}{'peak RSS MB':>13}"
    )
    for name, r in rows:
        rate = r["pages"] / r["seconds"]
        print(
            f"{name:<22}{r['pages']:>7}{r['fetched']:>9}{r['not_modified']:>6}{r['page_bodies']:>8}"
            f"{r['seconds']:>9.2f}{rate:>9.1f}{r['peak_rss_mb']:>13.1f}"
        )
    ratio = (again["pages"] / again["seconds"]) / (first["pages"] / first["seconds"])
    print(
        f"re-crawl / first crawl: {ratio:.2f}x pages/s, "
        f"{again['peak_rss_mb'] / first['peak_rss_mb']:.2f}x peak RSS; "
        f"page bodies re-downloaded: {again['page_bodies']}"
    )
    return 0 if first["failed"] == 0 and again["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
