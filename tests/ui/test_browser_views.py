"""What a user sees (issue 17): citations at their anchor, a zip's per-file table, a phone, errors,
branding and accessibility. One `godot-rag ui` server; screenshots in test-artifacts/ui-view-*.png.
"""

from __future__ import annotations

import html
import re
import zipfile
from pathlib import Path

import pytest

from tests.ui.chat_page import (
    PHONE,
    VIEWPORT,
    axe_violations,
    clipped_tables,
    login,
    open_trace,
    send,
    upload,
    wait_verdict,
)
from tests.ui.conftest import USERS

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures"
DOCS = "https://docs.godotengine.org/"


@pytest.fixture(scope="module")
def server(make_server):
    s = make_server(GODOT_RAG_CLONE_TIMEOUT="10")
    s.start()
    yield s
    s.stop()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport=VIEWPORT)
    yield ctx
    ctx.close()


def _shot(page, artifacts_dir: Path, name: str, full: bool = False) -> None:
    page.screenshot(path=str(artifacts_dir / f"ui-view-{name}.png"), full_page=full)


def _docs_site(anchor: str):
    """Stand-in for docs.godotengine.org (no internet here): a long page with the member's anchor far down.

    The fragment never reaches a server, so the page is made for the anchor the test expects; the
    browser's own fragment navigation has to bring it into view.
    """
    filler = "".join(f"<p>filler {i}</p>" for i in range(200))
    body = f"<!doctype html><title>docs</title>{filler}<h2 id='{html.escape(anchor)}'>member</h2>{filler}"

    def handle(route) -> None:
        route.fulfill(content_type="text/html", body=body)

    return handle


def test_a_citation_opens_its_members_anchor(server, context, artifacts_dir):
    page = context.new_page()
    login(page, server.url, "alice", USERS["alice"])
    send(page, "Is this Godot 4?\n" + (FIXTURES / "mixed_project" / "player.gd").read_text())
    wait_verdict(page)
    trace = open_trace(page, "_process", scroll_to="Candidates found")
    assert "✓" in trace, "the evidence the judgment used is marked"
    assert "declaration_group" not in trace and "label_prototypes" not in trace and "docs_chunks" not in trace
    # A member's citation links that member's anchor on its own class page (the class reference's Sphinx ids).
    member = re.compile(r"/class_@?(\w+)\.html#class-\1-[\w-]+$")  # `class_@gdscript.html#class-gdscript-...`
    links = page.locator("a[href*='docs.godotengine.org'][href*='#class-']")
    hrefs = [a.get_attribute("href") for a in links.all()]
    assert hrefs and all(member.search(h) for h in hrefs), hrefs
    link = links.first
    href = hrefs[0]
    link.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "citation-in-trace")
    context.route(DOCS + "**", _docs_site(href.partition("#")[2]))
    if link.get_attribute("target") == "_blank":
        with context.expect_page() as opened:
            link.click()
        docs = opened.value
    else:
        link.click()
        docs = page
    docs.wait_for_load_state()
    docs.bring_to_front()
    anchor = href.partition("#")[2]
    assert docs.url.endswith("#" + anchor)
    docs.locator(f"[id='{anchor}']").wait_for()
    assert docs.evaluate("() => document.querySelector(':target') && document.querySelector(':target').id") == anchor
    docs.locator(":target").scroll_into_view_if_needed()  # a background tab in headless chromium may not scroll
    _shot(docs, artifacts_dir, "citation-opened-anchor")


def _mixed_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for f in sorted((FIXTURES / "mixed_project").iterdir()):
            zf.write(f, f"crate_runner/{f.name}")
    return path


def test_a_zip_project_gets_a_per_file_table(server, context, artifacts_dir, tmp_path):
    page = context.new_page()
    login(page, server.url, "bob", USERS["bob"])
    upload(page, [_mixed_zip(tmp_path / "crate_runner.zip")])
    wait_verdict(page)
    page.wait_for_timeout(1500)  # the answer re-renders once its report file is attached
    heading = page.get_by_text(re.compile(r"^Files \(\d+\)$")).last
    heading.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "zip-per-file-table")
    table = heading.locator("xpath=following::table[1]")
    rows = [r.inner_text() for r in table.locator("tbody tr").all()]
    assert rows[0].startswith("mob.gd") and "needs work" in rows[0], rows  # worst file first
    assert any(r.startswith("player.gd") and "Godot 4" in r for r in rows), rows
    assert len(rows) == 5
    assert all(re.search(r"#\d", r) for r in rows), "every file links its chunks by number"
    # Sources are numbered, and each names its own id as code.
    sources = page.get_by_text(re.compile(r"^Sources$")).last
    assert sources.count() == 1
    items = sources.locator("xpath=following::ol[1]/li")
    assert items.count() >= 1 and all(li.locator("code").count() == 1 for li in items.all())
    assert any(li.locator("a[href*='docs.godotengine.org']").count() for li in items.all())


