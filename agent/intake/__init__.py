"""Source intake: snippets, uploads, zips, local directories and GitHub repos -> `IntakeResult`.

Every entry point returns the `AnalysisRequest` (prompt kept apart from the code) and the
`Expansion` (every file, in sorted path order, included or excluded with a reason). Bad
input raises `IntakeError`, whose message is meant for the user. Nothing is left on disk.

`AnalysisRequest.source_kind` is the single file's kind, or `unknown` for multi-file projects.
`source_sha256` is the text's sha256 for a single file or paste, the archive bytes' sha256 for
a zip, and a manifest hash (paths + file hashes) for directories and clones.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from agent.intake.archive import open_zip, zip_entries
from agent.intake.errors import IntakeError
from agent.intake.expand import (
    Entry,
    build_expansion,
    check_counts,
    check_entries,
    check_listed,
    decode_text,
    manifest_sha256,
    project_id_for,
    safe_relative,
)
from agent.intake.github import GithubTarget, clone_entries, parse_github_url
from agent.intake.local import directory_entries, read_regular, special_file_reason
from agent.intake.raw import RawFiles, raw_zip
from agent.intake.snippet import check_paste, snippet_entries
from agent.models import AnalysisRequest, Expansion, SourceKind, SourceOrigin
from agent.settings import Settings

__all__ = [
    "GithubTarget",
    "IntakeError",
    "IntakeResult",
    "from_source",
    "intake_directory",
    "intake_github",
    "intake_snippet",
    "intake_target",
    "intake_uploads",
    "intake_zip",
    "is_remote",
    "parse_github_url",
]


@dataclass(frozen=True)
class IntakeResult:
    """What the user asked (`request`) and what will be analysed (`expansion`)."""

    request: AnalysisRequest
    expansion: Expansion
    chunks: int = 0
    """The parser's chunk count, counted at intake against the front door's cap."""
    raw: RawFiles | None = None
    """An upload's every file as bytes (for a migrated copy that holds the whole project); None elsewhere."""

    @property
    def project_id(self) -> str:
        """Shortcut for `request.project_id`."""
        return self.request.project_id


def _result(
    expansion: Expansion,
    *,
    settings: Settings,
    prompt: str,
    source: str,
    source_file: str,
    origin: SourceOrigin,
    source_sha256: str | None = None,
    kind: SourceKind | None = None,
    what: str | None = None,
) -> IntakeResult:
    from agent.limits import check_chunk_cap  # imports agent.intake.errors: not at module level

    chunks = check_chunk_cap(expansion, settings, what=what or source_file)
    included = expansion.included
    if kind is None:
        kind = included[0].kind if len(included) == 1 else "unknown"
    if source_sha256 is None:
        source_sha256 = (
            included[0].sha256 if len(included) == 1 and included[0].sha256 else manifest_sha256(expansion)
        )
    request = AnalysisRequest(
        prompt=prompt,
        source=source,
        source_kind=kind,
        project_id=project_id_for(expansion),
        source_file=source_file,
        source_sha256=source_sha256,
        source_origin=origin,
    )
    return IntakeResult(request=request, expansion=expansion, chunks=chunks)


def intake_snippet(
    text: str, *, prompt: str = "", settings: Settings, language_hint: str | None = None
) -> IntakeResult:
    """A pasted snippet (fences stripped) or a pasted `# path` expansion of a project."""
    check_paste(text, settings)
    entries, kind, name = snippet_entries(text, language_hint=language_hint)
    check_counts(len(entries), sum(e.size for e in entries), settings, what="the pasted text")
    expansion = build_expansion(entries, settings, what="the pasted text")
    sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    if len(expansion.included) == 1 and expansion.included[0].path.startswith("pasted://"):
        sha = expansion.included[0].sha256 or sha  # the trace's sha must equal the expanded block's
    return _result(
        expansion,
        prompt=prompt,
        source=text,
        source_file=name,
        origin="pasted_snippet",
        source_sha256=sha,
        kind=kind if len(expansion.included) == 1 else "unknown",
        settings=settings,
        what="the pasted text",
    )


