"""Which implementation of the hot parse paths runs: the optional C extension or pure Python.

`agent.parse._speedups` (built from `_speedups.c` by `pip install -e .`, optional) does the
comment masking and the token scan of `agent.parse.facts` / `agent.parse.scan` in C; the
Python functions stay the reference, the fallback when the extension is missing, and what
tests compare it against. GODOT_RAG_PURE_PYTHON_PARSE=1 forces the pure-Python path.
Both give byte-identical chunks, so the parse cache key does not depend on which one ran.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

ENV_PURE = "GODOT_RAG_PURE_PYTHON_PARSE"

try:
    from agent.parse import _speedups as compiled
except ImportError:  # not built (no compiler at install time): the Python code runs
    compiled = None

C: ModuleType | None = None if os.environ.get(ENV_PURE, "") not in ("", "0") else compiled
"""The extension when it is in use, else None; read at call time, so `pure_python()` can swap it."""


def implementation() -> str:
    """`"C speedups"` or `"pure Python"`: what parse calls made now would run."""
    return "C speedups" if C is not None else "pure Python"


@contextmanager
def pure_python() -> Iterator[None]:
    """Run the pure-Python path inside the block (benches and equivalence tests)."""
    global C
    saved, C = C, None
    try:
        yield
    finally:
        C = saved
