"""Load the crawled corpus and check it before anything is written.

Fatal problems (no manifest, a failed crawl without --force) raise `CorpusError`;
problems with single pages become `Issue`s naming the page and the cause, and the page
is skipped while the rest of the corpus goes in.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent.ingest.chunks import Page


class CorpusError(RuntimeError):
    """The corpus cannot be ingested; the message says what is missing and where."""


@dataclass
class Issue:
    """One line of ingest_report.jsonl: a warning, a skipped item or a failed check."""

    level: str  # error | warning | skip | info
    stage: str
    cause: str
    page: str | None = None
    record_id: str | None = None
    detail: str = ""

    def as_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}

    def __str__(self) -> str:
        where = self.page or self.record_id or self.stage
        return f"{where}: {self.cause}" + (f" ({self.detail})" if self.detail else "")


@dataclass
class Corpus:
    """Pages that passed their checks, plus what the crawl summary says."""

    root: Path
    pages: list[Page]
    doc_version: str
    godot_version: str
    issues: list[Issue] = field(default_factory=list)
    failed_files: set[str] = field(default_factory=set)


def _read_json(path: Path, what: str):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{what} {path} is not valid JSON: {exc}") from exc


def check_quality_gate(docs_dir: Path, *, force: bool) -> tuple[dict, list[Issue]]:
    """Read summary.json/failed.json; refuse an incomplete crawl unless forced."""
    issues: list[Issue] = []
    summary_path = docs_dir / "summary.json"
    summary: dict = {}
    if summary_path.is_file():
        summary = _read_json(summary_path, "crawl summary")
    else:
        issues.append(Issue("warning", "check", "summary.json missing", detail=str(summary_path)))
    failed_path = docs_dir / "failed.json"
    failed: list = []
    if failed_path.is_file():
        failed = _read_json(failed_path, "failed list") or []
    else:
        issues.append(Issue("warning", "check", "failed.json missing", detail=str(failed_path)))
    problems = []
    failed_fetches = int(summary.get("failed_fetches", 0) or 0)
    missing = int(summary.get("missing_from_searchindex", 0) or 0)
    if failed_fetches > 0:
        problems.append(f"summary.json reports failed_fetches={failed_fetches}")
    if missing > 0:
        problems.append(f"summary.json reports missing_from_searchindex={missing}")
    if failed:
        names = ", ".join(str(f.get("url", f)) if isinstance(f, dict) else str(f) for f in failed[:5])
        problems.append(f"failed.json lists {len(failed)} page(s): {names}")
    if problems:
        msg = "incomplete crawl in " + str(docs_dir) + ": " + "; ".join(problems)
        if not force:
            raise CorpusError(msg + " (re-crawl, or pass --force to ingest what is there)")
        issues.append(Issue("warning", "check", "incomplete crawl ingested with --force", detail="; ".join(problems)))
    return summary, issues


def load_corpus(docs_dir: Path, *, force: bool = False) -> Corpus:
    """Check and load manifest.json and pages/*.md."""
    docs_dir = Path(docs_dir)
    if not docs_dir.is_dir():
        raise CorpusError(f"docs directory not found: {docs_dir}")
    manifest_path = docs_dir / "manifest.json"
    if not manifest_path.is_file():
        raise CorpusError(f"manifest missing: {manifest_path} (expected the crawler's manifest.json)")
    summary, issues = check_quality_gate(docs_dir, force=force)
    manifest = _read_json(manifest_path, "manifest")
    if not isinstance(manifest, list):
        raise CorpusError(f"manifest {manifest_path} must be a JSON list of pages")
    pages: list[Page] = []
    failed_files: set[str] = set()
    seen_urls: dict[str, str] = {}
    seen_files: set[str] = set()
    for row in manifest:
        file = str(row.get("file", "")) if isinstance(row, dict) else ""
        url = str(row.get("url", "")) if isinstance(row, dict) else ""
        if not file or not url:
            issues.append(Issue("error", "load", "manifest row without url or file", detail=json.dumps(row)[:200]))
            continue
        if url in seen_urls:
            issues.append(Issue("error", "load", "duplicate URL", page=file, detail=f"{url} already used by {seen_urls[url]}"))
            failed_files.add(file)
            continue
        if file in seen_files:
            issues.append(Issue("error", "load", "duplicate file", page=file, detail=url))
            continue
        seen_urls[url] = file
        seen_files.add(file)
        path = docs_dir / file
        if not path.is_file():
            issues.append(Issue("error", "load", "missing page file", page=file, detail=str(path)))
            failed_files.add(file)
            continue
        raw = path.read_bytes()
        if not raw.strip():
            issues.append(Issue("error", "load", "empty page", page=file, detail=url))
            failed_files.add(file)
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            issues.append(Issue("error", "load", "invalid UTF-8", page=file, detail=f"byte {exc.start}: {exc.reason}"))
            failed_files.add(file)
            continue
        digest = hashlib.sha256(raw).hexdigest()
        expected = row.get("sha256")
        if expected and expected != digest:
            issues.append(Issue("error", "load", "sha256 mismatch", page=file,
                                detail=f"manifest says {expected[:12]}…, file is {digest[:12]}…"))
            failed_files.add(file)
            continue
        pages.append(Page(url=url, source_file=file, sha256=digest, bytes=len(raw), text=text))
    return Corpus(
        root=docs_dir,
        pages=pages,
        doc_version=str(summary.get("doc_version", "stable")),
        godot_version=str(summary.get("godot_version", "4.x")),
        issues=issues,
        failed_files=failed_files,
    )
