"""Judge fixtures: the KB retriever (shared with tests/retrieve) and the evidence judge."""

from __future__ import annotations

import pytest

from tests.retrieve.conftest import kb_pool, retriever  # noqa: F401  (re-exported fixtures)


@pytest.fixture(scope="session")
def evidence_judge():
    from agent.judge.evidence import EvidenceJudge

    return EvidenceJudge()
