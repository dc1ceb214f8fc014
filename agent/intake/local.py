"""Local directories (CLI only): walked without following any symlink."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from agent.intake.classify import CACHE_DIRS, classify
from agent.intake.errors import IntakeError
from agent.intake.expand import Entry, check_counts
from agent.settings import Settings


def directory_entries(root: Path, settings: Settings, *, what: str) -> list[Entry]:
    """Every file under `root` in sorted order; caches and symlinks are recorded, never entered."""
    if root.is_symlink() or not root.is_dir():
        raise IntakeError(f"Refused {what}: not a directory.")
    base = root.resolve()
    entries: list[Entry] = []
    read_total = 0
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        here = Path(dirpath)
        rel_dir = here.relative_to(base).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        keep = []
        for d in sorted(dirnames):
            full = here / d
            if full.is_symlink():
                entries.append(Entry(prefix + d, 0, excluded="symbolic link (not followed)"))
            elif d in CACHE_DIRS:
                entries.append(Entry(prefix + d + "/", 0, excluded=classify(prefix + d + "/x").reason))
            else:
                keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            full = here / f
            rel = prefix + f
            st = full.lstat()
            if full.is_symlink():
                entries.append(Entry(rel, 0, excluded="symbolic link (not followed)"))
                continue
            entries.append(Entry(rel, st.st_size, read=_reader(full)))
            if classify(rel).include:
                read_total += st.st_size
        check_counts(len(entries), 0, settings, what=what)
    check_counts(len(entries), read_total, settings, what=what)
    return entries


def _reader(path: Path) -> Callable[[], bytes]:
    def read() -> bytes:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as fh:
            return fh.read()

    return read
