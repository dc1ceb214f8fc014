"""The answer in a real browser: an "explain" question gets the streamed, cited explanation; a follow-up answers.

One `godot-rag ui` server (own KB database, no LLM: the template writes the answer) serves this module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.graph.projects import PLAYER_G3
from tests.ui.chat_page import VIEWPORT, login, send, wait_verdict
from tests.ui.conftest import USERS

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures"


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



def test_show_me_the_godot4_version_in_english_and_korean(server, browser, artifacts_dir):
    """The 7-line snippet gets complete Godot 4 code from the migration engine, in both languages, with the patch."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        login(page, server.url, "alice", USERS["alice"])
        send(page, "show me the Godot 4 version\n" + PLAYER_G3)
        wait_verdict(page)
        page.get_by_text("await get_tree().create_timer(1.0).timeout").first.wait_for(timeout=60_000)
        body = page.locator("body").inner_text()
        blocks = [t for t in page.locator("pre").all_inner_texts() if "extends CharacterBody2D" in t]
        assert blocks, "a code block with the Godot 4 version"
        for line in ("@export var speed = 200", "up_direction = Vector2.UP", "move_and_slide()",
                     "await get_tree().create_timer(1.0).timeout"):
            assert line in blocks[-1], line
        assert "var velocity" not in blocks[-1] and "yield" not in blocks[-1]
        assert re.search(r"godot4-[\w-]+\.diff", body), "the patch is offered as a download"
        page.screenshot(path=str(artifacts_dir / "ui-answer-godot4-version.png"))
        before = page.locator("pre").count()
        send(page, "Godot 4 버전 보여줘")
        godot4 = page.locator("pre", has_text="extends CharacterBody2D")
        page.wait_for_function("n => document.querySelectorAll('pre').length > n", arg=before, timeout=60_000)
        godot4.nth(1).wait_for(timeout=60_000)  # a second code block: the Korean reply's
        again = godot4.nth(1).inner_text()
        assert "await get_tree().create_timer(1.0).timeout" in again and "var velocity" not in again
        godot4.nth(1).scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts_dir / "ui-answer-godot4-version-ko.png"))
    finally:
        context.close()