def intake_zip(data: bytes, *, name: str, prompt: str = "", settings: Settings) -> IntakeResult:
    """An uploaded zip, expanded in memory (a single top folder is stripped)."""
    if not data:
        raise IntakeError(f"Refused {name}: the archive is empty.")
    with open_zip(data, name=name) as zf:
        entries = zip_entries(zf, settings, name=name)
        expansion = build_expansion(entries, settings, what=name)
    result = _result(
        expansion,
        prompt=prompt,
        source=name,
        source_file=name,
        origin="uploaded_zip",
        source_sha256=hashlib.sha256(data).hexdigest(),
        settings=settings,
    )
    return replace(result, raw=raw_zip(data, name, settings.max_total_bytes))


def intake_uploads(files: list[tuple[str, bytes]], *, prompt: str = "", settings: Settings) -> IntakeResult:
    """Uploaded files; a `.zip` among them is expanded (under its own folder if not alone)."""
    if not files:
        raise IntakeError("No files were uploaded.")
    total = sum(len(data) for _, data in files)
    check_listed(len(files), settings, what="the upload")
    check_counts(0, total, settings, what="the upload")
    zips = [(n, d) for n, d in files if n.lower().endswith(".zip")]
    if len(files) == 1 and zips:
        return intake_zip(
            zips[0][1], name=safe_relative(zips[0][0], where="the upload"), prompt=prompt, settings=settings
        )
    entries: list[Entry] = []
    opened = []
    raw = RawFiles()  # every uploaded file's bytes, for the migrated copy; a zip's entries under its own folder
    try:
        for name, data in files:
            rel = safe_relative(name, where="the upload")
            if rel.lower().endswith(".zip"):
                zf = open_zip(data, name=rel)
                opened.append(zf)
                prefix = PurePosixPath(rel).stem + "/"
                entries += zip_entries(zf, settings, name=rel, prefix=prefix)
                inner = raw_zip(data, rel, settings.max_total_bytes)
                raw.data.update({prefix + p: d for p, d in inner.data.items()})
                raw.left_out.update({prefix + p: why for p, why in inner.left_out.items()})
            else:
                entries.append(Entry(rel, len(data), read=lambda d=data: d))
                raw.data[rel] = data
        check_entries(entries, settings, what="the upload")
        expansion = build_expansion(entries, settings, what="the upload")
    finally:
        for zf in opened:
            zf.close()
    names = ", ".join(safe_relative(n, where="the upload") for n, _ in files)
    origin: SourceOrigin = "uploaded_zip" if zips else "uploaded_file"
    source_file = safe_relative(files[0][0], where="the upload") if len(files) == 1 else names[:200]
    result = _result(
        expansion, prompt=prompt, source=names, source_file=source_file, origin=origin, settings=settings,
        what="the upload",
    )
    return replace(result, raw=raw)


def intake_directory(path: Path, *, prompt: str = "", settings: Settings) -> IntakeResult:
    """A local project folder (CLI only); symlinks are never followed."""
    path = Path(path)
    what = str(path)
    entries = directory_entries(path, settings, what=what)
    expansion = build_expansion(entries, settings, what=what)
    return _result(
        expansion, prompt=prompt, source=str(path), source_file=str(path), origin="local_directory",
        settings=settings,
    )


def intake_github(
    url: str, *, prompt: str = "", settings: Settings, origin_for_tests: str | None = None
) -> IntakeResult:
    """A public GitHub repository (optionally a ref and subfolder), cloned shallow and sparse.

    `origin_for_tests` replaces the clone origin (e.g. a local `file://` repo) after the URL
    has passed the real validator; it exists for tests only.
    """
    target = parse_github_url(url)
    entries = clone_entries(target, settings, origin_for_tests=origin_for_tests)
    expansion = build_expansion(entries, settings, what=target.url)
    return _result(
        expansion, prompt=prompt, source=url, source_file=target.url, origin="github", settings=settings
    )


