"""The migration on the test knowledge base (real Postgres: its mapping rows, its API index and pages)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agent.judge.project import knowledge_context
from agent.storage.db import make_pool


@pytest.fixture(scope="session")
def kb(kb_settings):
    pool = make_pool(kb_settings, min_size=1, max_size=2)
    try:
        yield knowledge_context(SimpleNamespace(settings=kb_settings, pool=pool))
    finally:
        pool.close()
