"""Pack a section's units into windows the embedding model sees whole.

The model silently drops everything past `max_seq_length` tokens, so every window is
sized with the model's own tokenizer: `prefix + "\\n" + window` must fit. Table rows
carry their header into each window; long units are split at sentences, lines or words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.ingest.markdown import CodeBlock

TokenCounter = Callable[[str], int]
_SPECIAL = 2  # [CLS] and [SEP], counted by token_count on every call
_SENTENCE = re.compile(r"(?<=[.!?:;])\s+")


@dataclass
class Unit:
    """A piece of section text that is kept together when it fits in one window."""

    text: str
    code: CodeBlock | None = None
    table_header: str | None = None


@dataclass
class Window:
    """Text of one window plus the code snippets (or parts of them) it contains."""

    text: str
    code: list[CodeBlock] = field(default_factory=list)
    tokens: int = 0


def embedding_text(prefix: str, text: str) -> str:
    """Exactly what is embedded for a chunk: its section path, then its content."""
    return f"{prefix}\n{text}" if prefix else text


def _split_long(unit: Unit, budget: int, count: TokenCounter) -> list[Unit]:
    """Break a unit that alone exceeds the budget into pieces that each fit."""
    if unit.code is not None:
        lines = unit.code.code.split("\n")
        pieces: list[Unit] = []
        cur: list[str] = []
        for line in lines:
            trial = "\n".join([*cur, line])
            if cur and count(_fence(unit.code.language, trial)) - _SPECIAL > budget:
                pieces.append(_code_unit(unit.code.language, "\n".join(cur)))
                cur = [line]
            else:
                cur.append(line)
        if cur:
            pieces.append(_code_unit(unit.code.language, "\n".join(cur)))
        out: list[Unit] = []
        for p in pieces:  # a single enormous line still has to be cut
            if count(p.text) - _SPECIAL > budget:
                out.extend(_split_words(p.text, budget, count))
            else:
                out.append(p)
        return out
    parts = [s for s in _SENTENCE.split(unit.text) if s]
    if len(parts) <= 1:
        return _split_words(unit.text, budget, count, unit.table_header)
    out = []
    cur_text = ""
    for s in parts:
        trial = f"{cur_text} {s}".strip()
        if cur_text and count(trial) - _SPECIAL > budget:
            out.append(Unit(cur_text, table_header=unit.table_header))
            cur_text = s
        else:
            cur_text = trial
    if cur_text:
        out.append(Unit(cur_text, table_header=unit.table_header))
    final: list[Unit] = []
    for u in out:
        if count(u.text) - _SPECIAL > budget:
            final.extend(_split_words(u.text, budget, count, unit.table_header))
        else:
            final.append(u)
    return final


def _split_words(text: str, budget: int, count: TokenCounter, header: str | None = None) -> list[Unit]:
    words = text.split(" ")
    out: list[Unit] = []
    cur: list[str] = []
    for w in words:
        if cur and count(" ".join([*cur, w])) - _SPECIAL > budget:
            out.append(Unit(" ".join(cur), table_header=header))
            cur = [w]
        else:
            cur.append(w)
    if cur:
        out.append(Unit(" ".join(cur), table_header=header))
    return out


def _fence(language: str, code: str) -> str:
    return f"```{language}\n{code}\n```"


def _code_unit(language: str, code: str) -> Unit:
    return Unit(_fence(language, code), code=CodeBlock(language, code))


def code_unit(block: CodeBlock) -> Unit:
    """A code snippet as a fenced unit."""
    return _code_unit(block.language, block.code)


def pack(prefix: str, units: list[Unit], max_tokens: int, count: TokenCounter) -> list[Window]:
    """Greedy packing of units into windows whose embedding text fits `max_tokens`."""
    prefix_cost = count(prefix + "\n") - _SPECIAL if prefix else 0
    budget = max(32, max_tokens - _SPECIAL - prefix_cost - 4)
    sized: list[tuple[Unit, int]] = []
    for u in units:
        t = count(u.text) - _SPECIAL
        if t > budget:
            sized.extend((p, count(p.text) - _SPECIAL) for p in _split_long(u, budget, count))
        else:
            sized.append((u, t))
    header_cost: dict[str, int] = {}
    windows: list[list[tuple[Unit, int]]] = []
    cur: list[tuple[Unit, int]] = []
    used = 0
    for u, t in sized:
        extra = 0
        needs_header = u.table_header is not None and not any(x.text == u.table_header for x, _ in cur)
        if needs_header:
            assert u.table_header is not None
            if u.table_header not in header_cost:
                header_cost[u.table_header] = count(u.table_header) - _SPECIAL
            extra = header_cost[u.table_header]
        if cur and used + t + extra > budget:
            windows.append(cur)
            cur, used = [], 0
            needs_header = u.table_header is not None
            extra = header_cost.get(u.table_header or "", 0) if needs_header else 0
        if needs_header and u.table_header is not None and u.text != u.table_header:
            cur.append((Unit(u.table_header), extra))
            used += extra
        cur.append((u, t))
        used += t
    if cur:
        windows.append(cur)
    out: list[Window] = []
    for w in windows:
        out.extend(_finalize(prefix, prefix_cost, w, max_tokens, count))
    return out


def _finalize(
    prefix: str, prefix_cost: int, units: list[tuple[Unit, int]], max_tokens: int, count: TokenCounter
) -> list[Window]:
    """Join units; WordPiece counts add up across whitespace joins, so only near-limit windows are re-counted.

    A window that still overflows is halved (or, if it is a single unit, cut by words).
    """
    text = "\n".join(u.text for u, _ in units)
    tokens = prefix_cost + sum(t for _, t in units) + _SPECIAL
    if tokens > max_tokens - 8:
        tokens = count(embedding_text(prefix, text))
    if tokens > max_tokens and len(units) > 1:
        mid = len(units) // 2
        return _finalize(prefix, prefix_cost, units[:mid], max_tokens, count) + _finalize(
            prefix, prefix_cost, units[mid:], max_tokens, count
        )
    if tokens > max_tokens:
        budget = max(16, max_tokens - prefix_cost - _SPECIAL - 8)
        pieces = _split_words(units[0][0].text, budget, count)
        if len(pieces) > 1:
            return [
                w for p in pieces for w in _finalize(prefix, prefix_cost, [(p, count(p.text) - _SPECIAL)], max_tokens, count)
            ]
    return [Window(text=text, code=[u.code for u, _ in units if u.code is not None], tokens=tokens)]