def is_remote(target: str) -> bool:
    """Whether a target names a remote repository (a URL, an SSH address, `github.com/...`) rather than a path.

    Such a target goes to `intake_github`, whose validator accepts only https://github.com/ URLs.
    """
    target = (target or "").strip()
    return "://" in target or target.startswith("git@") or target.lower().startswith(("github.com/", "www.github.com/"))


def intake_target(
    target: str, *, prompt: str = "", settings: Settings, stdin_text: str | None = None
) -> IntakeResult:
    """CLI dispatcher: `-` (stdin snippet), a directory, a `.zip`, a file, or a GitHub URL."""
    target = (target or "").strip()
    if target == "-":
        text = stdin_text if stdin_text is not None else _read_stdin(settings)
        return intake_snippet(text, prompt=prompt, settings=settings)
    if is_remote(target):
        return intake_github(target, prompt=prompt, settings=settings)
    path = Path(target).expanduser()
    if path.is_symlink():
        raise IntakeError(f"Refused {target}: symbolic links are not followed.")
    if path.is_dir():
        return intake_directory(path, prompt=prompt, settings=settings)
    special = special_file_reason(path)
    if special:
        raise IntakeError(f"Refused {target}: {special}.")
    if path.is_file():
        is_zip = path.suffix.lower() == ".zip"
        limit, which = (
            (settings.max_total_bytes, "total size") if is_zip else (settings.max_file_bytes, "file size")
        )
        data = read_regular(path, limit)
        if data is None:
            raise IntakeError(f"Refused {target}: it is not a regular file (it changed while being opened).")
        if len(data) > limit:
            raise IntakeError(
                f"Refused {target}: {path.stat().st_size:,} bytes is over the {which} limit of {limit:,} bytes."
            )
        if is_zip:
            return intake_zip(data, name=path.name, prompt=prompt, settings=settings)
        return intake_uploads([(path.name, data)], prompt=prompt, settings=settings)
    raise IntakeError(f"{target!r} is not a file, a directory, '-' (stdin) or a https://github.com/ URL.")


async def from_source(
    *,
    text: str | None = None,
    files: list[tuple[str, bytes]] | None = None,
    url: str | None = None,
    target: str | None = None,
    prompt: str = "",
    settings: Settings,
    github_origin_for_tests: str | None = None,
) -> IntakeResult:
    """The one async front door: exactly one of a pasted `text`, uploaded `files` (name, bytes;
    a `.zip` is expanded), a GitHub `url`, or a CLI `target` (path, URL or `-`).

    Intake is synchronous (zip reading, git clone), so it runs in a worker thread and the event
    loop keeps serving other users meanwhile. Bad input raises `IntakeError`.
    """
    given = [name for name, value in (("text", text), ("files", files), ("url", url), ("target", target))
             if value is not None]
    if len(given) != 1:
        raise ValueError(f"from_source takes exactly one of text, files, url or target (got {given or 'none'})")
    if text is not None:
        return await asyncio.to_thread(intake_snippet, text, prompt=prompt, settings=settings)
    if files is not None:
        return await asyncio.to_thread(intake_uploads, files, prompt=prompt, settings=settings)
    if url is not None:
        return await asyncio.to_thread(
            intake_github, url, prompt=prompt, settings=settings, origin_for_tests=github_origin_for_tests
        )
    return await asyncio.to_thread(intake_target, target or "", prompt=prompt, settings=settings)


def _read_stdin(settings: Settings) -> str:
    """The snippet on stdin: at most the file size limit, and UTF-8 like every file (else IntakeError)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise IntakeError("Refused stdin: there is no standard input to read the snippet from.")
    limit = settings.max_file_bytes
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise IntakeError(f"Refused stdin: the text is over the file size limit of {limit:,} bytes.")
    try:
        return decode_text(data)
    except IntakeError as exc:
        raise IntakeError(f"Refused stdin: {exc}; save it as UTF-8 and try again.") from exc
