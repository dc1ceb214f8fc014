"""Page classification by URL and path, and the version tags each type carries."""

from __future__ import annotations

import re

DOC_TYPES = ("class_reference", "tutorial", "migration", "engine_details", "about", "other")
_BASE = re.compile(r"^https?://[^/]+/[a-z]{2}/[^/]+/")


def url_path(url: str) -> str:
    """`https://docs.godotengine.org/en/stable/classes/class_node.html` -> `classes/class_node.html`."""
    return _BASE.sub("", url)


def classify(url: str, source_file: str = "") -> str:
    """One of DOC_TYPES; decides which chunking strategy a page gets."""
    path = url_path(url)
    name = source_file.rsplit("/", 1)[-1]
    if path.startswith("classes/") or name.startswith("classes__"):
        return "class_reference"
    if path.startswith("tutorials/migrating/") or "migrating" in name:
        return "migration"
    if path.startswith(("engine_details/", "contributing/", "development/")) or "engine_details" in name:
        return "engine_details"
    if path.startswith("about/"):
        return "about"
    if path.startswith(("tutorials/", "getting_started/", "community/")):
        return "tutorial"
    return "other"


def version_tags(doc_type: str, url: str, godot_version: str, doc_version: str) -> list[str]:
    """Which Godot versions a page speaks about; migration pages span 3.x and 4.x; 3.x reference pages only 3.x."""
    if doc_version.startswith("3"):
        return sorted(t for t in {"3.x", godot_version, doc_version} if t)
    tags = {"4.x", godot_version, doc_version}
    if doc_type == "migration":
        m = re.search(r"upgrading_to_godot_(\d+)(?:\.(\d+))?", url)
        if m and m.group(2):
            tags |= {f"4.{int(m.group(2)) - 1}", f"4.{m.group(2)}"}
        else:
            tags.add("3.x")
    return sorted(t for t in tags if t)


_GODOT3 = re.compile(r"\b(Godot 3(\.\d+)?|3\.x)\b")


def chunk_version_tags(page_tags: list[str], text: str) -> list[str]:
    """Page tags plus `3.x` when the chunk itself talks about Godot 3."""
    tags = set(page_tags)
    if _GODOT3.search(text):
        tags.add("3.x")
    return sorted(tags)
