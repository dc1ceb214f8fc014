"""A migration as the user takes it away: a unified diff, a migrated copy of the project, or a zip of it.

Never in place: the copy goes to a folder that must not exist yet (or be empty), the patch to a new file.
"""

from __future__ import annotations

import difflib
import io
import zipfile
from pathlib import Path, PurePosixPath

from agent.migrate.model import ProjectMigration


def unified_diff(migration: ProjectMigration, originals: dict[str, str]) -> str:
    """`git apply`-able diff of every changed file (a/ and b/ prefixes), each hunk's file named."""
    out: list[str] = []
    for f in migration.files:
        if f.migrated is None:
            continue
        old = originals.get(f.path, "")
        for h in f.hunks:  # before the file's diff (patch tools skip such lines): what each hunk rests on
            items = "; ".join(f"{c.old[:60]} -> {(c.new or 'by hand')[:60]}" for c in h.items[:4])
            out.append(f"# godot-rag: {f.path} lines {h.start_line}-{h.end_line} ({h.status})"
                       + (f": {items}" if items else "") + (f" [{', '.join(h.evidence_ids[:4])}]" if h.evidence_ids else "")
                       + "\n")
        out += difflib.unified_diff(old.splitlines(keepends=True), f.migrated.splitlines(keepends=True),
                                    fromfile=f"a/{f.path}", tofile=f"b/{f.path}")
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n\\ No newline at end of file\n"
    return "".join(out)


def _safe(path: str) -> PurePosixPath:
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts:
        raise ValueError(f"refused path {path!r}: outside the project")
    return p


def migrated_files(migration: ProjectMigration, originals: dict[str, str]) -> dict[str, str]:
    """Every file of the project as it is after the migration (unchanged files as they were)."""
    return {**originals, **{f.path: f.migrated for f in migration.files if f.migrated is not None}}


def write_copy(migration: ProjectMigration, originals: dict[str, str], out: Path) -> int:
    """Write the migrated project into `out` (new or empty folder); returns the number of files written."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not an empty folder: the migration never writes over files")
    files = migrated_files(migration, originals)
    for path, text in files.items():
        target = out / _safe(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return len(files)


def zip_bytes(migration: ProjectMigration, originals: dict[str, str]) -> bytes:
    """The migrated project as a zip (for a download)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, text in sorted(migrated_files(migration, originals).items()):
            z.writestr(str(_safe(path)), text)
    return buf.getvalue()


def summary_text(migration: ProjectMigration) -> str:
    """Counts first, then each file with TODOs or fallbacks, and why."""
    s = migration.summary
    lines = [f"{s.files_changed} file(s) changed, {s.edits} edit(s), {s.todos} TODO(s), "
             f"{s.files_unchanged} file(s) left as they were"
             + (f", {s.files_skipped} skipped" if s.files_skipped else "")
             + (f"; {s.complete}/{s.flagged} flagged part(s) rewritten completely" if s.flagged else "")]
    for f in migration.files:
        if f.todos or f.failures:
            lines.append(f"  {f.path}: {f.status}")
            lines += [f"    line {t.line}: {t.reason}" for t in f.todos[:20]]
            lines += [f"    fell back: {x}" for x in f.failures]
    return "\n".join(lines)
