"""Every file of a local folder or zip as bytes, for a migrated copy that holds the whole project.

The analysis reads only what it judges (`agent.intake.expand`); a migrated copy must also hold images, audio,
fonts, shaders, READMEs, `.gitignore` and each folder's `.gdignore`, byte for byte. What the copy leaves out is
said with its reason: caches Godot 4 rebuilds (`.import/`, `.mono/`), version control (`.git/`), links (never
followed) and special files. A GitHub target is fetched sparse (only the analysed files), so its copy holds
those and lists the rest as not fetched.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent.intake.archive import open_zip
from agent.intake.expand import safe_relative, strip_common_root
from agent.intake.local import directory_entries, read_regular
from agent.settings import Settings

LEFT_OUT_DIRS = {".import": "Godot 3's import cache: Godot 4 imports the assets again",
                 ".mono": "Mono build cache: Godot 4 builds C# again", ".godot": "Godot 4's editor cache",
                 ".git": "version-control data", "__MACOSX": "archive metadata"}


@dataclass
class RawFiles:
    """The project's files as bytes, and the files a copy leaves out with the reason."""

    data: dict[str, bytes] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    complete: bool = True
    """False where the source was not read whole (a GitHub target: only the analysed files were fetched)."""


def _left_out_dir(parts: tuple[str, ...]) -> str | None:
    for d in parts[:-1]:
        if d in LEFT_OUT_DIRS:
            return f"{LEFT_OUT_DIRS[d]} ({d}/)"
    return None


def raw_directory(root: Path, settings: Settings) -> RawFiles:
    """Every file under `root` as the intake walks it (links and special files recorded, never entered), read
    whole up to the copy's limit."""
    out = RawFiles()
    budget = settings.max_total_bytes
    for e in directory_entries(root, settings.with_(max_file_bytes=settings.max_total_bytes), what=str(root)):
        name = e.path.rstrip("/").rsplit("/", 1)[-1]
        if e.excluded or e.read is None:
            out.left_out[e.path] = LEFT_OUT_DIRS.get(name, e.excluded or "not read")
            continue
        data = e.read()
        if len(data) > settings.max_total_bytes or (budget := budget - len(data)) < 0:
            out.left_out[e.path] = f"larger than the copy's limit of {settings.max_total_bytes:,} bytes"
        else:
            out.data[e.path] = data
    return out


def raw_zip(data: bytes, name: str, limit: int) -> RawFiles:
    """An archive's entries, each read only while the total stays under `limit` (no zip bomb gets unpacked)."""
    out = RawFiles()
    budget = limit
    with open_zip(data, name=name) as zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        paths = [safe_relative(i.filename, where=name) for i in infos]
        root = strip_common_root(paths)
        for info, path in zip(infos, paths, strict=True):
            rel = path[len(root) + 1:] if root else path
            where = _left_out_dir(tuple(rel.split("/")))
            if where:
                out.left_out[rel] = where
            elif (info.external_attr >> 16) & 0o170000 == stat.S_IFLNK:
                out.left_out[rel] = "symbolic link inside the archive (not followed)"
            elif info.flag_bits & 0x1:
                out.left_out[rel] = "encrypted archive entry (not read)"
            elif info.file_size > budget:
                out.left_out[rel] = f"over the copy's limit of {limit:,} bytes"
            else:
                with zf.open(info) as fh:
                    data = fh.read(budget + 1)
                if len(data) > budget:
                    out.left_out[rel] = f"over the copy's limit of {limit:,} bytes"
                    continue
                budget -= len(data)
                out.data[rel] = data
    return out


def raw_files(target: str, settings: Settings, *, texts: dict[str, str]) -> RawFiles:
    """The bytes of every file of `target` (a folder or a zip); for other targets, the analysed `texts` only."""
    path = Path(target).expanduser() if target not in ("-", "") else None
    if path is not None and path.is_dir() and not path.is_symlink():
        return raw_directory(path, settings)
    if path is not None and path.is_file() and path.suffix.lower() == ".zip":
        return raw_zip(read_regular(path, settings.max_total_bytes) or b"", path.name, settings.max_total_bytes)
    return RawFiles({p: t.encode() for p, t in texts.items()}, complete=path is not None and path.is_file())


def with_shaders(texts: dict[str, str], raw: RawFiles | None) -> dict[str, str]:
    """The analysed texts plus every shader file of `raw` as text: the analysis does not judge shader files,
    the migration renames them (`.shader` -> `.gdshader`) and their code."""
    from agent.migrate.shaders import SHADER_SUFFIXES

    out = dict(texts)
    for path, data in (raw.data.items() if raw is not None else ()):
        if path.endswith(SHADER_SUFFIXES) and path not in out:
            try:
                out[path] = data.decode("utf-8")
            except UnicodeDecodeError:  # not a shader's text: copied as it is
                continue
    return out
