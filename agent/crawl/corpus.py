"""The corpus layout ingest reads: pages/, manifest.json, urls.txt, summary.json, failed.json, NOTICE.md.

Plus the crawl's own checks: searchindex_urls.txt and missing_from_searchindex.txt.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent.crawl.errors import CrawlError


@dataclass(kw_only=True)
class PageRecord:
    """One manifest.json row."""

    url: str
    file: str
    status: int
    bytes: int
    sha256: str
    fetched_at: str
    etag: str | None = None
    last_modified: str | None = None
    redirected_from: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        """The row as written; `redirected_from` only when a redirect happened."""
        row = asdict(self)
        if not self.redirected_from:
            row.pop("redirected_from")
        return row


@dataclass(kw_only=True)
class FailedPage:
    """One failed.json row: the URL, the HTTP status if any, and the reason."""

    url: str
    status: int | None
    error: str


def sha256_file(path: Path) -> str:
    """Hex digest of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_previous_manifest(out_dir: Path) -> dict[str, PageRecord]:
    """Rows of an earlier crawl into the same directory, by URL (empty when there is none)."""
    path = out_dir / "manifest.json"
    if not path.is_file():
        return {}
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CrawlError(f"{path} is not valid JSON ({exc}); move it away to crawl from scratch") from exc
    known = {f.name for f in PageRecord.__dataclass_fields__.values()}  # type: ignore[attr-defined]
    out: dict[str, PageRecord] = {}
    for row in rows:
        if not isinstance(row, dict) or not {"url", "file", "sha256"} <= row.keys():
            raise CrawlError(f"{path} has a row without url/file/sha256: {row!r}")
        values = {k: v for k, v in row.items() if k in known}
        values.setdefault("status", 200)
        values.setdefault("bytes", 0)
        values.setdefault("fetched_at", "")
        out[row["url"]] = PageRecord(**values)
    return out


def load_previous_summary(out_dir: Path) -> dict[str, object]:
    """summary.json of an earlier crawl, or {} (a damaged one is ignored: it only holds validators)."""
    path = out_dir / "summary.json"
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def read_lines(path: Path) -> list[str] | None:
    """Non-empty lines of a text file, or None when it does not exist."""
    if not path.is_file():
        return None
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_page(out_dir: Path, file: str, markdown: str) -> tuple[int, str]:
    """Write one page atomically; return (bytes, sha256)."""
    data = markdown.encode("utf-8")
    _atomic_write(out_dir / file, data)
    return len(data), hashlib.sha256(data).hexdigest()


def write_json(path: Path, value: object) -> None:
    """JSON with one-space indent, as the shared corpus has it."""
    _atomic_write(path, (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


def write_lines(path: Path, lines: list[str]) -> None:
    """One item per line, newline-terminated (an empty file for no items)."""
    _atomic_write(path, "".join(line + "\n" for line in lines).encode("utf-8"))


def write_notice(out_dir: Path, base_url: str) -> None:
    """Attribution for the crawled pages (our own wording; the license facts of the Godot docs)."""
    text = f"""# Notice

The Markdown files under `pages/` were produced by `godot-rag crawl` from the
HTML documentation published at {base_url}. `manifest.json` gives each
page's source URL. Only each page's main text was kept; navigation, images
and link targets were left out during conversion.

- Godot documentation: Copyright (c) Juan Linietsky, Ariel Manzur and the
  Godot community, under the Creative Commons Attribution 3.0 license
  (CC BY 3.0), https://creativecommons.org/licenses/by/3.0/
- Class reference pages (`classes__class_*.md`) are derived from the Godot
  Engine source code, under the MIT license (Copyright (c) 2014-present
  Godot Engine contributors; Copyright (c) 2007-2014 Juan Linietsky,
  Ariel Manzur).

If you crawl another site, its own license applies instead.
"""
    _atomic_write(out_dir / "NOTICE.md", text.encode("utf-8"))


def by_section(urls: list[str], section_of) -> dict[str, int]:  # noqa: ANN001 - a url -> section callable
    """Page counts per section, always with the classes/tutorials/other keys."""
    counts = Counter(section_of(u) for u in urls)
    return {key: counts.get(key, 0) for key in ("classes", "tutorials", "other")}


def remove_stale_pages(out_dir: Path, previous: dict[str, PageRecord], kept_files: set[str]) -> int:
    """Delete page files an earlier crawl wrote that this crawl no longer lists; return how many."""
    removed = 0
    for record in previous.values():
        if record.file in kept_files or not record.file.startswith("pages/"):
            continue
        path = out_dir / record.file
        if path.is_file():
            path.unlink()
            removed += 1
    return removed


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