def test_phone_viewport_has_no_clipped_table_and_code_keeps_its_lines(server, browser, artifacts_dir):
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    page = ctx.new_page()
    login(page, server.url, "alice", USERS["alice"])
    send(page, (FIXTURES / "enemy.gd").read_text())
    verdict = wait_verdict(page)
    verdict.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "phone-verdict")
    assert clipped_tables(page) == []
    open_trace(page, "extends line", scroll_to="Candidates found")
    _shot(page, artifacts_dir, "phone-trace")
    assert clipped_tables(page) == []
    spaces = page.evaluate(
        "() => [...document.querySelectorAll('.markdown-body pre code, .prose pre code,"
        " table:not(.godot-rag-changes) td code')]"
        ".filter(e => e.offsetParent).map(e => getComputedStyle(e).whiteSpace)"
    )
    assert spaces and set(spaces) == {"pre"}, spaces
    # The message box stays on screen and usable.
    box = page.locator("#chat-input")
    assert box.is_visible() and box.bounding_box()["y"] + box.bounding_box()["height"] <= PHONE["height"]
    ctx.close()


def test_failed_fetch_prose_and_wrong_password_get_human_messages(server, context, artifacts_dir):
    page = context.new_page()
    page.goto(server.url + "/")
    page.locator("input[type=password]").wait_for()
    page.locator("input").first.fill("alice")
    page.locator("input[type=password]").fill("wrong-password")
    page.get_by_role("button", name="Sign In").click()
    page.wait_for_timeout(2000)
    _shot(page, artifacts_dir, "login-wrong-password")
    page.get_by_text("Wrong user name or password").wait_for(timeout=15_000)
    assert "credentialssignin" not in page.locator("body").inner_text().lower()
    assert "Godot RAG" in page.evaluate("async () => await (await fetch('/logo?theme=light')).text()")
    _shot(page, artifacts_dir, "login-wrong-password")

    login(page, server.url, "alice", USERS["alice"])
    send(page, "hello, can you help me port my game?")
    page.get_by_text("I answer from your code").last.wait_for(timeout=30_000)
    assert page.get_by_text(re.compile(r"^Verdict: ")).count() == 0
    send(page, "https://github.com/godot-rag-test-owner/no-such-repo")
    reply = page.get_by_text(re.compile(r"Could not fetch ")).last
    reply.wait_for(timeout=60_000)
    text = reply.inner_text()
    assert "public" in text and "fatal" not in text.lower() and "remote:" not in text
    assert "Reading the source" not in page.locator("body").inner_text()
    reply.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "failed-fetch")


def test_file_only_first_message_leaves_no_empty_bubble_and_feedback_works(server, context, artifacts_dir):
    page = context.new_page()
    login(page, server.url, "bob", USERS["bob"])
    upload(page, [FIXTURES / "enemy.gd"])
    wait_verdict(page)
    empty = page.evaluate(
        "() => [...document.querySelectorAll('[data-step-type=user_message]')]"
        ".filter(m => !m.innerText.trim() && !m.querySelector('a, img, [class*=file]')).length"
    )
    _shot(page, artifacts_dir, "file-only-message")
    assert empty == 0
    thumbs = page.locator(".positive-feedback-off").last
    thumbs.wait_for()
    assert thumbs.is_enabled()
    thumbs.click()
    page.locator("[role=dialog] textarea").fill("file-only feedback works")
    page.locator("#submit-feedback").click()
    page.locator(".positive-feedback-on").last.wait_for(timeout=15_000)


def test_accessibility_names_contrast_tab_order_and_examples(server, context, artifacts_dir):
    page = context.new_page()
    page.goto(server.url + "/")
    page.locator("input[type=password]").wait_for()
    assert axe_violations(page) == []
    login(page, server.url, "alice", USERS["alice"])
    page.get_by_role("button", name=re.compile("Try: a Godot 3")).click()
    wait_verdict(page)
    page.wait_for_timeout(500)
    violations = axe_violations(page)
    _shot(page, artifacts_dir, "a11y-example-verdict")
    assert violations == [], violations
    # From a fresh load, the message box is a few Tab presses away (skip link first).
    page.goto(server.url + "/")
    page.locator("#chat-input").wait_for()
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # start at the top
    presses = 0
    while presses < 10 and page.evaluate("document.activeElement && document.activeElement.id") != "chat-input":
        page.keyboard.press("Tab")
        presses += 1
        if page.evaluate("document.activeElement && document.activeElement.id") == "godot-rag-skip":
            page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "chat-input", presses
    assert presses <= 3
