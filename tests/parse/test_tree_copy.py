"""`_speedups.tree_copy` (the parse cache's copies) and the cache entries built with it."""

from __future__ import annotations

import gc
import random
from contextlib import nullcontext

import pytest

from agent.parse import cache, chunk_file, clear_cache, speedups
from tests.parse.helpers import rss_growth_kb, source

C = speedups.compiled
needs_c = pytest.mark.skipif(
    C is None, reason="agent.parse._speedups is not built (no C compiler at install?)"
)

LEAVES = ["", "a", "é", "𝔘", "\x00", "x" * 10_000, 0, -1, 2**100, 1.5, True, False, None, b"\xff"]


def _tree(rng: random.Random, depth: int = 0) -> object:
    r = rng.random()
    if depth > 5 or r < 0.4:
        return rng.choice(LEAVES)
    if r < 0.7:
        return [_tree(rng, depth + 1) for _ in range(rng.randint(0, 6))]
    keys = [f"k{rng.randint(0, 9)}{rng.choice(['', 'é', '𝔘'])}" for _ in range(rng.randint(0, 6))]
    return {k: _tree(rng, depth + 1) for k in keys}


def _containers(o: object) -> list[object]:
    if isinstance(o, dict):
        return [o, *(x for v in o.values() for x in _containers(v))]
    if isinstance(o, list):
        return [o, *(x for v in o for x in _containers(v))]
    return []


def _shape(o: object) -> object:
    """Equal values and dict key order, and the type of every node."""
    if isinstance(o, dict):
        return ("d", [(k, _shape(v)) for k, v in o.items()])
    if isinstance(o, list):
        return ("l", [_shape(v) for v in o])
    return (type(o).__name__, o)


@needs_c
@pytest.mark.parametrize("frozen", [True, False])
def test_random_trees_copied_equal_and_disjoint(frozen: bool) -> None:
    rng = random.Random(3)
    for _ in range(500):
        tree = _tree(rng)
        copy = C.tree_copy(tree, frozen)
        assert _shape(copy) == _shape(tree)
        originals = {id(x) for x in _containers(tree)}
        copied = _containers(copy)
        assert not originals & {id(x) for x in copied}  # no container shared
        for x in copied:
            items = x.values() if isinstance(x, dict) else x
            holds_container = any(isinstance(v, (dict, list)) for v in items)
            assert gc.is_tracked(x) == (not frozen and holds_container)


@needs_c
def test_edges_and_refusals() -> None:
    assert C.tree_copy([], True) == [] and C.tree_copy({}, False) == {}
    s = "shared"
    assert C.tree_copy(s, True) is s  # leaves are shared
    assert C.tree_copy({"a": [s]}, False)["a"][0] is s
    deep: list[object] = []
    node = deep
    for _ in range(63):
        node.append([])
        node = node[0]  # type: ignore[assignment]
    assert C.tree_copy(deep, True) == deep
    node.append([])  # 65 levels
    for bad in [deep, (1, 2), {1: "int key"}, [set()], {"a": object()}, [bytearray(b"x")]]:
        with pytest.raises(TypeError):
            C.tree_copy(bad, True)
    with pytest.raises(TypeError):
        C.tree_copy([1])  # frozen is required


@needs_c
def test_no_leak_over_repeated_copies() -> None:
    rng = random.Random(9)
    trees = [_tree(rng) for _ in range(300)]
    bad = [[1, 2, {"a": [3, (4,)]}] for _ in range(50)]

    def run() -> None:
        for t in trees:
            C.tree_copy(C.tree_copy(t, True), False)
        for b in bad:
            with pytest.raises(TypeError):
                C.tree_copy(b, False)

    grown_kb = rss_growth_kb(run, 30)
    assert grown_kb < 4096, f"max RSS grew {grown_kb} kB over 30 runs"


TEXT = 'extends Node\n@export var a := 1\nfunc f(x):\n\t$Sprite.play("run")\n\treturn a\n'


@pytest.mark.parametrize("pure", [False, True])
def test_cache_entries_are_private_copies(pure: bool) -> None:
    """Chunks from a miss and from hits are equal, and mutating any of them leaves the cache clean."""
    if not pure and speedups.C is None:
        pytest.skip("C speedups not in use")
    clear_cache()
    with speedups.pure_python() if pure else nullcontext():
        first = chunk_file(source("a.gd", TEXT))
        (entry,) = cache._entries.values()
        assert isinstance(entry, bytes) == pure
        if not pure:
            assert not any(gc.is_tracked(x) for x in _containers(entry))
        dumps = [c.model_dump_json() for c in first]
        first[1].extra["syntax"]["annotations"].append("@mutated")
        first[1].extra["identifiers"].clear()
        second = chunk_file(source("b.gd", TEXT))
        moved = [c.model_dump_json().replace('"b.gd:', '"a.gd:').replace('"b.gd"', '"a.gd"') for c in second]
        assert moved == dumps
        second[0].extra["syntax"]["tool"] = True
        third = chunk_file(source("a.gd", TEXT))
        assert [c.model_dump_json() for c in third] == dumps
    clear_cache()


def test_cache_entry_read_by_the_other_implementation() -> None:
    """An entry made with C speedups on is read with them off (and the other way round)."""
    if speedups.compiled is None:
        pytest.skip("C speedups not built")
    saved = speedups.C
    try:
        for make, read in [(speedups.compiled, None), (None, speedups.compiled)]:
            clear_cache()
            speedups.C = make
            want = [c.model_dump_json() for c in chunk_file(source("a.gd", TEXT))]
            speedups.C = read
            assert [c.model_dump_json() for c in chunk_file(source("a.gd", TEXT))] == want
            assert cache.cache_info()["hits"] == 1
    finally:
        speedups.C = saved
        clear_cache()



def test_drafts_tree_copy_refuses_are_marshalled() -> None:
    clear_cache()
    drafts = [{"a": (1, 2), "b": ["x"]}]
    assert cache.cached_drafts(("k", "v", "p"), lambda: drafts) is drafts
    (entry,) = cache._entries.values()
    assert isinstance(entry, bytes)
    hit = cache.cached_drafts(("k", "v", "p"), lambda: [])
    assert hit == drafts and hit is not drafts and hit[0]["b"] is not drafts[0]["b"]
    clear_cache()
