"""Godot 3.5 and 3.6 API as rows of the API index's 3.x side (agent/data/api_3x_minors.json).

The 3.x side is read off the 3.4 reference; 3.5 and 3.6 added classes and members (FlowContainer,
SceneTreeTween and `Node.create_tween`, the Time singleton, `Image.fill_rect`, ...) that a Godot 3.5 project
uses. A Godot 4 cue must be a name no 3.x minor has, so these join the 3.x side as definitions of their own,
with the minor's docs page as their source (no docs chunk: the prose is not in the corpus).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from agent.apiindex import V3, ApiEntry, ClassEntry

DATA = Path(__file__).resolve().parents[1] / "data" / "api_3x_minors.json"
_KINDS = {"method", "property", "signal", "constant", "enum"}


def _url(minor: str, cls: str) -> str:
    return f"https://docs.godotengine.org/en/{minor}/classes/class_{cls.lower().lstrip('@')}.html"


@cache
def minor_rows() -> tuple[tuple[ApiEntry, ...], tuple[ClassEntry, ...]]:
    """(members, classes) that 3.5 and 3.6 add to 3.4, as 3.x definitions."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    entries: list[ApiEntry] = []
    classes: list[ClassEntry] = []
    for minor, added in sorted(data["minors"].items()):
        for cls, parent in sorted(added["classes"].items()):
            classes.append(ClassEntry(V3, cls, parent or "", "", _url(minor, cls)))
            entries.append(ApiEntry(V3, cls, "", "class", source_url=_url(minor, cls)))
        for r in added["members"]:
            if r["kind"] not in _KINDS:
                continue
            entries.append(ApiEntry(V3, r["class"], r["member"], r["kind"], arg_count=int(r.get("arg_count", 0)),
                                    default_count=int(r.get("default_count", 0)), vararg=bool(r.get("vararg")),
                                    return_type=r.get("return_type") or "", signature=f"{r['member']} (Godot {minor})",
                                    source_url=_url(minor, r["class"])))
    return tuple(entries), tuple(classes)


def with_minors(entries: list[ApiEntry], classes: list[ClassEntry]) -> tuple[list[ApiEntry], list[ClassEntry]]:
    """The index rows with what 3.5/3.6 add on the 3.x side (a row 3.4 already has stays 3.4's)."""
    if not any(e.version == V3 for e in entries):
        return entries, classes  # no 3.x reference ingested: nothing to add to
    extra, extra_classes = minor_rows()
    have = {(e.class_name, e.member, e.kind) for e in entries if e.version == V3}
    known = {c.class_name for c in classes if c.version == V3}
    return ([*entries, *(e for e in extra if (e.class_name, e.member, e.kind) not in have)],
            [*classes, *(c for c in extra_classes if c.class_name not in known)])
