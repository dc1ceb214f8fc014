"""Retrieval fixtures: a pool and a retriever on the session KB database."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def kb_pool(kb_settings):
    from agent.storage import make_pool

    pool = make_pool(kb_settings, min_size=1, max_size=4)
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def retriever(kb_settings, kb_pool, embedder):
    from agent.retrieve import Retriever

    return Retriever(kb_settings, kb_pool, embedder=embedder)
