"""Turn a list of candidate files into an `Expansion`: decisions, decoded text, `# path` view.

Entries carry a lazy reader so that excluded files (binaries, caches, oversized) are never
read. Limits come from `Settings` and are stated in every refusal.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from agent.intake.classify import classify
from agent.intake.errors import IntakeError
from agent.models import Expansion, SourceFile
from agent.settings import Settings

_ABS_WINDOWS = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class Entry:
    """A candidate file: relative POSIX path, size, and how to read it (never called if excluded)."""

    path: str
    size: int
    read: Callable[[], bytes] | None = None
    excluded: str | None = None  # decided by the source (symlink, encrypted entry, ...)


def safe_relative(name: str, *, where: str) -> str:
    """Normalise a path from an archive or upload; refuse absolute paths and `..` (zip-slip)."""
    raw = name.replace("\\", "/")
    if raw.startswith("/") or _ABS_WINDOWS.match(raw):
        raise IntakeError(f"Refused {where}: absolute path {name!r} is not allowed.")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise IntakeError(f"Refused {where}: path {name!r} escapes the project (zip-slip).")
    if not parts:
        raise IntakeError(f"Refused {where}: empty file name.")
    return "/".join(parts)


def decode_text(data: bytes) -> str:
    """UTF-8 (BOM stripped, newlines kept) or IntakeError naming the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IntakeError(f"not valid UTF-8 text (bad byte at offset {exc.start})") from exc


