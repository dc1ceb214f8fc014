"""Coverage invariant, property style: every code line in exactly one chunk, whatever the input."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent.parse import chunk_file
from tests.parse.helpers import assert_coverage, source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "projects"
GD_FILES = sorted(FIXTURES.rglob("*.gd"))
JUNK = [
    ")) ((",
    "sync func broken(",
    "$%Unique.thing = 1",
    "\tif x:",
    "var = = 3",
    "@",
    "func",
    "class X",
    '"""',
    "  \t  mixed()",
    "enum {",
    "# comment",
    "",
    "\t\t\tdeep()",
    "else:",
    "export(int) var e",
    "\x0c",
]


def _mutations(text: str, seed: int) -> str:
    rng = random.Random(seed)
    lines = text.split("\n")
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        i = rng.randrange(len(lines) + 1)
        if op < 0.4:
            lines.insert(i, rng.choice(JUNK))
        elif op < 0.7 and lines:
            del lines[min(i, len(lines) - 1)]
        elif lines:
            lines.insert(i, lines[rng.randrange(len(lines))])
    return "\n".join(lines)


def test_fixture_files_exist():
    assert len(GD_FILES) >= 5


@pytest.mark.parametrize("path", GD_FILES, ids=lambda p: p.name)
def test_fixture_coverage(path):
    text = path.read_text()
    assert_coverage(text, chunk_file(source(path.name, text)))


@pytest.mark.parametrize("seed", range(60))
def test_mutated_coverage(seed):
    path = GD_FILES[seed % len(GD_FILES)]
    text = _mutations(path.read_text(), seed)
    chunks = chunk_file(source(f"m{seed}.gd", text))
    assert_coverage(text, chunks)
    assert [c.chunk_order for c in chunks] == list(range(len(chunks)))


def test_crlf_and_bom_keep_line_numbers(base_settings):
    from agent.intake import intake_uploads

    lf = (FIXTURES / "syntax" / "godot4_all.gd").read_text()
    crlf = lf.replace("\n", "\r\n")
    result = intake_uploads([("runner.gd", b"\xef\xbb\xbf" + crlf.encode())], settings=base_settings)
    file = result.expansion.included[0]
    assert not file.text.startswith("\ufeff") and "\r\n" in file.text
    got = chunk_file(file)
    want = chunk_file(source("runner.gd", lf))
    assert [(c.chunk_id, c.span.start_line, c.span.end_line, c.code_text) for c in got] == [
        (c.chunk_id, c.span.start_line, c.span.end_line, c.code_text) for c in want
    ]
    assert_coverage(file.text, got)
    raw = file.text.encode()
    proc = next(c for c in got if c.name == "_physics_process")
    assert raw[proc.span.start_byte : proc.span.end_byte].startswith(
        b'@warning_ignore("unused_parameter")\r\nfunc'
    )


def test_mixed_tabs_and_spaces():
    text = "extends Node\n\nfunc a():\n\tvar x = 1\n    var y = 2\n\treturn x\n\nfunc b():\n  \tpass\n"
    chunks = chunk_file(source("mixed.gd", text))
    assert_coverage(text, chunks)
    assert chunks[-1].name == "b"


def test_very_deep_nesting():
    depth = 400
    body = "".join("\t" * (i + 1) + "if true:\n" for i in range(depth)) + "\t" * (depth + 1) + "pass\n"
    text = "extends Node\n\nfunc deep():\n" + body + "\nfunc after():\n\treturn 1\n"
    chunks = chunk_file(source("deep.gd", text))
    assert_coverage(text, chunks)
    assert chunks[-1].name == "after"
    nested = "extends Node\nvar a = " + "[" * 3000 + "]" * 3000 + "\n"
    assert_coverage(nested, chunk_file(source("nested.gd", nested)))


def test_empty_and_comment_only_files_have_no_chunks():
    assert chunk_file(source("e.gd", "")) == []
    assert chunk_file(source("c.gd", "# just a note\n\n")) == []
