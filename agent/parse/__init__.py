"""Turn an `Expansion` into ordered, traceable chunks: `.gd` by AST, other text files directly.

`chunk_project` numbers chunks 0..n-1 across the whole project in file path order, so
`chunk_order` is the resume key. See `agent.parse.facts` and `agent.parse.direct` for the
`Chunk.extra` keys the judge reads.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from agent.models import Chunk, Expansion, SourceFile, Span
from agent.parse.cache import cache_info, cached_drafts, clear_cache
from agent.parse.direct import chunk_direct
from agent.parse.gcpause import gc_paused
from agent.parse.gdscript import chunk_gdscript
from agent.parse.text import sha256_text

PARSER_VERSION = "gdscript-ts6.1-chunker-4"
"""Bump when chunk boundaries or facts change: it is part of the cache key."""

__all__ = ["PARSER_VERSION", "chunk_file", "chunk_project", "cache_info", "clear_cache"]


def _name_suffix(path: str) -> tuple[str, str]:
    """`(PurePosixPath(path).name, PurePosixPath(path).suffix)` without building a path object."""
    name = path.rpartition("/")[2]
    if name in ("", ".", ".."):  # a trailing "/" or dot part: let pathlib normalise it
        pure = PurePosixPath(path)
        return pure.name, pure.suffix
    i = name.rfind(".")
    return name, name[i:] if 0 < i < len(name) - 1 else ""


def _drafts(file: SourceFile) -> list[dict[str, Any]]:
    text = file.text or ""
    name, suffix = _name_suffix(file.path)
    if file.kind == "gdscript" or suffix.lower() == ".gd":
        return chunk_gdscript(text)
    return chunk_direct(name, text)


def chunk_file(file: SourceFile) -> list[Chunk]:
    """Chunks of one included file, `chunk_order` 0..n-1 within the file."""
    if not file.included or file.text is None:
        return []
    with gc_paused():  # chunking makes no cycles: see agent.parse.gcpause
        return _chunks(file, 0)


def _chunks(file: SourceFile, first_order: int) -> list[Chunk]:
    """The file's chunks, numbered from `first_order`.

    Drafts (from `chunk_gdscript` / `chunk_direct`) are path-independent so the cache can
    share them: `chunk_id` holds the local id, which gets the file's path as a prefix here.
    `model_construct` skips validation, since our own chunkers built every field.
    """
    assert file.text is not None
    sha = file.sha256 or sha256_text(file.text)
    path = file.path
    name, suffix = _name_suffix(path)
    suffix = suffix.lower() or name
    key = (sha, f"{file.kind}{suffix}", PARSER_VERSION)
    drafts = cached_drafts(key, lambda: _drafts(file))
    prefix = f"{path}:"
    construct_span, construct_chunk = Span.model_construct, Chunk.model_construct
    chunks = []
    for order, d in enumerate(drafts, first_order):
        d["chunk_id"] = prefix + d["chunk_id"]
        d["span"] = construct_span(**d["span"])
        chunks.append(construct_chunk(**d, chunk_order=order, source_file=path, source_sha256=sha))
    return chunks


def chunk_project(expansion: Expansion, *, project_id: str) -> list[Chunk]:
    """All included files' chunks, in the expansion's file order, numbered 0..n-1 globally.

    `project_id` is accepted so callers state which project the numbering belongs to; chunk
    ids are already unique within a project because they start with the file's path.
    """
    del project_id  # trace lives in ChunkTrace (agent.retrieve.query.split_trace)
    out: list[Chunk] = []
    with gc_paused():  # one pause for the whole project: see agent.parse.gcpause
        for file in expansion.files:
            if not file.included or file.text is None:
                continue
            out += _chunks(file, len(out))
    return out
