"""Split a chunk into its trace (where it came from) and its query (what is searched).

The trace is never searched and the query never carries trace: `build_retriever_query`
drops any term that names the chunk's file, id, order, sha or project unless that exact
text occurs in the code itself. `check_transmission` runs before a chunk is sent on.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

from agent.intent import Intent, detect_intent
from agent.judge.facts import is_gdscript
from agent.judge.lexer import lex
from agent.judge.receivers import declared_classes
from agent.models import Chunk, ChunkTrace, Expansion, RetrieverQuery

_TERM_LIMIT = 48


class TransmissionError(ValueError):
    """A chunk list or payload failed the pre-send checks; nothing may be sent."""


def split_trace(chunk: Chunk, project_id: str) -> ChunkTrace:
    """The trace half of a chunk: ids, file, sha, order, kind and lines. Never searched."""
    return ChunkTrace(
        project_id=project_id,
        source_file=chunk.source_file,
        source_sha256=chunk.source_sha256,
        chunk_id=chunk.chunk_id,
        chunk_order=chunk.chunk_order,
        chunk_kind=chunk.chunk_kind,
        start_line=chunk.span.start_line,
        end_line=chunk.span.end_line,
    )


def _trace_tokens(chunk: Chunk) -> set[str]:
    path = chunk.source_file
    p = PurePosixPath(path.split("://", 1)[-1])
    tokens = {
        path,
        p.as_posix(),
        p.name,
        p.stem,
        chunk.chunk_id,
        chunk.source_sha256,
        chunk.sha256,
        str(chunk.chunk_order),
    }
    tokens |= {part for part in p.parts if part}
    tokens |= set(re.split(r"[:/]", chunk.chunk_id))
    return {t.lower() for t in tokens if t}


def _names_trace(term: str, trace: set[str], code: str) -> bool:
    """True if the term is (or contains) a trace token that the code itself does not contain."""
    low = term.lower()
    if low in code.lower():
        return False
    if low in trace:
        return True
    return any(len(t) >= 4 and t in low for t in trace) or bool(re.fullmatch(r"(proj-)?[0-9a-f]{12,64}", low))


_USE = re.compile(r"(?<![\w.$%])([A-Za-z_]\w*)\s*\.\s*([a-z_]\w*)")
_MEMBER_LIMIT = 16


def receiver_classes(chunk: Chunk) -> list[str]:
    """Classes of the script's member variables (typed or `X.new()`) that the chunk uses as receivers."""
    if not chunk.surrounding_context or not is_gdscript(chunk):
        return []
    used = {m.group(1) for m in _USE.finditer(lex(chunk.code_text).masked)}
    members = declared_classes(lex(chunk.surrounding_context).masked)
    return list(dict.fromkeys(cls for name, cls in members.items() if name in used and cls[:1].isupper()))


def receiver_members(chunk: Chunk) -> list[str]:
    """`Array.sort_custom` for `items.sort_custom(...)` where the chunk or its script declares `items` with a
    class (`var items = []`, `var f: File`): the class-reference pages of exactly the members it uses."""
    if not is_gdscript(chunk):
        return []
    masked = lex(chunk.code_text).masked
    declared = declared_classes(lex(chunk.surrounding_context).masked) if chunk.surrounding_context else {}
    declared.update(declared_classes(masked))
    out = (f"{declared[m.group(1)]}.{m.group(2)}" for m in _USE.finditer(masked) if m.group(1) in declared)
    return list(dict.fromkeys(out))[:_MEMBER_LIMIT]


def build_retriever_query(prompt: str, chunk: Chunk, *, intent: Intent | None = None) -> RetrieverQuery:
    """The search half of a chunk: its code, its candidates and the prompt's cue terms.

    `intent` is the run's `detect_intent(prompt)`, read once by the graph's intent node.
    """
    intent = intent or detect_intent(prompt)
    code = chunk.code_text
    trace = _trace_tokens(chunk)
    trace.discard(chunk.chunk_kind.lower())

    def clean(items: list[str]) -> list[str]:
        return [t for t in dict.fromkeys(items) if t and not _names_trace(t, trace, code)]

    apis = clean(chunk.api_call_candidates)
    symbols = clean(chunk.symbol_candidates)
    refs = clean(chunk.reference_candidates)
    terms = clean([*apis, *symbols, *refs, *([chunk.name] if chunk.name and chunk.name in code else [])])
    terms = terms[:_TERM_LIMIT] + [t for t in intent.prompt_terms if t not in terms]
    head = " ".join(terms)
    return RetrieverQuery(
        query_text=f"{head}\n{code}" if head else code,
        query_terms=terms,
        raw_chunk_text=code,
        symbol_candidates=symbols,
        api_call_candidates=apis,
        reference_candidates=refs,
        prompt_terms=list(intent.prompt_terms),
        task_type=intent.task_type,
        gdscript=is_gdscript(chunk),
        receiver_classes=[c for c in receiver_classes(chunk) if not _names_trace(c, trace, code)],
        receiver_members=[m for m in receiver_members(chunk)
                          if not any(_names_trace(part, trace, code) for part in m.split("."))],
    )


def check_transmission(
    chunks: list[Chunk], payload_chunk_ids: list[str], expansion: Expansion | None = None
) -> None:
    """Block the send unless order, ids and (with an expansion) every file's sha256 and lines check out.

    - `chunk_order` strictly increases and chunk ids are unique;
    - every payload id exists, and the payload keeps the chunks' order;
    - with `expansion`: each chunk's file is included, its text hashes to the chunk's
      `source_sha256`, and the chunk's code equals the file's lines at its span as read back
      from the expanded text through the line map.
    """
    orders: dict[str, int] = {}
    prev = -1
    for c in chunks:
        if c.chunk_order <= prev:
            raise TransmissionError(
                f"chunk_order is not strictly increasing at {c.chunk_id} ({c.chunk_order} after {prev})."
            )
        prev = c.chunk_order
        if c.chunk_id in orders:
            raise TransmissionError(f"duplicate chunk_id {c.chunk_id}.")
        orders[c.chunk_id] = c.chunk_order
    last = -1
    for cid in payload_chunk_ids:
        if cid not in orders:
            raise TransmissionError(f"payload chunk_id {cid} is not in the chunk list.")
        if orders[cid] <= last:
            raise TransmissionError(f"payload chunk_id {cid} is out of order (chunk_order {orders[cid]}).")
        last = orders[cid]
    if expansion is None:
        return
    files = {f.path: f for f in expansion.files}
    lines_of: dict[str, dict[int, str]] = {}
    expanded = expansion.expanded_text.split("\n")
    for i, where in enumerate(expansion.line_map):
        if where is not None:
            lines_of.setdefault(where[0], {})[where[1]] = expanded[i]
    for c in chunks:
        f = files.get(c.source_file)
        if f is None or not f.included or f.text is None:
            raise TransmissionError(f"{c.chunk_id}: source file {c.source_file} is not an included file.")
        actual = hashlib.sha256(f.text.encode("utf-8")).hexdigest()
        if actual != c.source_sha256 or (f.sha256 and f.sha256 != actual):
            raise TransmissionError(f"{c.chunk_id}: sha256 of {c.source_file} does not match the trace.")
        block = lines_of.get(c.source_file, {})
        got = "\n".join(block.get(n, "\0missing") for n in range(c.span.start_line, c.span.end_line + 1))
        if got != c.code_text:
            raise TransmissionError(
                f"{c.chunk_id}: lines {c.span.start_line}-{c.span.end_line} of the expanded block "
                "differ from the chunk."
            )
