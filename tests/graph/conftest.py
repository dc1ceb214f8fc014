"""Fixtures for the graph tests: one service on the session KB database, sharing the real model."""

from __future__ import annotations

import pytest

from agent.intake import IntakeResult
from tests.graph.projects import expansion_of, request_for


@pytest.fixture(scope="session")
async def service(kb_settings, embedder):
    """The real AnalysisService (checkpointer, retriever, judges) on the session KB database."""
    from agent.graph.service import AnalysisService

    svc = await AnalysisService.create(kb_settings, embedder=embedder)
    yield svc
    await svc.close()


def intake_of(files, *, prompt: str = "", origin: str = "local_directory", project_id: str = "p-test") -> IntakeResult:
    """An IntakeResult for hand-written files (the intake module is tested on its own)."""
    exp = expansion_of(files)
    return IntakeResult(request=request_for(exp, prompt=prompt, origin=origin, project_id=project_id), expansion=exp)
