"""Is the project 2D or 3D? Suggestions must not cross that line."""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent.judge.base import ProjectDimension
from agent.models import Chunk

# Godot 3 names without the 2D/3D suffix that are 3D nodes.
_GODOT3_3D = {
    "Spatial", "KinematicBody", "RigidBody", "StaticBody", "Area", "Camera", "MeshInstance",
    "CollisionShape", "CollisionPolygon", "RayCast", "Skeleton", "VehicleBody", "SpatialMaterial",
}
_SUFFIXED = re.compile(r"\b[A-Z][A-Za-z]*?([23])D\b")
_EXTENDS = re.compile(r"^\s*extends\s+([A-Za-z_]\w*)", re.MULTILINE)
_NODE_TYPE = re.compile(r'\btype\s*=\s*"([A-Za-z_]\w*)"')


def dimension_of_name(name: str) -> ProjectDimension:
    """`CharacterBody3D`/`Spatial` -> 3d, `Area2D` -> 2d, else unknown."""
    if name in _GODOT3_3D:
        return "3d"
    m = _SUFFIXED.fullmatch(name)
    if m:
        return "2d" if m.group(1) == "2" else "3d"
    return "unknown"


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
