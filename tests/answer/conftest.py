"""Answer fixtures: the real service on a fresh KB database (runs are written), sharing the real model."""

from __future__ import annotations

import pytest_asyncio

from agent.settings import PROJECT_ROOT

FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "projects"


@pytest_asyncio.fixture(loop_scope="session", scope="session")
async def answer_service(kb_template, admin_url, base_settings, embedder):
    """One AnalysisService (evidence judge, no LLM) on a database cloned from the KB template."""
    import uuid

    from agent.graph.service import AnalysisService
    from tests.conftest import _create_db, _db_url, _drop_db

    name = f"godot_rag_answer_{uuid.uuid4().hex[:10]}"
    _create_db(admin_url, name, template=kb_template)
    settings = base_settings.with_(database_name=name, database_url=_db_url(admin_url, name), llm_base_url=None,
                                   judge="evidence")
    svc = await AnalysisService.create(settings, embedder=embedder)
    yield svc
    await svc.close()
    _drop_db(admin_url, name)


async def analyze_snippet(svc, text: str, prompt: str, on_event=None) -> dict:
    """Analyze a paste (a snippet or a `# path` expansion) and return the report."""
    from agent.intake import intake_snippet

    return await svc.analyze(intake_snippet(text, prompt=prompt, settings=svc.settings), owner="test:answer",
                             on_event=on_event)
