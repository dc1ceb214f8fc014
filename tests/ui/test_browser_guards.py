"""Guards a user never sees until they fail: foreign origins, other users' downloads, two UIs on one home.

Issue 16 items 1 and 7, issue 17 item 6. Real `godot-rag ui` servers, real headless chromium;
screenshots go to test-artifacts/.
"""

from __future__ import annotations

import http.server
import re
import threading
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import psycopg
import pytest

from tests.ui.chat_page import VIEWPORT, login, send, upload, wait_verdict
from tests.ui.conftest import USERS, UiServer, free_port

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures"

EVIL_PAGE = """<!doctype html><html><head><title>other origin</title></head><body>
<h1>A page on another origin</h1><pre id="out">running…</pre>
<script>
const chat = new URLSearchParams(location.search).get("chat");
const out = [];
async function probe(path) {
  try {
    const r = await fetch(chat + path, {credentials: "include"});
    out.push(path + ": READ " + r.status + " " + (await r.text()).slice(0, 60));
  } catch (e) { out.push(path + ": refused (" + e.name + ")"); }
}
function socket() {
  return new Promise(done => {
    const ws = new WebSocket(chat.replace("http", "ws") + "/ws/socket.io/?EIO=4&transport=websocket");
    ws.onopen = () => { out.push("websocket: OPEN"); ws.close(); done(); };
    ws.onerror = () => { out.push("websocket: refused"); done(); };
  });
}
(async () => {
  await probe("/user"); await probe("/project/threads"); await socket();
  document.getElementById("out").textContent = out.join("\\n");
  document.title = "done";
})();
</script></body></html>"""


@pytest.fixture(scope="module")
def other_origin():
    """A static page served from a second port of the same host (same site, other origin)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = EVIL_PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            return None

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _context_page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    return context, context.new_page()


def test_a_page_from_another_origin_is_refused(server, browser, other_origin, artifacts_dir):
    context, page = _context_page(browser)
    login(page, server.url, "alice", USERS["alice"])
    # The chat's own page reads the session (same origin).
    own = page.evaluate("async () => (await fetch('/user', {credentials: 'include'})).status")
    assert own == 200
    evil = context.new_page()
    evil.goto(f"{other_origin}/?chat={server.url}")
    evil.wait_for_function("document.title === 'done'", timeout=30_000)
    result = evil.locator("#out").inner_text()
    evil.screenshot(path=str(artifacts_dir / "ui-guard-other-origin-refused.png"))
    assert "READ" not in result and "OPEN" not in result, result
    assert result.count("refused") == 3, result
    # What the browser refused, the server refused too: no CORS grant, 403 before Chainlit.
    req = urllib.request.Request(server.url + "/user", headers={"Origin": other_origin})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 403 and err.value.headers.get("access-control-allow-origin") is None
    context.close()


def _element_key(database_url: str, name_like: str) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with psycopg.connect(database_url, autocommit=True) as conn:
            row = conn.execute(
                'SELECT "objectKey" FROM chainlit.elements WHERE name LIKE %s AND "objectKey" IS NOT NULL LIMIT 1',
                (name_like,),
            ).fetchone()
        if row:
            return row[0]
        time.sleep(0.5)
    raise AssertionError(f"no stored element named like {name_like!r}")


def _status(page, url: str) -> int:
    return page.evaluate("async u => (await fetch(u, {credentials: 'include'})).status", url)


def test_reports_and_uploads_download_only_for_their_owner(server, browser, artifacts_dir, tmp_path):
    archive = tmp_path / "alice_game.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(FIXTURES / "enemy.gd", "alice_game/enemy.gd")
    alice_ctx, alice = _context_page(browser)
    login(alice, server.url, "alice", USERS["alice"])
    upload(alice, [archive])
    wait_verdict(alice)
    report_url = "/godot-rag/files/" + _element_key(server.database_url, "godot-rag-%.json")
    upload_url = "/godot-rag/files/" + _element_key(server.database_url, "alice_game.zip")
    assert _status(alice, report_url) == 200 and _status(alice, upload_url) == 200
    report = alice.evaluate("async u => await (await fetch(u)).json()", report_url)
    assert report["owner"] == "chainlit:alice"

    bob_ctx, bob = _context_page(browser)
    login(bob, server.url, "bob", USERS["bob"])
    assert _status(bob, report_url) == 404 and _status(bob, upload_url) == 404
    bob.goto(server.url + upload_url)  # what bob would see following a leaked link
    bob.screenshot(path=str(artifacts_dir / "ui-guard-other-users-download-refused.png"))
    with pytest.raises(urllib.error.HTTPError) as err:  # no login at all
        urllib.request.urlopen(server.url + report_url, timeout=10)
    assert err.value.code == 401
    # Nothing of it sits in Chainlit's public folder, which is served without a login.
    public = list((server.home / "chainlit_app").glob("*/public/files/**/*"))
    assert public == []
    alice_ctx.close()
    bob_ctx.close()


def test_two_uis_on_one_home_one_stopped_the_other_still_analyses(
    make_server, browser, artifacts_dir, tmp_path
):
    first = make_server()
    second = UiServer(first.database_url, first.home, artifacts_dir / "ui-server-second.log")
    second.log_path.write_bytes(b"")
    first.start()
    second.start()
    try:
        first.stop()
        context, page = _context_page(browser)
        login(page, second.url, "alice", USERS["alice"])
        upload(page, [FIXTURES / "enemy.gd"])
        verdict = wait_verdict(page)
        assert "godot3" in verdict.inner_text()
        send(page, (FIXTURES / "mixed_project" / "player.gd").read_text())
        page.get_by_text(re.compile(r"^Verdict: ")).nth(1).wait_for(timeout=150_000)
        page.get_by_text(re.compile(r"^Verdict: ")).nth(1).scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts_dir / "ui-two-uis-one-stopped.png"))
        assert "FileNotFoundError" not in page.locator("body").inner_text()
        assert "Something went wrong" not in page.locator("body").inner_text()
        context.close()
    finally:
        second.stop()
