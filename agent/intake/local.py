"""Local directories (CLI only): walked without following any symlink; only regular files are read.

A FIFO, socket or device file inside a project would block a read forever or never end, so it is
listed with its reason and never opened; a file is opened non-blocking and checked again after
opening (it may have been swapped for a FIFO since the walk), and every read is bounded.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from agent.intake.classify import CACHE_DIRS, classify
from agent.intake.errors import IntakeError
from agent.intake.expand import Entry, check_entries
from agent.settings import Settings

_SPECIAL = (
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


def special_reason(mode: int) -> str | None:
    """Why a file of this `st_mode` is never read, or None for a regular file (or a directory)."""
    for test, what in _SPECIAL:
        if test(mode):
            return f"{what}: not a regular file, never read"
    return None


def special_file_reason(path: Path) -> str | None:
    """`special_reason` for a path (not following a symlink); None when it does not exist."""
    try:
        return special_reason(path.lstat().st_mode)
    except OSError:
        return None


def read_regular(path: Path, limit: int) -> bytes | None:
    """At most `limit + 1` bytes of a regular file (so the caller sees it is over), or None if not regular.

    Opened with O_NONBLOCK and O_NOFOLLOW, then checked with fstat: a FIFO swapped in after the
    walk neither blocks the open nor gets read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return fh.read(limit + 1)


def directory_entries(root: Path, settings: Settings, *, what: str) -> list[Entry]:
    """Every file under `root` in sorted order; caches, symlinks and special files are recorded, never entered."""
    if root.is_symlink() or not root.is_dir():
        raise IntakeError(f"Refused {what}: not a directory.")
    base = root.resolve()
    entries: list[Entry] = []
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
            try:
                st = full.lstat()
            except OSError:  # removed while we walk
                continue
            if stat.S_ISLNK(st.st_mode):
                entries.append(Entry(rel, 0, excluded="symbolic link (not followed)"))
                continue
            special = special_reason(st.st_mode)
            if special:
                entries.append(Entry(rel, 0, excluded=special))
                continue
            entries.append(Entry(rel, st.st_size, read=_reader(full, settings.max_file_bytes)))
        check_entries(entries, settings, what=what, sizes=False)  # refuse a huge tree while walking it
    check_entries(entries, settings, what=what)
    return entries


def _reader(path: Path, limit: int) -> Callable[[], bytes]:
    def read() -> bytes:
        data = read_regular(path, limit)
        if data is None:
            raise IntakeError(f"Refused {path.name}: it stopped being a regular file while it was read.")
        return data

    return read
