"""Hostile shapes keep sane chunk counts: tiny declarations by the thousand, nesting too deep to parse."""

from __future__ import annotations

from agent.parse import chunk_file
from agent.parse.gdscript import FOLDED_LINES, TINY_RUN
from tests.parse.helpers import assert_coverage, source


def _one_liners(n: int) -> str:
    return "extends Node\n" + "".join(f"func f{i}():\n\tpass\n" for i in range(n))


def test_fifty_thousand_one_line_functions_fold_without_losing_spans() -> None:
    text = _one_liners(50_000)  # the 1 MB paste: 50,001 chunks before
    chunks = chunk_file(source("many.gd", text))
    assert_coverage(text, chunks)
    assert len(chunks) == 1 + -(-100_000 // FOLDED_LINES)  # extends + 64-line folds
    folded = chunks[1]
    assert (folded.chunk_kind, folded.name) == ("function", "f0..f31")
    assert folded.chunk_id == "many.gd:function:f0..f31"
    assert (folded.span.start_line, folded.span.end_line) == (2, 65)
    members = [m for c in chunks[1:] for m in c.extra["members"]]
    assert [m["name"] for m in members] == [f"f{i}" for i in range(50_000)]
    assert all(m["end_line"] == m["start_line"] + 1 == 2 * i + 3 for i, m in enumerate(members))
    assert [c.chunk_order for c in chunks] == list(range(len(chunks)))


def test_short_runs_of_tiny_functions_chunk_as_before() -> None:
    text = _one_liners(TINY_RUN - 1)
    chunks = chunk_file(source("few.gd", text))
    assert [c.chunk_id for c in chunks[1:]] == [f"few.gd:function:f{i}" for i in range(TINY_RUN - 1)]
    assert all("members" not in c.extra for c in chunks)
    assert len(chunk_file(source("run.gd", _one_liners(TINY_RUN)))) == 2


def test_mixed_tiny_declarations_fold_and_list_each_kind() -> None:
    text = "extends Node\n" + "".join(f"signal s{i}\n\nfunc f{i}():\n\tpass\n" for i in range(500))
    chunks = chunk_file(source("mixed.gd", text))
    assert_coverage(text, chunks)
    assert len(chunks) < 40
    kinds = [m["kind"] for c in chunks[1:] for m in c.extra["members"]]
    assert kinds == ["signal", "function"] * 500
    # a longer function breaks the run; it stays a chunk of its own
    text += "func big():\n" + "\tpass\n" * 3 + "".join(f"func g{i}():\n\tpass\n" for i in range(5))
    tail = chunk_file(source("mixed2.gd", text))[-6:]
    assert [c.name for c in tail] == ["big", "g0", "g1", "g2", "g3", "g4"]


def test_tiny_broken_lines_fold_apart_from_declarations() -> None:
    text = "extends Node\n" + "".join(f"@@ broken {i}\n\n" for i in range(200)) + "func f():\n\tpass\n"
    chunks = chunk_file(source("broken.gd", text))
    assert_coverage(text, chunks)
    assert len(chunks) < 10
    assert {c.chunk_kind for c in chunks[1:-1]} == {"unparsed"} and chunks[-1].name == "f"


def _nested(depth: int, tail: str = "") -> str:
    lines = ["extends Node", "func f():"]
    for d in range(depth):
        lines.append("\t" * (d + 1) + f"if x{d}:")
        if d % 7 == 0:
            lines.append("\t" * (d + 1) + "# a comment inside")
        if d % 11 == 0:
            lines.append("")
    lines.append("\t" * (depth + 1) + "pass")
    return "\n".join(lines) + "\n" + tail


def test_deep_nesting_is_one_chunk_not_one_per_line() -> None:
    for depth in (20, 33, 40, 300, 2000):
        text = _nested(depth, "\nfunc g():\n\tpass\n\nvar a = 1\n")
        chunks = chunk_file(source("deep.gd", text))
        assert_coverage(text, chunks)
        kinds = [c.chunk_kind for c in chunks]
        assert kinds[0] == "class_extends" and kinds[-2:] == ["function", "declaration_group"], depth
        assert len(chunks) == 4, (depth, kinds)  # the nested function is one chunk, parsed or not
        assert chunks[1].span.start_line == 2 and chunks[1].span.end_line == len(_nested(depth).splitlines())
