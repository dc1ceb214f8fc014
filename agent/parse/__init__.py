"""Turn an `Expansion` into ordered, traceable chunks: `.gd` by AST, other text files directly.

`chunk_project` numbers chunks 0..n-1 across the whole project in file path order, so
`chunk_order` is the resume key. See `agent.parse.facts` and `agent.parse.direct` for the
`Chunk.extra` keys the judge reads.
"""

from __future__ import annotations

import functools
from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel

from agent.models import Chunk, Expansion, SourceFile, Span
from agent.parse import speedups
from agent.parse.cache import cache_info, cached_drafts, clear_cache
from agent.parse.direct import chunk_direct
from agent.parse.gcpause import gc_paused
from agent.parse.gdscript import chunk_gdscript
from agent.parse.text import sha256_text

PARSER_VERSION = "gdscript-ts6.1-chunker-1"
"""Bump when chunk boundaries or facts change: it is part of the cache key."""

__all__ = ["PARSER_VERSION", "chunk_file", "chunk_project", "cache_info", "clear_cache"]


_set_dict = vars(BaseModel)["__dict__"].__set__
_set_fields_set = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private = vars(BaseModel)["__pydantic_private__"].__set__
_MODEL_DESCRIPTORS = tuple(  # what the setters above are bound to, for the C `make_chunks`
    vars(BaseModel)[n]
    for n in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
)


def _name_suffix(path: str) -> tuple[str, str]:
    """`(PurePosixPath(path).name, PurePosixPath(path).suffix)` without building a path object."""
    name = path.rpartition("/")[2]
    if name in ("", ".", ".."):  # a trailing "/" or dot part: let pathlib normalise it
        pure = PurePosixPath(path)
        return pure.name, pure.suffix
    i = name.rfind(".")
    return name, name[i:] if 0 < i < len(name) - 1 else ""


@functools.cache
def _plain_field_count(cls: type[BaseModel]) -> int:
    """How many fields `cls` has, or -1 when `model_construct` does more than set them."""
    plain = (
        not cls.__pydantic_post_init__
        and not cls.__private_attributes__
        and not cls.__pydantic_root_model__
        and cls.model_config.get("extra") != "allow"
        and all(f.alias is None and f.validation_alias is None for f in cls.model_fields.values())
    )
    return len(cls.model_fields) if plain else -1


def _drafts(file: SourceFile) -> list[dict[str, Any]]:
    text = file.text or ""
    name, suffix = _name_suffix(file.path)
    if file.kind == "gdscript" or suffix.lower() == ".gd":
        return chunk_gdscript(text)
    return chunk_direct(name, text)


DRAFT_LAYOUT = (
    "chunk_id",  # the local id, path-independent; `_chunks` prefixes the file's path
    "chunk_order",  # placeholder 0
    "source_file",  # placeholder ""
    "source_sha256",  # placeholder ""
    "chunk_kind",
    "node_kind",
    "name",
    "span",  # a dict of SPAN_LAYOUT
    "code_text",
    "sha256",
    "symbol_candidates",
    "api_call_candidates",
    "reference_candidates",
    "surrounding_context",
    "parse_status",
    "extra",
)
"""The keys of a chunk draft, in order: Chunk's fields (tests check both chunkers and the model)."""
SPAN_LAYOUT = ("start_line", "end_line", "start_byte", "end_byte")
# a fields-set as `model_construct` builds it (`set(values)`): copies iterate in the same order
_SPAN_FIELDS = set(dict.fromkeys(SPAN_LAYOUT))
_CHUNK_FIELDS = set(dict.fromkeys(DRAFT_LAYOUT))


@functools.cache
def _fast_models() -> bool:
    """Whether `_chunks` may use a draft dict as the Chunk's `__dict__`, as `model_construct` would.

    True while Span and Chunk are plain models (no aliases, extras, private attributes or
    post-init hooks: then `model_construct` only sets `__dict__` and the fields-set) whose
    fields are the draft layout, in order (`__dict__` order is the dump order).
    """
    return (
        tuple(Span.model_fields) == SPAN_LAYOUT
        and tuple(Chunk.model_fields) == DRAFT_LAYOUT
        and _plain_field_count(Span) == len(SPAN_LAYOUT)
        and _plain_field_count(Chunk) == len(DRAFT_LAYOUT)
    )


def chunk_file(file: SourceFile) -> list[Chunk]:
    """Chunks of one included file, `chunk_order` 0..n-1 within the file."""
    if not file.included or file.text is None:
        return []
    with gc_paused():  # chunking makes no cycles: see agent.parse.gcpause
        return _chunks(file, 0)


def _chunks(file: SourceFile, first_order: int) -> list[Chunk]:
    """The file's chunks, numbered from `first_order`.

    Drafts (from `chunk_gdscript` / `chunk_direct`, path-independent so the cache can share
    them) are laid out as Chunk's fields in field order, with `chunk_id` holding the local id,
    placeholders for the order and source fields, and `span` as Span's fields. The cache
    hands out fresh drafts, so each one becomes its Chunk's `__dict__` as it is: what
    `model_construct` would build, without copying (validation would only cost time: the
    drafts are built by our own chunkers).
    """
    assert file.text is not None
    sha = file.sha256 or sha256_text(file.text)
    path = file.path
    name, suffix = _name_suffix(path)
    suffix = suffix.lower() or name
    key = (sha, f"{file.kind}{suffix}", PARSER_VERSION)
    drafts = cached_drafts(key, lambda: _drafts(file))
    prefix = f"{path}:"
    chunks = []
    if not _fast_models():  # a model grew aliases, extras, hooks or fields: let pydantic build it
        for order, d in enumerate(drafts, first_order):
            d.update(chunk_id=prefix + d["chunk_id"], chunk_order=order, source_file=path, source_sha256=sha)
            d["span"] = Span.model_construct(**d["span"])
            chunks.append(Chunk.model_construct(**d))
        return chunks
    c = speedups.C
    if c is not None:  # the loop below in one call; fields-sets untracked, as untracked_copies makes them
        models = (Span, Chunk, _SPAN_FIELDS, _CHUNK_FIELDS, _MODEL_DESCRIPTORS)
        made: list[Chunk] = c.make_chunks(drafts, prefix, path, sha, first_order, *models)
        return made
    new_span, new_chunk = Span.__new__, Chunk.__new__
    set_dict, set_fields_set, set_extra, set_private = _set_dict, _set_fields_set, _set_extra, _set_private
    next_span_set, next_chunk_set = _SPAN_FIELDS.copy, _CHUNK_FIELDS.copy
    for order, d in enumerate(drafts, first_order):
        d["chunk_id"] = prefix + d["chunk_id"]
        d["chunk_order"] = order
        d["source_file"] = path
        d["source_sha256"] = sha
        span = new_span(Span)
        set_dict(span, d["span"])
        set_fields_set(span, next_span_set())
        set_extra(span, None)
        set_private(span, None)
        d["span"] = span
        chunk = new_chunk(Chunk)
        set_dict(chunk, d)
        set_fields_set(chunk, next_chunk_set())
        set_extra(chunk, None)
        set_private(chunk, None)
        chunks.append(chunk)
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
