"""In-process cache of chunk drafts keyed by (source_sha256, source_kind, parser version).

Drafts carry no path, so the same file under another prompt, upload or path is not parsed
again. An entry is the drafts marshalled (one bytes object: collections never walk it), and
every hit unmarshals fresh objects, so a caller mutating its chunks can never change the
cache. Bounded LRU so a long-running UI or bot process does not grow without limit.
"""

from __future__ import annotations

import marshal
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

_MAX_ENTRIES = 4096
_lock = threading.Lock()
_entries: OrderedDict[tuple[str, str, str], bytes] = OrderedDict()
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
        return marshal.loads(hit)  # type: ignore[no-any-return]
    drafts = build()
    frozen = marshal.dumps(drafts)
    with _lock:
        _stats["misses"] += 1
        _entries[key] = frozen
        while len(_entries) > _MAX_ENTRIES:
            _entries.popitem(last=False)
    return drafts


def cache_info() -> dict[str, int]:
    """Hits, misses and current size (tests and the debug screen read this)."""
    with _lock:
        return {**_stats, "size": len(_entries)}


def clear_cache() -> None:
    """Forget every entry and reset the counters (tests, benches)."""
    with _lock:
        _entries.clear()
        _stats.update(hits=0, misses=0)
