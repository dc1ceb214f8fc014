"""Issue 35 in a real browser: a Korean question gets a Korean reply (no English outside code, links and the
docs' own quoted words), and the issue's three follow-ups get specific answers, without an LLM.

Screenshots go to test-artifacts/ (not committed) so a reviewer of a run sees the replies.
"""

from __future__ import annotations


import pytest

from tests.answer.test_followup_table import english_outside_code
from tests.ui.chat_page import VIEWPORT, login, send, wait_verdict
from tests.ui.conftest import USERS

pytestmark = pytest.mark.browser

PLAYER = """extends KinematicBody2D

signal died

export var speed = 200
var velocity = Vector2()

func _physics_process(delta):
    velocity = move_and_slide(velocity, Vector2.UP)
    yield(get_tree().create_timer(1.0), "timeout")
"""

# The reply's prose as a reader sees it: code, links and docs quotes taken out, the rest as Markdown-ish text.
PROSE = """(needle) => {
  const bodies = [...document.querySelectorAll('.markdown-body, .prose')].filter((b) => b.innerText.includes(needle));
  const body = bodies.pop();
  if (!body) return null;
  const copy = body.cloneNode(true);
  // a sources list names its records (titles are API names): dropped with its heading
  copy.querySelectorAll('h1, h2, h3, h4, h5').forEach((h) => {
    if (/^(Sources|출처|来源|Источники)$/.test(h.innerText.trim()) && h.nextElementSibling) h.nextElementSibling.remove();
  });
  copy.querySelectorAll('pre, code, a, blockquote').forEach((e) => e.replaceWith(' '));
  return copy.innerText;
}"""


def _count(page, text: str) -> int:
    return page.evaluate("(t) => document.body.innerText.split(t).length - 1", text)


def test_a_korean_question_and_the_issues_three_followups(server, browser, artifacts_dir):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        login(page, server.url, "alice", USERS["alice"])
        send(page, "이 코드 Godot 4로 바꿔야 해? 무슨 뜻이야?\n" + PLAYER)
        wait_verdict(page, 180_000, label="판정:")
        page.wait_for_timeout(1000)
        for needle in ("이 코드는", "판정:"):  # the answer, then the verdict block and the changes table
            prose = page.evaluate(PROSE, needle) or ""
            assert prose and english_outside_code(prose) == [], (needle, prose)
        page.get_by_text("판정:").last.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(artifacts_dir / "korean-reply.png"), full_page=False)

        asks = (("How do I write the yield line in Godot 4?", "await get_tree().create_timer(1.0).timeout"),
                ("what replaces yield in Godot 4?", "await get_tree().create_timer(1.0).timeout"),
                ("4번 청크 설명해줘", "코드가 하는 일"))
        for question, shows in asks:
            seen = _count(page, shows)
            send(page, question)
            page.wait_for_function("([t, n]) => document.body.innerText.split(t).length - 1 > n", arg=[shows, seen],
                                   timeout=60_000)
            page.wait_for_timeout(500)
            texts = page.locator("body").inner_text().split(question)[-1]  # what came after the question
            assert "Ask about one of them" not in texts and "처럼 물어보세요" not in texts, (question, texts)
        assert "_physics_process" in texts  # chunk 4 is the function
        page.get_by_text("How do I write the yield line in Godot 4?").last.evaluate(
            "e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(artifacts_dir / "followups.png"), full_page=False)
    finally:
        context.close()
