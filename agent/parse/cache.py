"""In-process cache of chunk drafts keyed by (source_sha256, source_kind, parser version).

Drafts carry no path, so the same file under another prompt, upload or path is not parsed
again. Every hit gets fresh objects, so a caller mutating its chunks can never change the
cache. With the C speedups an entry is a private copy of the drafts (`_speedups.tree_copy`:
dicts and lists copied, strs and other immutable leaves shared with the chunks handed out; no
container of it is GC-tracked, so collections never walk the cache) and a hit copies it again;
without them, or for drafts it cannot copy, an entry is the drafts marshalled. Bounded LRU so
a long-running UI or bot process does not grow without limit.
"""

from __future__ import annotations

import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from agent.parse import speedups

_MAX_ENTRIES = 4096
_lock = threading.Lock()
_entries: OrderedDict[tuple[str, str, str], bytes | list[dict[str, Any]]] = OrderedDict()
_stats = {"hits": 0, "misses": 0}


def cached_drafts(
    key: tuple[str, str, str], build: Callable[[], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Drafts for `key`, built once; the caller owns the returned objects."""
    with _lock:
        hit = _entries.get(key)
        if hit is not None:
            _entries.move_to_end(key)
            _stats["hits"] += 1
    if hit is not None:
        return _thaw(hit)
    drafts = build()
    frozen = _freeze(drafts)
    with _lock:
        _stats["misses"] += 1
        _entries[key] = frozen
        while len(_entries) > _MAX_ENTRIES:
            _entries.popitem(last=False)
    return drafts


def _freeze(drafts: list[dict[str, Any]]) -> bytes | list[dict[str, Any]]:
    """What the cache keeps of `drafts`: an untracked C copy, or the marshalled bytes."""
    c = speedups.C
    if c is not None:
        try:
            return c.tree_copy(drafts, True)  # type: ignore[no-any-return]
        except TypeError:  # something other than dicts, lists and immutable leaves: marshal copes
            pass
    return marshal.dumps(drafts)


def _thaw(frozen: bytes | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fresh drafts from a cache entry; the entry itself is never handed out."""
    if isinstance(frozen, bytes):
        return marshal.loads(frozen)  # type: ignore[no-any-return]
    c = speedups.C
    if c is not None:
        return c.tree_copy(frozen, False)  # type: ignore[no-any-return]
    return marshal.loads(marshal.dumps(frozen))  # type: ignore[no-any-return]


def cache_info() -> dict[str, int]:
    """Hits, misses and current size (tests and the debug screen read this)."""
    with _lock:
        return {**_stats, "size": len(_entries)}


def clear_cache() -> None:
    """Forget every entry and reset the counters (tests, benches)."""
    with _lock:
        _entries.clear()
        _stats.update(hits=0, misses=0)
