"""Which files are analysed, by which chunker, and why the others are left out.

The decision is made from the path alone, before any bytes are read, so binaries and
caches are never opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from agent.models import SourceKind

DOCS_EXCLUDED = "Documentation files are excluded by default in source-code analysis mode"
_DIRECT = {
    ".tscn": ("scene", "direct chunker (scene blocks)"),
    ".escn": ("scene", "direct chunker (scene blocks)"),
    ".tres": ("resource", "direct chunker (resource blocks)"),
    ".import": ("import", "direct chunker (import sections)"),
    ".cfg": ("project_config", "direct chunker (config sections)"),
    ".uid": ("unknown", "direct chunker (uid file)"),
    ".gitignore": ("unknown", "direct chunker (ignore rules)"),
    ".gdignore": ("unknown", "direct chunker (ignore marker)"),
}
_BINARY = set(
    """png jpg jpeg webp bmp tga gif svg ico exr hdr ktx dds psd xcf kra ase aseprite
    wav ogg mp3 flac opus aac m4a
    ttf otf woff woff2 fnt font
    glb gltf obj fbx blend dae escn_bin mesh res scn anim material stex ctex ctexarray ccube
    mp4 webm ogv avi mov
    zip rar 7z gz tgz bz2 xz tar jar apk aab pck exe dll so dylib a lib o wasm bin dat db sqlite
    pdf doc docx xls xlsx ppt pptx""".split()
)
_DOCS_SUFFIX = {".md", ".markdown", ".txt", ".rst", ".adoc"}
_DOCS_NAMES = ("readme", "license", "licence", "changelog", "authors", "contributing", "copying", "notice")
CACHE_DIRS = (".godot", ".import", ".git", "__MACOSX", ".mono")


@dataclass(frozen=True)
class Decision:
    """What happens to one path, and the reason shown to the user."""

    kind: SourceKind
    include: bool
    reason: str


def classify(path: str) -> Decision:
    """Include/exclude decision for a relative POSIX path, with the reason shown to the user."""
    p = PurePosixPath(path)
    parts = p.parts
    for cache in CACHE_DIRS:
        if cache in parts[:-1] or (parts and parts[0] == cache):
            what = "version-control data" if cache == ".git" else "editor cache/metadata"
            return Decision("unknown", False, f"{what} ({cache}/) is excluded")
    name = p.name
    lower = name.lower()
    suffix = p.suffix.lower()
    if suffix == ".gd":
        return Decision("gdscript", True, "AST parser (GDScript)")
    if name == "project.godot" or suffix == ".godot":
        return Decision("project_config", True, "direct chunker (project settings)")
    if lower in (".gitignore", ".gdignore"):
        kind, reason = _DIRECT[lower]
        return Decision(kind, True, reason)  # type: ignore[arg-type]
    if suffix in _DIRECT:
        kind, reason = _DIRECT[suffix]
        return Decision(kind, True, reason)  # type: ignore[arg-type]
    if suffix in _DOCS_SUFFIX or lower.startswith(_DOCS_NAMES):
        return Decision("markdown" if suffix in (".md", ".markdown") else "unknown", False, DOCS_EXCLUDED)
    if suffix.lstrip(".") in _BINARY:
        return Decision(
            "unknown", False, f"binary asset ({suffix}): path kept for reference, bytes never read"
        )
    return Decision("unknown", False, f"file type not analysed ({suffix or name})")
