"""Cut the real code of a finding out of a chunk: the whole call or statement, as written.

Migration items show what the user wrote (`velocity = move_and_slide(velocity, Vector2.UP)`),
not the few characters a detection regex happened to match. Offsets come from the masked
text (`lexer.lex`), so parentheses inside strings or comments never unbalance a call.
"""

from __future__ import annotations

from agent.judge.lexer import lex

_RECEIVER = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$%/")


def _match(masked: str, open_at: int, stop: int) -> tuple[int, list[int]]:
    """Offset of the bracket matching the one at `open_at` (-1 if none before `stop`), and the commas at its top level."""
    depth, commas = 0, []
    for k in range(open_at, stop):
        c = masked[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return k, commas
        elif depth == 1 and c == ",":
            commas.append(k)
    return -1, commas


def close_paren(masked: str, open_at: int) -> int:
    """Offset just past the parenthesis matching the one at `open_at`, or -1."""
    close, _ = _match(masked, open_at, len(masked))
    return close + 1 if close >= 0 else -1


def call_args(masked: str, open_paren: int) -> list[str] | None:
    """The top-level arguments of the call whose `(` is at `open_paren` (strings are masked), or None."""
    close, commas = _match(masked, open_paren, min(len(masked), open_paren + 2000))
    if close < 0:
        return None
    bounds = [open_paren, *commas, close]
    args = [masked[a + 1 : b].strip() for a, b in zip(bounds, bounds[1:])]
    return args if args[-1] else args[:-1]  # `f(a,\n)`: a trailing comma adds no argument


def top_level_commas(masked: str, open_paren: int) -> list[int]:
    """Offsets of the commas between the arguments of the call whose `(` is at `open_paren`."""
    close, commas = _match(masked, open_paren, min(len(masked), open_paren + 2000))
    return commas if close >= 0 else []


def receiver_start(text: str, masked: str, start: int) -> int:
    """Walk back over a receiver chain (`$Button.`, `get_tree().`, `preload("x").`)."""
    i = start
    while i > 0:
        c = masked[i - 1]
        if c in _RECEIVER or (text[i - 1] in _RECEIVER and c == " "):  # node paths are blanked in `masked`
            i -= 1
            continue
        if c in ")]":  # a call or index in the chain: jump to its opening bracket
            depth, k = 0, i - 1
            while k >= 0:
                if masked[k] in ")]":
                    depth += 1
                elif masked[k] in "([":
                    depth -= 1
                    if depth == 0:
                        break
                k -= 1
            if k < 0:
                break
            i = k
            continue
        break
    return i


def expression_at(text: str, start: int) -> str:
    """The expression around offset `start`: receiver chain, name and, if called, its whole argument list."""
    masked = lex(text).masked
    if not 0 <= start < len(text):
        return ""
    while start < len(text) and text[start] in " \t.":
        start += 1
    begin = receiver_start(text, masked, start)
    while begin < start and text[begin] in ". \t":
        begin += 1
    end = start
    while end < len(masked) and (masked[end].isalnum() or masked[end] in "_."):
        end += 1
    while True:  # the name's own call, and any directly chained member access
        k = end
        while k < len(masked) and masked[k] in " \t":
            k += 1
        if k < len(masked) and masked[k] == "(":
            close = close_paren(masked, k)
            if close < 0:
                break
            end = close
            continue
        break
    return text[begin:end].strip()


def statement_at(text: str, start: int) -> str:
    """The statement on the line holding `start` (comment removed), joined over bracketed line breaks."""
    lexed = lex(text)
    line_start = text.rfind("\n", 0, start) + 1
    k, depth = line_start, 0
    while k < len(text):
        c = lexed.masked[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "\n" and depth <= 0:
            break
        k += 1
    stmt = lexed.no_comments[line_start:k]
    return " ".join(part.strip() for part in stmt.splitlines()).strip()


def split_args(text: str, masked: str) -> list[str]:
    """Top-level comma-separated arguments (positions from `masked`, content from `text`)."""
    out, depth, last = [], 0, 0
    for k, c in enumerate(masked):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[last:k].strip())
            last = k + 1
    tail = text[last:].strip()
    return [*out, tail] if tail or out else out
