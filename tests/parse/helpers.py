"""Small helpers for parser tests: build a SourceFile and check the coverage invariant."""

from __future__ import annotations

import hashlib

from agent.models import Chunk, SourceFile
from agent.parse.text import Lines, is_code_line


def source(path: str, text: str) -> SourceFile:
    kind = "gdscript" if path.endswith(".gd") else "scene" if path.endswith(".tscn") else "unknown"
    return SourceFile(
        path=path,
        kind=kind,
        included=True,
        reason="test",
        size=len(text.encode()),
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        text=text,
    )


def assert_coverage(text: str, chunks: list[Chunk]) -> None:
    """Every non-blank, non-comment line lies in exactly one chunk; spans ordered; bytes round-trip."""
    lines = Lines.of(text)
    owner: dict[int, str] = {}
    prev_end = 0
    raw = text.encode()
    for c in chunks:
        assert 1 <= c.span.start_line <= c.span.end_line <= len(lines), c.chunk_id
        assert c.span.start_line > prev_end, f"{c.chunk_id} overlaps the previous chunk"
        prev_end = c.span.end_line
        assert c.code_text == lines.slice(c.span.start_line, c.span.end_line)
        assert raw[c.span.start_byte : c.span.end_byte].decode().replace("\r\n", "\n") == c.code_text
        for n in range(c.span.start_line, c.span.end_line + 1):
            owner[n] = c.chunk_id
    for n, line in enumerate(lines.lines, start=1):
        if is_code_line(line):
            assert n in owner, f"line {n} {line!r} is in no chunk"
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def traced_growth(run, repeats: int) -> int:
    """Bytes still allocated (tracemalloc) after `repeats` more calls of `run`, once warmed up: a C leak check."""
    import gc
    import tracemalloc

    run()
    gc.collect()
    tracemalloc.start()
    try:
        run()
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(repeats):
            run()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()

