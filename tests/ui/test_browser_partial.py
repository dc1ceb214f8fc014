"""Issue 35 item 5: while the embedding fill runs, the chat says evidence is still partial, with its progress.

The UI's database is the test KB with half its docs vectors removed (what `ingest --no-vectors`
leaves before the fill reaches them); a snippet still gets its verdict, and the chat says how far
the fill has come: in the greeting, before the analysis and in the final answer.
"""

from __future__ import annotations

import re

import psycopg
import pytest

from tests.ui.chat_page import login, send, wait_verdict
from tests.ui.conftest import USERS

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(make_server, ui_db_factory):
    url = ui_db_factory()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE godot_rag.docs_chunks SET embedding = NULL WHERE id % 2 = 0")
        embedded, total = conn.execute(
            "SELECT count(embedding), count(*) FROM godot_rag.docs_chunks").fetchone()
        extra = conn.execute("SELECT count(*) FROM godot_rag.api_mapping").fetchone()[0] + conn.execute(
            "SELECT count(*) FROM godot_rag.label_prototypes").fetchone()[0]
    s = make_server(url)
    s.start()
    s.expected = (embedded + extra, total + extra)  # mappings and prototypes keep their vectors here
    yield s
    s.stop()


def test_chat_says_evidence_is_partial_with_the_fill_progress(server, browser, artifacts_dir):
    embedded, total = server.expected
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    login(page, server.url, "alice", USERS["alice"])
    notice = f"Evidence is still partial: {embedded:,} of {total:,} knowledge-base entries embedded"
    page.get_by_text(re.compile(re.escape(notice))).first.wait_for(timeout=10_000)  # in the greeting
    send(page, "extends KinematicBody2D\n\nfunc _physics_process(delta):\n\tmove_and_slide(Vector2.ZERO)\n")
    wait_verdict(page)
    page.wait_for_timeout(1000)
    shown = page.get_by_text(re.compile(re.escape(notice)))
    assert shown.count() >= 3, page.inner_text("body")[-3000:]  # greeting, before the analysis, in the answer
    shown.first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "ui-partial-evidence.png"))
    ctx.close()
