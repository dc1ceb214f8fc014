"""The answer in a real browser: an "explain" question gets the streamed, cited explanation; a follow-up answers.

One `godot-rag ui` server (own KB database, no LLM: the template writes the answer) serves this module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.ui.chat_page import VIEWPORT, login, send, wait_verdict
from tests.ui.conftest import USERS

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def server(make_server):
    s = make_server()
    s.start()
    yield s
    s.stop()


def test_explain_question_and_a_followup(server, browser, artifacts_dir):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        login(page, server.url, "alice", USERS["alice"])
        send(page, "What does this code do?\n# player.gd\n" + (FIXTURES / "mixed_project" / "player.gd").read_text())
        wait_verdict(page)
        heading = page.get_by_text("What the code does").first
        heading.wait_for(timeout=60_000)
        body = page.locator("body").inner_text()
        assert "Input.is_action_pressed" in body and re.search(r"\[\d+\] .+ — https://docs\.godotengine\.org", body)
        page.screenshot(path=str(artifacts_dir / "ui-answer-explain.png"))
        send(page, "解释 _process")
        page.get_by_text("这段代码做什么").last.wait_for(timeout=60_000)
        assert "func _process(delta):" in page.locator("body").inner_text()
        page.screenshot(path=str(artifacts_dir / "ui-answer-followup.png"))
    finally:
        context.close()
