"""`_code_spans` (code and byte span cut at chunk boundaries only) equals `Lines.slice`/`byte_span`."""

from __future__ import annotations

import random

import pytest

from agent.parse import speedups
from agent.parse.gdscript import _code_spans
from agent.parse.text import Lines

PARTS = ["extends Node", "", "  ", "\tvar é = 'ü'", '\tvar 𝔘 = "𝔘"', "\x00", "# c", "x" * 3000]
PARTS += ["\ufeffa", "b\rc"]


C = speedups.compiled


def _pure(text: str, rows: list[str], ranges: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    with speedups.pure_python():
        return _code_spans(text, rows, ranges)


def _reference(text: str, ranges: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    lines = Lines.of(text)
    out = []
    for start, last in ranges:
        out.append((lines.slice(start + 1, last), *lines.byte_span(start + 1, last)))
    return out


def _ranges(rng: random.Random, n: int) -> list[tuple[int, int]]:
    cuts = sorted(rng.sample(range(n + 1), min(n + 1, rng.randint(0, 8))))
    out = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        start = rng.randint(a, b - 1) if b > a else a
        if start < b:
            out.append((start, rng.randint(start + 1, b)))
    return out


def test_code_spans_match_lines_on_random_text() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        eol = rng.choice(["\n", "\r\n", "\n"])
        text = eol.join(rng.choice(PARTS) for _ in range(rng.randint(0, 12))) + rng.choice(["", "\n", eol])
        lines = Lines.of(text)
        ranges = _ranges(rng, len(lines))
        assert _code_spans(text, lines.lines, ranges) == _reference(text, ranges), (text, ranges)
        assert _pure(text, lines.lines, ranges) == _reference(text, ranges), (text, ranges)
        if C is not None:
            got = C.code_spans(text, ranges)
            assert got == (None if "\r" in text else _reference(text, ranges)), (text, ranges)


def test_code_spans_edges() -> None:
    for text in ["a", "a\n", "\n\n", "é\n𝔘\nb", "a\r\nb\r\n", "a\n\nb\n", "\x00\n\x00"]:
        lines = Lines.of(text)
        n = len(lines)
        every = [(r, r + 1) for r in range(n)]
        assert _code_spans(text, lines.lines, every) == _reference(text, every)
        assert _code_spans(text, lines.lines, [(0, n)]) == _reference(text, [(0, n)])
        assert _code_spans(text, lines.lines, []) == []
        assert _pure(text, lines.lines, every) == _reference(text, every)


def test_c_code_spans_bails_and_refuses() -> None:
    if C is None:
        return
    assert C.code_spans("a\ud800\nb", [(1, 2)]) is None  # surrogates: the Python path (which raises)
    assert C.code_spans("a\r\nb", [(0, 1)]) is None
    assert C.code_spans("", []) == [] and C.code_spans("", [(0, 1)]) == [("", 0, 0)]
    big = ("x" * 100_000 + "\n") * 3
    assert C.code_spans(big, [(1, 3)]) == [("x" * 100_000 + "\n" + "x" * 100_000, 100_001, 300_002)]
    for bad in [[(0, 3)], [(1, 1)], [(1, 2), (0, 1)], [(0, 1), (0, 2)], [(-1, 1)]]:
        with pytest.raises(ValueError):
            C.code_spans("a\nb", bad)
    for bad_args in [("a", [(0,)]), ("a", [[0, 1]]), ("a", ((0, 1),)), (b"a", [(0, 1)]), ("a", [("0", 1)])]:
        with pytest.raises(TypeError):
            C.code_spans(*bad_args)


def test_c_code_spans_no_leak() -> None:
    if C is None:
        return
    import gc
    import resource

    text = ("extends Node\n\tvar é = 1\n" * 2000)
    ranges = [(r, r + 2) for r in range(0, 4000, 3)]

    def run() -> None:
        for _ in range(20):
            C.code_spans(text, ranges)
            with pytest.raises(ValueError):
                C.code_spans(text, [(0, 1), (0, 1)])

    run()
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(10):
        run()
    gc.collect()
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 4096
