"""A migration as the user takes it away: a unified diff, a migrated copy of the project, or a zip of it.

Never in place: the copy goes to a folder that must not exist yet (or be empty), the patch to a new file.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
import io
import zipfile
from pathlib import Path, PurePosixPath

from agent.intake.raw import RawFiles
from agent.migrate.model import CopiedFile, ProjectMigration


def unified_diff(migration: ProjectMigration, originals: dict[str, str]) -> str:
    """A diff of every changed or moved file that `git apply` and `patch -p1` take (a/ and b/ prefixes, git rename
    headers for a moved file, `\\ No newline at end of file` where a side has no final newline)."""
    out: list[str] = []
    for f in migration.files:
        if f.migrated is None and not f.new_path:
            continue
        old = originals.get(f.path, "")
        new = f.migrated if f.migrated is not None else old
        for h in f.hunks:  # before the file's diff (patch tools skip such lines): what each hunk rests on
            items = "; ".join(f"{_short(c.old)} -> {_short(c.new or 'by hand')}" for c in h.items[:4])
            out.append(f"# godot-rag: {f.path} lines {h.start_line}-{h.end_line} ({h.status})"
                       + (f": {items}" if items else "") + (f" [{', '.join(h.evidence_ids[:4])}]" if h.evidence_ids else "")
                       + "\n")
        target = f.new_path or f.path
        out.append(f"diff --git a/{f.path} b/{target}\n")
        if f.new_path:
            out += [f"rename from {f.path}\n", f"rename to {target}\n"]
        for line in difflib.unified_diff(_lines(old), _lines(new), fromfile=f"a/{f.path}", tofile=f"b/{target}"):
            # a file's last line without its newline, on either side: its own line, then the marker patch tools read
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    """Lines as git and patch count them: split at `\\n` only (a `\\r` or `\\u2028` inside a line stays in it)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def _short(text: str, limit: int = 60) -> str:
    """One line of at most `limit` characters, cut between words (`set_health(...)`, never `set_healt`)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = max(cut.rfind(" "), cut.rfind(","), cut.rfind("("))
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


def _safe(path: str) -> PurePosixPath:
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts:
        raise ValueError(f"refused path {path!r}: outside the project")
    return p


def migrated_files(migration: ProjectMigration, originals: dict[str, str]) -> dict[str, str]:
    """Every analysed file of the project as it is after the migration (unchanged files as they were, moved
    files at their new path)."""
    out = dict(originals)
    for f in migration.files:
        if f.new_path:
            out.pop(f.path, None)
        if f.migrated is not None or f.new_path:
            out[f.new_path or f.path] = f.migrated if f.migrated is not None else originals.get(f.path, "")
    return out


def copy_plan(migration: ProjectMigration, originals: dict[str, str], raw: RawFiles | None = None
              ) -> tuple[dict[str, bytes], list[CopiedFile]]:
    """Every file of the migrated copy as bytes, and what became of each input file. Without `raw` (the
    project's bytes), the copy holds the analysed files only."""
    raw = raw or RawFiles({p: t.encode() for p, t in originals.items()}, complete=False)
    records = {f.path: f for f in migration.files}
    files: dict[str, bytes] = {}
    manifest: list[CopiedFile] = []
    for path in sorted(set(raw.data) | set(originals)):
        f = records.get(path)
        if f is not None and (f.migrated is not None or f.new_path):
            text = f.migrated if f.migrated is not None else originals.get(path, "")
            files[_key(f.new_path or path)] = text.encode()
            manifest.append(CopiedFile(path=path, action="renamed" if f.new_path else "migrated", new_path=f.new_path,
                                       reason=f.status))
        else:
            files[_key(path)] = raw.data[path] if path in raw.data else originals[path].encode()
            manifest.append(CopiedFile(path=path, action="copied"))
    for path, why in sorted(raw.left_out.items()):
        manifest.append(CopiedFile(path=path, action="left_out", reason=why))
    if not raw.complete:
        manifest.append(CopiedFile(path="*", action="left_out",
                                   reason="only the analysed files were read (a GitHub link is fetched sparse)"))
    return files, manifest


def _key(path: str) -> str:
    return str(_safe(path))


def write_copy(migration: ProjectMigration, originals: dict[str, str], out: Path, raw: RawFiles | None = None
               ) -> list[CopiedFile]:
    """Write the migrated project into `out` (new or empty folder): every input file, byte for byte unless it
    was migrated; returns what became of each input file."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not an empty folder: the migration never writes over files")
    files, manifest = copy_plan(migration, originals, raw)
    for path, data in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return manifest


def zip_bytes(migration: ProjectMigration, originals: dict[str, str], raw: RawFiles | None = None) -> bytes:
    """The migrated project as a zip (for a download): the same files as `write_copy`."""
    buf = io.BytesIO()
    files, _ = copy_plan(migration, originals, raw)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in sorted(files.items()):
            z.writestr(path, data)
    return buf.getvalue()


def summary_text(migration: ProjectMigration) -> str:
    """Counts first, then each file with TODOs or fallbacks, and why."""
    s = migration.summary
    lines = [f"{s.files_changed} file(s) changed, {s.edits} edit(s), {s.todos} TODO(s), "
             f"{s.files_unchanged} file(s) left as they were"
             + (f", {s.files_skipped} skipped" if s.files_skipped else "")
             + (f"; {s.complete}/{s.flagged} flagged part(s) rewritten completely" if s.flagged else "")]
    if migration.partial:
        lines.append(f"partial: {migration.partial}")
    for f in migration.files:
        if f.new_path:
            lines.append(f"  {f.path} -> {f.new_path} (references to it follow)")
        if f.todos or f.failures:
            lines.append(f"  {f.path}: {f.status}")
            lines += [f"    line {t.line} (of the migrated file): {t.reason}" for t in f.todos[:20]]
            lines += [f"    fell back: {x}" for x in f.failures]
    if migration.manifest:
        counts = Counter(c.action for c in migration.manifest if c.path != "*")
        lines.append("copy: " + ", ".join(f"{n} {a.replace('_', ' ')}" for a, n in sorted(counts.items())))
        lines += [f"  left out: {c.path}: {c.reason}" for c in migration.manifest if c.action == "left_out"][:20]
    return "\n".join(lines)
