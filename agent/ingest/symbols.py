"""Detect Godot API symbols (classes, `Class.member`, `method()`, `@annotation`) in text."""

from __future__ import annotations

import re
from collections.abc import Iterable

_CLASS_MEMBER = re.compile(r"\b([A-Z][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\b")
_CALL = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]*)\(\)")
_ANNOTATION = re.compile(r"(?<![\w@])(@[a-z_]+)\b")
_WORD = re.compile(r"\b[A-Z][A-Za-z0-9_]*[a-z0-9][A-Za-z0-9_]*\b")
_MAX_SYMBOLS = 40


class SymbolIndex:
    """Known class names (Godot 4 pages plus Godot 3 names from the rename tables)."""

    def __init__(self, class_names: Iterable[str]):
        self.classes = {c for c in class_names if c}

    def detect(self, text: str, seed: Iterable[str] = ()) -> list[str]:
        """Symbols in `text`, seeded ones first, deduplicated, capped to keep rows small."""
        found: dict[str, None] = dict.fromkeys(s for s in seed if s)
        for m in _CLASS_MEMBER.finditer(text):
            if m.group(1) in self.classes:
                found.setdefault(m.group(1))
                found.setdefault(f"{m.group(1)}.{m.group(2)}")
        for m in _WORD.finditer(text):
            if m.group(0) in self.classes:
                found.setdefault(m.group(0))
        for m in _CALL.finditer(text):
            if len(m.group(1)) > 2:
                found.setdefault(m.group(1))
        for m in _ANNOTATION.finditer(text):
            found.setdefault(m.group(1))
        return list(found)[:_MAX_SYMBOLS]


def identifier_variants(symbols: Iterable[str]) -> str:
    """Whole names plus their parts, so `Node2D.position` also matches `position` and `move_and_slide` `move slide`."""
    out: list[str] = []
    for s in symbols:
        out.append(s)
        if "." in s:
            out.extend(s.split("."))
        if "_" in s.strip("_@"):
            out.append(s.replace("_", " "))
        if s.startswith("@"):
            out.append(s[1:])
    return " ".join(dict.fromkeys(out))
