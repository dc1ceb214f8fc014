"""Chunk drafts are laid out as Chunk's fields, in order, so `_chunks` can adopt them as `__dict__`."""

from __future__ import annotations

from agent.models import Chunk, Span
from agent.parse import DRAFT_LAYOUT, SPAN_LAYOUT, _fast_models, chunk_file
from agent.parse.direct import chunk_direct
from agent.parse.gdscript import chunk_gdscript
from tests.parse.helpers import source

GD = "extends Node\n\nvar a = 1\n\nfunc f():\n\tpass\n"
TSCN = '[gd_scene format=3]\n\n[node name="Main" type="Node2D"]\n'


def test_layout_is_the_models_fields():
    assert tuple(Chunk.model_fields) == DRAFT_LAYOUT
    assert tuple(Span.model_fields) == SPAN_LAYOUT
    assert _fast_models()


def test_both_chunkers_emit_the_layout():
    for drafts in (chunk_gdscript(GD), chunk_direct("main.tscn", TSCN)):
        assert drafts
        for d in drafts:
            assert tuple(d) == DRAFT_LAYOUT
            assert tuple(d["span"]) == SPAN_LAYOUT


def test_chunks_are_what_model_construct_builds():
    for path, text in (("a.gd", GD), ("main.tscn", TSCN)):
        for c in chunk_file(source(path, text)):
            built = Chunk.model_construct(**{**c.__dict__, "span": Span.model_construct(**c.span.__dict__)})
            assert list(c.__dict__) == list(built.__dict__)
            assert c.model_dump() == built.model_dump()
            assert c.model_fields_set == built.model_fields_set
            assert c.span.model_fields_set == built.span.model_fields_set
            assert c.__pydantic_extra__ is None and c.__pydantic_private__ is None
            assert c.chunk_id.startswith(f"{path}:")


def test_slow_path_when_the_model_is_not_plain(monkeypatch):
    import agent.parse as parse

    fast = [c.model_dump() for c in chunk_file(source("a.gd", GD))]
    parse.clear_cache()
    monkeypatch.setattr(parse, "_fast_models", lambda: False)
    assert [c.model_dump() for c in chunk_file(source("a.gd", GD))] == fast
