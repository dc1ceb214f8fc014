"""Pause the cyclic garbage collector while one file, or one project, is chunked.

Chunking allocates many short-lived containers (token lists, fact dicts, pydantic models) and
creates no reference cycles, so the collections it triggers find nothing to free: on the bench
corpus they cost about a tenth of parse+chunk CPU time, mostly full (gen2) collections that walk
every object of the process. Reference counting still frees everything as usual while paused.

`chunk_file` pauses for one file; `chunk_project` (what the graph's parse node runs) pauses once
for the whole project. A per-file pause is not enough there: the chunks of the files already
done stay alive in the project's result list, they push the allocation counters over the
thresholds, and the collections that then run between files walk all of them again, for
nothing. One project is a bounded amount of acyclic work (intake caps it at `max_files` files
and `max_total_bytes` bytes; at the bench's ~4 MB/s that is seconds at the very worst, a
fraction of a second for a typical project), so the collector is never off for an unbounded
time. The only cost of the longer pause: cyclic garbage that *other* threads make meanwhile
waits until the pause ends, which is the same batching described below.

Safe in a long-running, threaded process (the UI and bot chunk in `asyncio.to_thread`):

- Only the call that finds the collector enabled disables it, and only that call enables it
  again, in a `finally`. A call that finds it disabled (another thread's pause, or an
  application that turned it off on purpose) leaves it alone, so nesting or overlapping pauses
  can never leave it off: the collector is off at most for the duration of the owning call
  (one file or one project), never for as long as some thread happens to be chunking.
- The check and the disable happen under one lock, so two threads cannot both become owner.
  A thread whose pause started under another thread's may finish with the collector on again:
  that only costs it the speed-up.
- Objects allocated while paused still count towards the next collection, which runs as soon as
  the collector is back on and the threshold is passed: nothing is skipped, only batched.

`gc.freeze()` was not used: it is process-wide and would belong to the application, not to a
library call.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off, if it was on; restore it on the way out."""
    with _lock:
        owner = gc.isenabled()
        if owner:
            gc.disable()
    try:
        yield
    finally:
        if owner:
            gc.enable()
