"""Issue 35 item 4: the changes table (where / Godot 3 / Godot 4 / source) fits the screen.

At 1,280 px old and new sit side by side with no sideways scrolling (long code wraps in its cell);
at 390 px each item stacks (where, then Godot 3, then Godot 4). The checks read the DOM's geometry;
the screenshots go to test-artifacts/ (not committed) so a reviewer of a run sees the layout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.chat_page import PHONE, login, send, wait_verdict
from tests.ui.conftest import USERS

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures"
DESKTOP = {"width": 1280, "height": 900}

GEOMETRY = """() => {
  const table = [...document.querySelectorAll('table.godot-rag-changes')].pop();
  if (!table) return null;
  const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map(box));
  const scroller = table.closest('.markdown-body, .prose') || table.parentElement;
  return {table: box(table), scrollWidth: table.scrollWidth, clientWidth: table.clientWidth,
          parentScroll: scroller.scrollWidth, parentClient: scroller.clientWidth,
          viewport: document.documentElement.clientWidth, rows,
          labels: [...table.querySelectorAll('tbody tr:first-child td')].map((td) => getComputedStyle(td, '::before').content)};
}"""


def _changes(page) -> dict:
    page.wait_for_function("() => document.querySelector('table.godot-rag-changes')", timeout=10_000)
    page.wait_for_timeout(500)  # the layout settles after the tag and the media query apply
    return page.evaluate(GEOMETRY)


def test_changes_table_fits_a_desktop_and_stacks_on_a_phone(server, browser, artifacts_dir):
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    login(page, server.url, "alice", USERS["alice"])
    send(page, "What must change for Godot 4?\n" + (FIXTURES / "long_changes.gd").read_text())
    wait_verdict(page)
    page.wait_for_timeout(1500)  # the answer re-renders once its report file is attached
    heading = page.get_by_text("What to change").last
    heading.evaluate("e => e.scrollIntoView({block: 'start'})")

    g = _changes(page)
    assert g and len(g["rows"]) >= 3, g
    page.screenshot(path=str(artifacts_dir / "changes-1280.png"))
    # no sideways scrolling: the table is no wider than its box, and its box no wider than the screen
    assert g["scrollWidth"] <= g["clientWidth"] + 1, g
    assert g["parentScroll"] <= g["parentClient"] + 1, g
    assert g["table"]["right"] <= g["viewport"], g
    for cells in g["rows"]:
        where, old, new = cells[:3]
        assert new["right"] <= g["viewport"] and new["left"] >= 0, cells  # the Godot 4 cell is on screen
        assert where["right"] <= old["left"] + 1 and old["right"] <= new["left"] + 1, cells  # side by side
        assert abs(old["top"] - new["top"]) < 2, cells

    page.set_viewport_size(PHONE)
    page.wait_for_timeout(500)
    heading.evaluate("e => e.scrollIntoView({block: 'start'})")
    g = _changes(page)
    page.screenshot(path=str(artifacts_dir / "changes-390.png"))
    assert g["scrollWidth"] <= g["clientWidth"] + 1, g
    assert g["table"]["right"] <= g["viewport"] + 1, g
    for cells in g["rows"]:
        where, old, new = cells[:3]
        assert where["bottom"] <= old["top"] + 1 and old["bottom"] <= new["top"] + 1, cells  # stacked
        assert new["right"] <= g["viewport"] + 1 and new["left"] >= 0, cells
    assert g["labels"][:3] == ['"where"', '"Godot 3"', '"Godot 4"'], g["labels"]
    ctx.close()
