"""Which files are analysed, by which chunker, and why the others are left out.

Only the file types Godot itself loads are judged (scripts, scenes, resources, import files, the
`.cfg` files Godot reads); a `.gitignore` line or a JSON key is no Godot code, so everything else
is listed with its reason and never judged. The decision is made from the path alone, before any
bytes are read, so binaries and caches are never opened.
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
}
_GODOT_CFG = {"export_presets.cfg", "override.cfg", "plugin.cfg"}
"""The `.cfg` files Godot itself reads (export presets, project overrides, an addon's manifest); any other
`.cfg` is a ConfigFile of the project's own, data its code may read."""
_NOT_JUDGED = {
    ".gitignore": "version-control settings (.gitignore), not Godot code: listed, never judged",
    ".gitattributes": "version-control settings (.gitattributes), not Godot code: listed, never judged",
    ".gitmodules": "version-control settings (.gitmodules), not Godot code: listed, never judged",
    ".gdignore": "Godot's import-skip marker (.gdignore): holds no code, never judged",
    ".editorconfig": "editor settings (.editorconfig), not Godot code: listed, never judged",
}
_OTHER_TYPES = {
    ".cs": "C# script: godot-rag judges GDScript, scenes and project files only (C# is listed, never judged)",
    ".uid": "UID sidecar of Godot 4.4+ (one uid:// line): holds no code, never judged",
    ".gdshader": "shader code: not judged (GDScript, scenes, resources and project files are)",
    ".shader": "shader code: not judged (GDScript, scenes, resources and project files are)",
    ".gdshaderinc": "shader code: not judged (GDScript, scenes, resources and project files are)",
}
_DATA_SUFFIX = set(
    """json csv tsv yml yaml toml ini xml html htm css js ts py sh bat ps1 cmd lua
    translation po pot mo gdnlib gdnative gdextension cfg""".split()
)
_CI_DIRS = (".github", ".gitlab", ".circleci", ".vscode", ".idea", ".devcontainer")
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
    if lower in _NOT_JUDGED:
        return Decision("unknown", False, _NOT_JUDGED[lower])
    if parts and parts[0] in _CI_DIRS:
        return Decision("unknown", False, f"CI or editor configuration ({parts[0]}/): not Godot code, never judged")
    if suffix == ".cfg" and lower in _GODOT_CFG:
        return Decision("project_config", True, "direct chunker (config sections)")
    if suffix in _OTHER_TYPES:
        return Decision("unknown", False, _OTHER_TYPES[suffix])
    if suffix in _DIRECT:
        kind, reason = _DIRECT[suffix]
        return Decision(kind, True, reason)  # type: ignore[arg-type]
    if suffix in _DOCS_SUFFIX or lower.startswith(_DOCS_NAMES):
        return Decision("markdown" if suffix in (".md", ".markdown") else "unknown", False, DOCS_EXCLUDED)
    if suffix.lstrip(".") in _BINARY:
        return Decision(
            "unknown", False, f"binary asset ({suffix}): path kept for reference, bytes never read"
        )
    if suffix.lstrip(".") in _DATA_SUFFIX:
        what = "a ConfigFile of the project's own" if suffix == ".cfg" else f"data or another language's file ({suffix})"
        return Decision("unknown", False, f"{what}: not Godot code, never judged")
    return Decision("unknown", False, f"file type not analysed ({suffix or name})")
