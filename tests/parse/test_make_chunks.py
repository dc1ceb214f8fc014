"""The C `make_chunks` (the model-building loop of `agent.parse._chunks`) equals the Python loop."""

from __future__ import annotations

import copy
import gc
from typing import Any

import pytest

from agent.models import Chunk, SourceFile, Span
from agent.parse import _CHUNK_FIELDS, _MODEL_DESCRIPTORS, _SPAN_FIELDS, _chunks, clear_cache, speedups
from agent.parse.gdscript import chunk_gdscript
from tests.parse.helpers import source, traced_growth

C = speedups.compiled
pytestmark = pytest.mark.skipif(C is None, reason="C speedups not built")

TEXTS = [
    "",
    "extends Node\n",
    "@tool\nextends Node\n\nsignal s\nvar a = 1\nvar b = 2\n\n@export var é := 'ü'\n"
    "func f():\n\treturn a\n",
    "extends Node\r\nfunc f():\r\n\tprint('𝔘')\r\n",
    "\ufeffextends Node\nfunc f(:\n\tpass\nfunc g():\n\treturn 1\n\x00\n",
    "sync func f():\n\tpass\n\nvar x = $%Foo\n@export\n",
    "func f():\n\tpass\n" * 300,
]
MODELS = (Span, Chunk, _SPAN_FIELDS, _CHUNK_FIELDS, _MODEL_DESCRIPTORS)


def _state(chunks: list[Chunk]) -> list[Any]:
    return [
        (
            c.model_dump_json(),
            list(c.__dict__),
            list(c.model_fields_set),
            list(c.span.model_fields_set),
            c.__pydantic_extra__,
            c.__pydantic_private__,
            gc.is_tracked(c),
            gc.is_tracked(c.__dict__),
            gc.is_tracked(c.span),
        )
        for c in chunks
    ]


@pytest.mark.parametrize("text", TEXTS)
def test_make_chunks_matches_python_loop(text: str) -> None:
    for first in (0, 7):
        clear_cache()
        file = source("res://a é.gd", text)
        py = _chunks_pure(file, first)
        clear_cache()
        c = _chunks_c(file, first)
        assert _state(c) == _state(py)
        assert [x.chunk_order for x in c] == list(range(first, first + len(c)))
        # the fields-sets as untracked_copies made them before make_chunks (the pure path: set.copy())
        assert not any(gc.is_tracked(x.model_fields_set) or gc.is_tracked(x.span.model_fields_set) for x in c)


def _chunks_pure(file: SourceFile, first: int) -> list[Chunk]:
    with speedups.pure_python():
        return _chunks(file, first)


def _chunks_c(file: SourceFile, first: int) -> list[Chunk]:
    """`_chunks` with the C speedups in use, even under GODOT_RAG_PURE_PYTHON_PARSE=1."""
    saved, speedups.C = speedups.C, C
    try:
        return _chunks(file, first)
    finally:
        speedups.C = saved


def test_make_chunks_uses_the_drafts_as_dicts() -> None:
    drafts = chunk_gdscript(TEXTS[2])
    spans = [d["span"] for d in drafts]
    made = C.make_chunks(drafts, "p:", "p", "s", 3, *MODELS)
    assert all(m.__dict__ is d for m, d in zip(made, drafts, strict=True))
    assert all(m.span.__dict__ is s for m, s in zip(made, spans, strict=True))
    assert made[0].chunk_id.startswith("p:") and made[0].source_file == "p" and made[0].chunk_order == 3
    assert C.make_chunks([], "p:", "p", "s", 0, *MODELS) == []


def test_make_chunks_bad_arguments_raise() -> None:
    good = chunk_gdscript(TEXTS[1])
    cases: list[tuple[Any, ...]] = [
        ((good[0],), "p:", "p", "s", 0, *MODELS),
        ([1], "p:", "p", "s", 0, *MODELS),
        ([{}], "p:", "p", "s", 0, *MODELS),
        ([{"chunk_id": "x"}], "p:", "p", "s", 0, *MODELS),
        ([{"chunk_id": 1, "span": {}}], "p:", "p", "s", 0, *MODELS),
        (copy.deepcopy(good), b"p:", "p", "s", 0, *MODELS),
        (copy.deepcopy(good), "p:", "p", "s", 0, Span, Chunk, _SPAN_FIELDS, _CHUNK_FIELDS, ()),
        (copy.deepcopy(good), "p:", "p", "s", 0, Span, Chunk, _SPAN_FIELDS, _CHUNK_FIELDS, (1, 2, 3, 4)),
        (copy.deepcopy(good), "p:", "p", "s", 0, Span, "Chunk", *MODELS[2:]),
    ]
    for args in cases:
        with pytest.raises((TypeError, KeyError, AttributeError)):
            C.make_chunks(*args)


def test_make_chunks_no_leak() -> None:
    drafts = chunk_gdscript(TEXTS[-1] + TEXTS[2])

    def run() -> None:
        for _ in range(5):
            C.make_chunks(copy.deepcopy(drafts), "p:", "p", "s", 0, *MODELS)
            with pytest.raises(KeyError):
                C.make_chunks([{"chunk_id": "x"}], "p:", "p", "s", 0, *MODELS)

    grown = traced_growth(run, 10)
    assert grown < 20_000, grown
