"""Zip archives, read in memory with zip-slip, zip-bomb, symlink and absolute-path guards.

Declared sizes of the entries that will be read are checked before anything is decompressed;
actual sizes are checked while reading (a lying header is refused), and binaries and oversized
entries are never read (so they count only toward the listed-files limit).
"""

from __future__ import annotations

import io
import stat
import zipfile
from collections.abc import Callable

from agent.intake.errors import IntakeError
from agent.intake.expand import Entry, check_entries, check_listed, safe_relative, strip_common_root
from agent.settings import Settings

_READ_STEP = 1 << 16


def open_zip(data: bytes, *, name: str) -> zipfile.ZipFile:
    """Open an in-memory archive, or IntakeError if it is not a readable zip."""
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise IntakeError(f"Refused {name}: not a readable zip archive ({exc}).") from exc


def zip_entries(zf: zipfile.ZipFile, settings: Settings, *, name: str, prefix: str = "") -> list[Entry]:
    """Entries of an open archive; readers stay valid while `zf` is open."""
    infos = [i for i in zf.infolist() if not i.is_dir()]
    check_listed(len(infos), settings, what=name)  # before any per-entry work
    paths = [safe_relative(i.filename, where=name) for i in infos]
    root = strip_common_root(paths)
    budget = {"left": settings.max_total_bytes}
    entries = []
    for info, path in zip(infos, paths, strict=True):
        rel = path[len(root) + 1 :] if root else path
        mode = (info.external_attr >> 16) & 0o170000
        excluded = None
        if mode == stat.S_IFLNK:
            excluded = "symbolic link inside the archive (not followed)"
        elif info.flag_bits & 0x1:
            excluded = "encrypted archive entry (not read)"
        entries.append(
            Entry(
                path=prefix + rel,
                size=info.file_size,
                read=_reader(zf, info, settings, budget, name),
                excluded=excluded,
            )
        )
    check_entries(entries, settings, what=f"{name} (uncompressed)")  # declared sizes, before reading
    return entries


def _reader(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, settings: Settings, budget: dict[str, int], name: str
) -> Callable[[], bytes]:
    def read() -> bytes:
        limit = min(info.file_size, settings.max_file_bytes)
        out = bytearray()
        try:
            with zf.open(info) as fh:
                while True:
                    block = fh.read(_READ_STEP)
                    if not block:
                        break
                    out += block
                    if len(out) > limit:
                        if len(out) > info.file_size:
                            raise IntakeError(
                                f"Refused {name}: {info.filename!r} expands past its declared size "
                                f"of {info.file_size:,} bytes (possible zip bomb)."
                            )
                        break  # over the file limit: the caller excludes it, we stop reading
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
            raise IntakeError(f"Refused {name}: {info.filename!r} cannot be read ({exc}).") from exc
        budget["left"] -= len(out)
        if budget["left"] < 0:
            raise IntakeError(
                f"Refused {name}: contents exceed the total size limit of {settings.max_total_bytes:,} bytes."
            )
        return bytes(out)

    return read
