"""Annotations left dangling at the end of a re-parsed error region keep their absolute rows."""

from __future__ import annotations

from agent.parse.gdscript import chunk_gdscript
from agent.parse.text import is_code_line

# `_error_region` re-parses from row 8 (the `@export`); its trailing annotation piece once
# took its last row relative to that sub-parse (row 1, before its start): overlapping chunks in
# pure Python and a ValueError from the (since deleted) C `code_spans`
TEXT = (
    "var broken = (\n" + '\tif Input.is_action_pressed(&"ui_right"):\n' * 7 + "@export\n\tawait f().timeout"
)


def test_dangling_annotation_after_error_region() -> None:
    drafts = chunk_gdscript(TEXT)
    spans = [(d["span"]["start_line"], d["span"]["end_line"]) for d in drafts]
    assert all(s <= e for s, e in spans)
    assert all(e < s2 for (_, e), (s2, _) in zip(spans, spans[1:], strict=False))
    rows = TEXT.split("\n")
    covered = {r for s, e in spans for r in range(s, e + 1)}
    assert all(i + 1 in covered for i, line in enumerate(rows) if is_code_line(line))
