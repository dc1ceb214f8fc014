"""The parse cache hands out private copies: mutating one run's chunks never changes the next run's."""

from __future__ import annotations

from agent.parse import cache, chunk_file, clear_cache
from tests.parse.helpers import source

TEXT = 'extends Node\n@export var a := 1\nfunc f(x):\n\t$Sprite.play("run")\n\treturn a\n'


def test_cache_entries_are_private_copies() -> None:
    """Chunks from a miss and from hits are equal, and mutating any of them leaves the cache clean."""
    clear_cache()
    first = chunk_file(source("a.gd", TEXT))
    (entry,) = cache._entries.values()
    assert isinstance(entry, bytes)  # marshalled: nothing in it for the collector to walk
    dumps = [c.model_dump_json() for c in first]
    first[-1].extra["identifiers"].clear()
    first[-1].extra["declared_names"].append("mutated")
    first[-1].symbol_candidates.append("Mutated")
    second = chunk_file(source("b.gd", TEXT))
    moved = [c.model_dump_json().replace('"b.gd:', '"a.gd:').replace('"b.gd"', '"a.gd"') for c in second]
    assert moved == dumps
    assert cache.cache_info()["hits"] == 1
    second[0].extra["anything"] = True
    third = chunk_file(source("a.gd", TEXT))
    assert [c.model_dump_json() for c in third] == dumps
    clear_cache()


def test_cached_drafts_copies_on_every_hit() -> None:
    clear_cache()
    drafts = [{"a": (1, 2), "b": ["x"]}]
    assert cache.cached_drafts(("k", "v", "p"), lambda: drafts) is drafts
    hit = cache.cached_drafts(("k", "v", "p"), lambda: [])
    assert hit == drafts and hit is not drafts and hit[0]["b"] is not drafts[0]["b"]
    clear_cache()