def text_sha256(text: str) -> str:
    """sha256 of the decoded text: the hash every trace and transmission check uses."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_counts(count: int, total: int, settings: Settings, *, what: str) -> None:
    """Refuse more files or more bytes than the settings allow, stating the limit."""
    if count > settings.max_files:
        raise IntakeError(
            f"Refused {what}: {count:,} files to analyse is over the limit of {settings.max_files:,} files "
            f"(GODOT_RAG_MAX_FILES)."
        )
    if total > settings.max_total_bytes:
        raise IntakeError(
            f"Refused {what}: {total:,} bytes is over the total size limit "
            f"of {settings.max_total_bytes:,} bytes."
        )


def analysed(entry: Entry) -> bool:
    """Whether intake will read this entry (the others are only listed, with their reason)."""
    return entry.excluded is None and classify(entry.path).include


def check_listed(count: int, settings: Settings, *, what: str) -> None:
    """Refuse a project that lists more files, analysed or not, than `max_listed_files`."""
    if count > settings.max_listed_files:
        raise IntakeError(
            f"Refused {what}: it lists {count:,} files, over the limit of "
            f"{settings.max_listed_files:,} files listed (GODOT_RAG_MAX_LISTED_FILES)."
        )


def check_entries(entries: list[Entry], settings: Settings, *, what: str, sizes: bool = True) -> None:
    """Apply the limits to a listing: files that will be read count toward `max_files` and the byte
    total; files only listed (assets, docs, caches) count toward `max_listed_files` alone."""
    check_listed(len(entries), settings, what=what)
    read = [e for e in entries if analysed(e)]
    check_counts(len(read), sum(e.size for e in read) if sizes else 0, settings, what=what)


def _source_file(entry: Entry, settings: Settings) -> SourceFile:
    decision = classify(entry.path)
    base = {"path": entry.path, "kind": decision.kind, "size": entry.size}
    if entry.excluded:
        return SourceFile(**base, included=False, reason=entry.excluded)
    if not decision.include:
        return SourceFile(**base, included=False, reason=decision.reason)
    limit = settings.max_file_bytes
    too_big = f"larger than the file size limit of {limit:,} bytes ({{size:,}} bytes)"
    if entry.size > limit or entry.read is None:
        return SourceFile(**base, included=False, reason=too_big.format(size=entry.size))
    data = entry.read()
    if len(data) > limit:
        return SourceFile(**base, included=False, reason=too_big.format(size=len(data)))
    if b"\0" in data:
        return SourceFile(**base, included=False, reason="binary content (NUL bytes) in a text file type")
    try:
        text = decode_text(data)
    except IntakeError as exc:
        return SourceFile(**base, included=False, reason=str(exc))
    return SourceFile(**base, included=True, reason=decision.reason, sha256=text_sha256(text), text=text)


def gdignored(entries: list[Entry]) -> list[Entry]:
    """Entries under a folder holding a `.gdignore` are excluded, as Godot itself never imports that folder.

    Godot checks the marker in the folders it scans below the project's root, never in the root itself (the
    folder holding project.godot): a `.gdignore` there hides nothing (LE-dialogue-editor ships one).
    """
    roots = {str(PurePosixPath(e.path).parent) for e in entries if PurePosixPath(e.path).name == "project.godot"}
    ignored = sorted({str(PurePosixPath(e.path).parent) for e in entries
                      if PurePosixPath(e.path).name == ".gdignore"} - roots)
    if not ignored:
        return entries
    out = []
    for e in entries:
        top = next((d for d in ignored if d == "." or e.path.startswith(d + "/")), None)
        if top is not None and e.excluded is None and PurePosixPath(e.path).name != ".gdignore":
            where = "the project root" if top == "." else f"{top}/"
            e = replace(e, excluded=f"Godot ignores this folder (.gdignore in {where}): not part of the project")
        out.append(e)
    return out


def build_expansion(entries: list[Entry], settings: Settings, *, what: str) -> Expansion:
    """Decide every entry in sorted path order and render the `# path` + content view.

    Raises IntakeError when nothing is left to analyse, listing why files were excluded.
    """
    seen: set[str] = set()
    unique = []
    entries = gdignored(entries)
    for e in sorted(entries, key=lambda e: e.path):
        if e.path in seen:
            raise IntakeError(f"Refused {what}: the path {e.path!r} appears twice.")
        seen.add(e.path)
        unique.append(e)
    files = [_source_file(e, settings) for e in unique]
    included = [f for f in files if f.included]
    if not included:
        reasons = "; ".join(f"{f.path}: {f.reason}" for f in files[:5]) or "no files"
        more = f" (and {len(files) - 5} more)" if len(files) > 5 else ""
        raise IntakeError(f"Nothing to analyse in {what}: {reasons}{more}.")
    text_parts: list[str] = []
    line_map: list[tuple[str, int] | None] = []
    for n, f in enumerate(included):
        if n:
            text_parts.append("")  # blank separator line between files
            line_map.append(None)
        text_parts.append(f"# {f.path}")
        line_map.append(None)
        body = (f.text or "").split("\n")
        if len(body) > 1 and body[-1] == "":
            body.pop()
        for i, line in enumerate(body, start=1):
            text_parts.append(line[:-1] if line.endswith("\r") else line)
            line_map.append((f.path, i))
    return Expansion(files=files, expanded_text="\n".join(text_parts) + "\n", line_map=line_map)


def files_summary(expansion: Expansion, *, shown: int = 10) -> str:
    """One line for progress output: counts, then the first excluded files with their reasons."""
    included, excluded = expansion.included, expansion.excluded
    line = f"{len(included)} file(s) included, {len(excluded)} excluded"
    if not excluded:
        return line
    listed = ", ".join(f"{f.path} ({f.reason})" for f in excluded[:shown])
    more = f", and {len(excluded) - shown:,} more" if len(excluded) > shown else ""
    return f"{line}: {listed}{more}"


def manifest_sha256(expansion: Expansion) -> str:
    """sha256 over the included files' paths and content hashes (order-stable)."""
    h = hashlib.sha256()
    for f in expansion.included:
        h.update(f"{f.path}\0{f.sha256}\n".encode())
    return h.hexdigest()


def project_id_for(expansion: Expansion) -> str:
    """Deterministic from content: the same files give the same project id."""
    return f"proj-{manifest_sha256(expansion)[:12]}"


def strip_common_root(paths: list[str]) -> str | None:
    """The single top folder every path shares (GitHub zips wrap repos in `repo-main/`), if any."""
    tops = {PurePosixPath(p).parts[0] for p in paths}
    if len(tops) == 1 and all(len(PurePosixPath(p).parts) > 1 for p in paths):
        return tops.pop()
    return None
