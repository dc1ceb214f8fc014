"""Turn an `Expansion` into ordered, traceable chunks: `.gd` by AST, other text files directly.

`chunk_project` numbers chunks 0..n-1 across the whole project in file path order, so
`chunk_order` is the resume key. See `agent.parse.facts` and `agent.parse.direct` for the
`Chunk.extra` keys the judge reads.
"""

from __future__ import annotations

import functools
from pathlib import PurePosixPath
from typing import Any, TypeVar

from pydantic import BaseModel

from agent.models import Chunk, Expansion, SourceFile, Span
from agent.parse.cache import cache_info, cached_drafts, clear_cache
from agent.parse.direct import chunk_direct
from agent.parse.gcpause import gc_paused
from agent.parse.gdscript import chunk_gdscript
from agent.parse.text import sha256_text

PARSER_VERSION = "gdscript-ts6.1-chunker-1"
"""Bump when chunk boundaries or facts change: it is part of the cache key."""

__all__ = ["PARSER_VERSION", "chunk_file", "chunk_project", "cache_info", "clear_cache"]


_M = TypeVar("_M", bound=BaseModel)


def _construct(cls: type[_M], values: dict[str, Any]) -> _M:
    """`cls.model_construct(**values)` for a plain model given every field, minus its per-field loop.

    Sets exactly what `model_construct` sets for a model without aliases, extras, private
    attributes or post-init hooks; other models go through `model_construct` itself.
    """
    if len(values) != _plain_field_count(cls):
        return cls.model_construct(**values)
    m = cls.__new__(cls)
    _set_dict(m, values)  # BaseModel's slots, set through their descriptors: what object.__setattr__ does
    _set_fields_set(m, set(values))
    _set_extra(m, None)
    _set_private(m, None)
    return m


_set_dict = vars(BaseModel)["__dict__"].__set__
_set_fields_set = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private = vars(BaseModel)["__pydantic_private__"].__set__


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
        drafts = chunk_gdscript(text)
    else:
        drafts = chunk_direct(name, text)
    for d in drafts:
        d["sha256"] = sha256_text(d["code_text"])
    return drafts


def chunk_file(file: SourceFile) -> list[Chunk]:
    """Chunks of one included file, `chunk_order` 0..n-1 within the file."""
    if not file.included or file.text is None:
        return []
    with gc_paused():  # chunking makes no cycles: see agent.parse.gcpause
        return _chunks(file)


def _chunks(file: SourceFile) -> list[Chunk]:
    assert file.text is not None
    sha = file.sha256 or sha256_text(file.text)
    name, suffix = _name_suffix(file.path)
    suffix = suffix.lower() or name
    key = (sha, f"{file.kind}{suffix}", PARSER_VERSION)
    drafts = cached_drafts(key, lambda: _drafts(file))
    # the drafts are built by our own chunkers, so validation would only cost time
    chunks = []
    for order, d in enumerate(drafts):
        span = _construct(
            Span,
            {
                "start_line": d["start_line"],
                "end_line": d["end_line"],
                "start_byte": d["start_byte"],
                "end_byte": d["end_byte"],
            },
        )
        chunks.append(
            _construct(
                Chunk,
                {
                    "chunk_id": f"{file.path}:{d['local_id']}",
                    "chunk_order": order,
                    "source_file": file.path,
                    "source_sha256": sha,
                    "chunk_kind": d["chunk_kind"],
                    "node_kind": d["node_kind"],
                    "name": d["name"],
                    "span": span,
                    "code_text": d["code_text"],
                    "sha256": d["sha256"],
                    "symbol_candidates": d["symbol_candidates"],
                    "api_call_candidates": d["api_call_candidates"],
                    "reference_candidates": d["reference_candidates"],
                    "surrounding_context": d["surrounding_context"],
                    "parse_status": d["parse_status"],
                    "extra": d["extra"],
                },
            )
        )
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
            for chunk in _chunks(file):
                chunk.chunk_order = len(out)
                out.append(chunk)
    return out
