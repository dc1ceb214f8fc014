r"""Line bookkeeping shared by the AST and direct chunkers.

Chunks are cut on whole lines. Spans are 1-based inclusive lines of the file itself and byte
offsets [start, end) into the UTF-8 encoding of `SourceFile.text` (BOM already stripped, CRLF
kept; the end excludes the final line's `\\r\\n` or `\\n`), so a span always points back at the user's bytes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from itertools import accumulate

_COMMENT_LINE = re.compile(r"^\s*(#|;)")
_plus_one = (1).__add__


@dataclass(frozen=True)
class Lines:
    """A file split into lines (CR of CRLF dropped), with each line's byte offset and length (CR excluded)."""

    lines: list[str]
    starts: list[int]
    lengths: list[int]

    @classmethod
    def of(cls, text: str) -> Lines:
        """Split a decoded file; a final newline does not start an extra line."""
        raw = text.split("\n")
        if len(raw) > 1 and raw[-1] == "":
            raw.pop()  # the final newline ends the last line; it does not start a new one
        sizes = list(map(len, raw)) if text.isascii() else [len(line.encode("utf-8")) for line in raw]
        starts = list(accumulate(map(_plus_one, sizes), initial=0))  # each line start: sizes + "\n"s before it
        starts.pop()  # the offset after the last line starts nothing
        if "\r" not in text:
            return cls(lines=raw, starts=starts, lengths=sizes)
        lines, lengths = [], []
        for line, size in zip(raw, sizes, strict=True):
            if line.endswith("\r"):
                line, size = line[:-1], size - 1
            lines.append(line)
            lengths.append(size)
        return cls(lines=lines, starts=starts, lengths=lengths)

    def __len__(self) -> int:
        return len(self.lines)

    def byte_span(self, start_line: int, end_line: int) -> tuple[int, int]:
        """Byte offsets [start, end) of lines start..end (1-based inclusive)."""
        return self.starts[start_line - 1], self.starts[end_line - 1] + self.lengths[end_line - 1]

    def slice(self, start_line: int, end_line: int) -> str:
        r"""The original lines start..end joined with `\\n`."""
        return "\n".join(self.lines[start_line - 1 : end_line])


def is_code_line(line: str) -> bool:
    """Non-blank and not a whole-line comment: the lines the coverage invariant is about."""
    return bool(line.strip()) and not _COMMENT_LINE.match(line)


def sha256_text(text: str) -> str:
    """sha256 hex digest of the text's UTF-8 encoding."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
