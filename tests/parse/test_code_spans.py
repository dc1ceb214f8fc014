"""`_code_spans` (code and byte span cut at chunk boundaries only) equals `Lines.slice`/`byte_span`."""

from __future__ import annotations

import random

from agent.parse.gdscript import _code_spans
from agent.parse.text import Lines

PARTS = ["extends Node", "", "  ", "\tvar é = 'ü'", '\tvar 𝔘 = "𝔘"', "\x00", "# c", "x" * 3000]
PARTS += ["\ufeffa", "b\rc"]


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


def test_code_spans_edges() -> None:
    for text in ["a", "a\n", "\n\n", "é\n𝔘\nb", "a\r\nb\r\n", "a\n\nb\n", "\x00\n\x00"]:
        lines = Lines.of(text)
        n = len(lines)
        every = [(r, r + 1) for r in range(n)]
        assert _code_spans(text, lines.lines, every) == _reference(text, every)
        assert _code_spans(text, lines.lines, [(0, n)]) == _reference(text, [(0, n)])
        assert _code_spans(text, lines.lines, []) == []

