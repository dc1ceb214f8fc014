"""Is the project 2D or 3D? Suggestions must not cross that line."""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent import changes
from agent.judge.base import ProjectDimension
from agent.models import Chunk

_SUFFIXED = re.compile(r"\b[A-Z][A-Za-z]*?([23])D\b")


def _suffix_dimension(name: str) -> ProjectDimension:
    m = _SUFFIXED.fullmatch(name)
    return ("2d" if m.group(1) == "2" else "3d") if m else "unknown"


# Godot 3 class names without the 2D/3D suffix whose Godot 4 name has it (`Spatial` -> `Node3D`): read from the
# class renames of agent/data/changes/renames.json (this module has no API index at hand).
_GODOT3_UNSUFFIXED: dict[str, ProjectDimension] = {
    r.old: _suffix_dimension(r.new) for r in changes.renames()
    if r.kind == "class" and _suffix_dimension(r.old) == "unknown" and _suffix_dimension(r.new) != "unknown"}
_GODOT3_3D = frozenset(name for name, dim in _GODOT3_UNSUFFIXED.items() if dim == "3d")
_EXTENDS = re.compile(r"^\s*extends\s+([A-Za-z_]\w*)", re.MULTILINE)
_NODE_TYPE = re.compile(r'\btype\s*=\s*"([A-Za-z_]\w*)"')


def dimension_of_name(name: str) -> ProjectDimension:
    """`CharacterBody3D`/`Spatial` -> 3d, `Area2D` -> 2d, else unknown."""
    return _GODOT3_UNSUFFIXED.get(name) or _suffix_dimension(name)


def _type_names(chunk: Chunk) -> Iterable[str]:
    extends = chunk.extra.get("extends")
    if isinstance(extends, str):
        yield extends
    yield from _EXTENDS.findall(chunk.code_text)
    if chunk.chunk_kind in ("node", "scene_header", "sub_resource", "ext_resource", "resource_header"):
        yield from _NODE_TYPE.findall(chunk.code_text)


def detect_project_dimension(chunks: list[Chunk]) -> ProjectDimension:
    """Majority of `extends` and scene node types; a tie or no typed node gives unknown."""
    votes = {"2d": 0, "3d": 0}
    for chunk in chunks:
        for name in _type_names(chunk):
            dim = dimension_of_name(name)
            if dim != "unknown":
                votes[dim] += 1
    if votes["2d"] == votes["3d"]:
        return "unknown"
    return "2d" if votes["2d"] > votes["3d"] else "3d"
