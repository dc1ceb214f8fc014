"""What a user does in the chat, as playwright steps (login, send, upload, open a trace)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

VIEWPORT = {"width": 1400, "height": 1000}
ANALYSIS_TIMEOUT_MS = 150_000


def login(page, base_url: str, user: str, password: str) -> dict[str, float]:
    """Log in through the form; returns timings (login page shown, chat ready) in seconds."""
    t0 = time.monotonic()
    page.goto(base_url + "/")
    page.locator("input[type=password]").wait_for()
    shown = time.monotonic() - t0
    page.locator("input").first.fill(user)
    page.locator("input[type=password]").fill(password)
    t1 = time.monotonic()
    page.get_by_role("button", name="Sign In").click()
    page.get_by_text("Send me one of these").first.wait_for(timeout=60_000)
    return {"login_page_s": shown, "chat_ready_after_login_s": time.monotonic() - t1}


def send(page, text: str) -> float:
    """Type a message and submit it; returns the monotonic time of the click."""
    page.locator("#stop-button").wait_for(state="detached", timeout=ANALYSIS_TIMEOUT_MS)
    for _ in range(3):  # the composer may re-render right after a reply and drop what was typed
        page.locator("#chat-input").fill(text)
        try:
            page.locator("#chat-submit:not([disabled])").click(timeout=5_000)
            return time.monotonic()
        except PlaywrightTimeout:
            continue
    raise AssertionError("the message could not be sent")


def upload(page, paths: list[Path], text: str = "") -> float:
    """Attach files with the paperclip input, then submit."""
    page.locator("#upload-button-input").set_input_files([str(p) for p in paths])
    for p in paths:
        page.get_by_text(p.name).first.wait_for()
    page.wait_for_function("() => !document.querySelector('#chat-submit').disabled", timeout=30_000)
    if text:
        page.locator("#chat-input").fill(text)
    page.locator("#chat-submit").click()
    return time.monotonic()


def wait_verdict(page, timeout_ms: int = ANALYSIS_TIMEOUT_MS,
                 label: str | re.Pattern[str] = re.compile(r"^Verdict: ")):
    """The final answer's verdict heading (`label`: its text in the reply's language, `판정:` in Korean)."""
    heading = page.get_by_text(label).last
    heading.wait_for(timeout=timeout_ms)
    # The run's last updates (answer, task list) re-render the message: wait until the run has ended.
    page.locator("#stop-button").wait_for(state="detached", timeout=timeout_ms)
    return heading


def open_trace(page, step_name_part: str, scroll_to: str | None = None) -> str:
    """Expand the per-chunk trace and the chunk step whose name contains `step_name_part`; its text."""
    root = page.locator("[id='step-Per-chunk trace']").last
    if root.get_attribute("aria-expanded") != "true":
        root.click()
    button = page.locator(f"button[id^='step-#'][id*='{step_name_part}']").last
    for _ in range(3):  # a project's traces sit under their file, neutral chunks in a folded group
        if button.count():
            break
        for group in page.locator("button[id^='step-']:not([id^='step-#'])[aria-expanded='false']").all():
            if group.get_attribute("id") != "step-Per-chunk trace":
                group.click()
        page.wait_for_timeout(300)
    button.wait_for()
    if button.get_attribute("aria-expanded") != "true":
        button.click()
    content = page.locator(f"[id='{button.get_attribute('aria-controls')}']")
    content.wait_for()
    if scroll_to:
        page.wait_for_timeout(400)  # let the expand animation finish before scrolling
        content.get_by_text(scroll_to).first.evaluate("e => e.scrollIntoView({block: 'center'})")
    else:
        button.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    return content.inner_text()


def trace_section(text: str, heading: str, next_heading: str) -> str:
    """The part of a trace between two of its headings."""
    start = text.index(heading) + len(heading)
    return text[start:text.index(next_heading, start)].strip()


PHONE = {"width": 390, "height": 844}


def axe_violations(page, rules: tuple[str, ...] = ("color-contrast", "button-name", "link-name", "image-alt")) -> list[dict]:
    """axe-core (shipped inside the axe-playwright-python wheel, nothing downloaded) run in the page."""
    from axe_playwright_python.sync_playwright import Axe

    options = {"runOnly": {"type": "rule", "values": list(rules)}, "resultTypes": ["violations"]}
    results = Axe().run(page, options=options)
    return [
        {"rule": v["id"], "help": v.get("help"),
         "nodes": [(n.get("target"), (n.get("html") or "")[:160], (n.get("failureSummary") or "")[:200])
                   for n in v.get("nodes", [])][:5]}
        for v in results.response.get("violations", [])
    ]


def clipped_tables(page) -> list[str]:
    """Tables and code blocks that stick out of the viewport or cut their content without a scrollbar."""
    return page.evaluate(
        """() => {
        const out = [];
        const w = document.documentElement.clientWidth;
        for (const el of document.querySelectorAll('.markdown-body table, .prose table, .markdown-body pre, .prose pre')) {
          if (!el.offsetParent) continue;  // folded away
          const r = el.getBoundingClientRect();
          const style = getComputedStyle(el);
          const scrolls = ['auto', 'scroll'].includes(style.overflowX);
          if (r.right > w + 1 || (el.scrollWidth > el.clientWidth + 1 && !scrolls))
            out.push(el.tagName + ' ' + Math.round(r.right) + '/' + w + ' ' + el.innerText.slice(0, 40));
        }
        return out;
      }"""
    )
