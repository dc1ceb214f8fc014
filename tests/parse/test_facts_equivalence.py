"""The fast fact paths give exactly what the straightforward per-chunk versions give.

`FileFacts` finds line-local cues once per file and looks them up by row; `_construct` builds
chunks without pydantic's per-field loop. Both are checked here against the plain way on
fixture files and on odd code, so a speed-up can never change a chunk.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.models import Chunk, Span
from agent.parse import _construct, _name_suffix, chunk_file
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


def test_construct_equals_model_construct():
    span = {"start_line": 1, "end_line": 2, "start_byte": 0, "end_byte": 9}
    fields = {
        "chunk_id": "a.gd:function:f",
        "chunk_order": 0,
        "source_file": "a.gd",
        "source_sha256": "0" * 64,
        "chunk_kind": "function",
        "node_kind": "function_definition",
        "name": "f",
        "span": Span.model_construct(**span),
        "code_text": "func f():\n\tpass",
        "sha256": "1" * 64,
        "symbol_candidates": [],
        "api_call_candidates": [],
        "reference_candidates": [],
        "surrounding_context": "",
        "parse_status": "ok",
        "extra": {"syntax": {}},
    }
    fast, plain = _construct(Chunk, dict(fields)), Chunk.model_construct(**fields)
    assert fast == plain
    assert list(fast.__dict__) == list(plain.__dict__)
    assert fast.model_fields_set == plain.model_fields_set
    assert fast.model_dump_json() == plain.model_dump_json()
    assert _construct(Span, dict(span)) == Span.model_construct(**span)
    partial = _construct(Chunk, {k: v for k, v in fields.items() if k != "extra"})
    assert partial.extra == {} and "extra" not in partial.model_fields_set  # defaults via model_construct


@pytest.mark.parametrize(
    "path",
    ["a.gd", "dir/b.GD", "x/.gitignore", "x/y.", "a/b/", "a/.", "a/..", "", ".", "//c.tscn", "a//b.c.d", "p.q/r",
     "icon.png.import", "x/.hidden.gd", "..gd", "a/./b.gd"],
)
def test_name_suffix_matches_pathlib(path):
    from pathlib import PurePosixPath

    assert _name_suffix(path) == (PurePosixPath(path).name, PurePosixPath(path).suffix)
