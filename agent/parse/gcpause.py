"""Pause the cyclic garbage collector while one file is chunked.

Chunking allocates many short-lived containers (token lists, fact dicts, pydantic models) and
creates no reference cycles, so the collections it triggers find nothing to free: on the bench
corpus they cost about a tenth of parse+chunk CPU time, mostly full (gen2) collections that walk
every object of the process. Reference counting still frees everything as usual while paused.

Safe in a long-running, threaded process (the UI and bot chunk in `asyncio.to_thread`):

- Only the call that finds the collector enabled disables it, and only that call enables it
  again, in a `finally`. A call that finds it disabled (another thread's pause, or an
  application that turned it off on purpose) leaves it alone, so nesting or overlapping pauses
  can never leave it off: the collector is off at most for the duration of the owning call
  (one file), never for as long as some thread happens to be chunking.
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
