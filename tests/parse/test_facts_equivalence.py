"""The fast fact paths give exactly what the straightforward per-chunk versions give.

`FileFacts` finds line-local cues once per file and looks them up by row; it is checked here
against the plain way on fixture files and on odd code, so a speed-up can never change a chunk.
(Chunks adopt their drafts as `__dict__` instead of going through `model_construct`: that is
checked against `model_construct` in test_draft_layout.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.parse import _name_suffix, chunk_file
from agent.parse.facts import FileFacts, mask_comments
from tests.parse.helpers import source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "projects"
# the patterns as first written: `^` with re.M and a leading `\b`
PLAIN_FLAGS = {
    "tool": re.compile(r"^(?:tool|@tool)\b", re.M),
    "export_keyword": re.compile(r"^[ \t]*export\b", re.M),
    "onready_keyword": re.compile(r"^[ \t]*onready\b", re.M),
    "setget": re.compile(r"\bsetget\b"),
    "yield": re.compile(r"\byield[ \t]*\("),
    "await": re.compile(r"\bawait\b"),
    "typed_array": re.compile(r"\bArray[ \t]*\["),
    "super_call": re.compile(r"\bsuper[ \t]*[.(]"),
    "property_accessors": re.compile(r"^[ \t]+(?:set[ \t]*\([ \t]*\w+[ \t]*\)|get)[ \t]*:", re.M),
}
PLAIN_RPC = re.compile(
    r"^[ \t]*(remotesync|mastersync|puppetsync|remote|master|puppet|sync|slave)[ \t]+(?:func|var|static)\b",
    re.M,
)
PLAIN_ANNOTATION = re.compile(r"(?<![\w])@([A-Za-z_]\w*)")
ODD = """tool
extends Node
export var a = 1 setget set_a
onready var b = $B
remote func r():
\tyield(get_tree(), "idle_frame")
func f(x: Array[int]) -> void:
\tawait  get_tree().process_frame
\tsuper.f(x)
var p:
\tset(value):
\t\tp = value
\tget:
\t\treturn p
@export_range(0, 1) var q := 0.5
# @tool in a comment, "await" in a string
var s = "setget yield( await"
puppet   var pv
func g(): return super(1)
"""


def _texts() -> list[str]:
    files = sorted(p for p in FIXTURES.rglob("*.gd")) + sorted(FIXTURES.glob("*.txt"))
    return [ODD, *(p.read_text() for p in files)]


@pytest.mark.parametrize("text", _texts())
def test_row_lookup_matches_per_chunk_search(text):
    facts = FileFacts(text)
    _, masked = mask_comments(text)
    rows = masked.split("\n")
    for n in range(len(rows)):
        for end in (n + 1, min(len(rows), n + 3)):
            chunk = "\n".join(rows[n:end])
            syntax = facts.chunk(n, end)["extra"]["syntax"]
            for name, rx in PLAIN_FLAGS.items():
                assert syntax[name] == (rx.search(chunk) is not None), (name, n, chunk)
            rpc = PLAIN_RPC.search(chunk)
            assert syntax["rpc_keyword"] == (rpc.group(1) if rpc else None)
            assert syntax["annotations"] == sorted({f"@{a}" for a in PLAIN_ANNOTATION.findall(chunk)})


def test_odd_text_sets_every_flag():
    chunks = chunk_file(source("odd.gd", ODD))
    seen = {k for c in chunks for k, v in c.extra["syntax"].items() if v}
    assert set(PLAIN_FLAGS) | {"rpc_keyword", "annotations"} <= seen


@pytest.mark.parametrize(
    "path",
    ["a.gd", "dir/b.GD", "x/.gitignore", "x/y.", "a/b/", "a/.", "a/..", "", ".", "//c.tscn", "a//b.c.d", "p.q/r",
     "icon.png.import", "x/.hidden.gd", "..gd", "a/./b.gd"],
)
def test_name_suffix_matches_pathlib(path):
    from pathlib import PurePosixPath

    assert _name_suffix(path) == (PurePosixPath(path).name, PurePosixPath(path).suffix)
