"""The web chat in a real browser: paste, upload, traces, verdicts, login (flows 1, 2, 3 and 5).

One `godot-rag ui` server (own KB database) serves this module; every flow saves a screenshot
under test-artifacts/. Timings (first load, time to verdict) go to test-artifacts/ui-timings.json.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import psycopg
import pytest

from tests.ui.chat_page import VIEWPORT, login, open_trace, send, trace_section, upload, wait_verdict
from tests.ui.conftest import USERS

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures"
TIMINGS: dict[str, float] = {}


@pytest.fixture(scope="module")
def server(make_server, artifacts_dir: Path):
    # A small paste limit so the over-limit message is cheap to trigger; no network for clones.
    s = make_server(GODOT_RAG_MAX_FILE_BYTES="4000", GODOT_RAG_CLONE_TIMEOUT="10")
    TIMINGS["server_start_s"] = s.start()
    yield s
    s.stop()
    (artifacts_dir / "ui-timings.json").write_text(json.dumps(TIMINGS, indent=2))


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    yield page
    context.close()


def _shot(page, artifacts_dir: Path, name: str) -> None:
    page.screenshot(path=str(artifacts_dir / f"ui-{name}.png"))


def test_flow1_dodge_player_is_godot4_and_cues_exclude_the_path(server, page, artifacts_dir):
    timings = login(page, server.url, "alice", USERS["alice"])
    TIMINGS.update({f"first_{k}": v for k, v in timings.items()})
    text = "# player.gd\n" + (FIXTURES / "mixed_project" / "player.gd").read_text()
    t0 = send(page, "Is this Godot 3 or Godot 4?\n" + text)
    verdict = wait_verdict(page)
    TIMINGS["dodge_time_to_verdict_cold_s"] = time.monotonic() - t0
    assert "godot4" in verdict.inner_text()
    trace = open_trace(page, "_process", scroll_to="Search cues")
    _shot(page, artifacts_dir, "flow1-dodge-process-trace")
    assert "player.gd" in trace_section(trace, "Tracking only", "Sent to the retriever")
    assert "L12-L26" in trace
    cues = trace_section(trace, "Search cues", "Candidates found")
    assert "Input.is_action_pressed" in cues
    assert "player.gd" not in cues and "pasted://" not in cues and "snippet" not in cues
    # Same paste again on a warm server: the verdict time users see in a steady state.
    page.locator("#new-chat-button").click()
    page.get_by_text("Send me one of these").first.wait_for()
    t1 = send(page, text)
    wait_verdict(page)
    TIMINGS["dodge_time_to_verdict_warm_s"] = time.monotonic() - t1


def test_flow2_godot3_enemy_needs_migration_with_docs_evidence(server, page, artifacts_dir):
    login(page, server.url, "alice", USERS["alice"])
    send(page, (FIXTURES / "enemy.gd").read_text())
    verdict = wait_verdict(page)
    assert "godot3" in verdict.inner_text()
    assert "migration required" in verdict.inner_text()
    trace = open_trace(page, "extends line", scroll_to="Candidates found")
    assert re.search(r"KinematicBody2D\s*→\s*CharacterBody2D", trace)
    docs = page.locator("a[href*='class_characterbody2d']")
    assert docs.count() > 0
    _shot(page, artifacts_dir, "flow2-enemy-godot3-trace")
    page.get_by_text("What to change").first.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "flow2-enemy-migration-items")
    # Feedback with a comment on the answer is stored in the database.
    page.locator(".positive-feedback-off").last.click()
    page.locator("[role=dialog] textarea").fill("clear KinematicBody2D evidence")
    page.locator("#submit-feedback").click()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not _feedback(server, "clear KinematicBody2D evidence"):
        time.sleep(0.3)
    assert _feedback(server, "clear KinematicBody2D evidence") == [1]


def _feedback(server, comment: str) -> list[int]:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        rows = conn.execute("SELECT value FROM chainlit.feedbacks WHERE comment = %s", (comment,)).fetchall()
    return [r[0] for r in rows]


def test_flow3_zip_upload_is_mixed_with_excluded_files(server, page, artifacts_dir, tmp_path):
    archive = tmp_path / "crate_runner.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in sorted((FIXTURES / "mixed_project").iterdir()):
            zf.write(f, f"crate_runner/{f.name}")
        zf.writestr("crate_runner/icon.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    login(page, server.url, "bob", USERS["bob"])
    upload(page, [archive])
    verdict = wait_verdict(page)
    assert "mixed" in verdict.inner_text()
    excluded = page.get_by_text(re.compile(r"^Excluded files")).last
    excluded.scroll_into_view_if_needed()
    body = page.locator("body").inner_text()
    assert "README.md" in body and "icon.png" in body
    _shot(page, artifacts_dir, "flow3-zip-mixed-excluded")
    # A follow-up in the same thread is answered from the stored run, not by a new analysis.
    send(page, "why is mob.gd flagged?")
    answer = page.get_by_text(re.compile(r"mob\.gd is flagged")).last
    answer.wait_for(timeout=60_000)
    answer.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "flow3-followup")


def test_flow5_login_required_and_anonymous_refused(server, page, artifacts_dir):
    page.goto(server.url + "/")
    page.locator("input[type=password]").wait_for()
    assert page.locator("#chat-input").count() == 0
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(server.url + "/user", timeout=10)
    assert err.value.code == 401
    page.locator("input").first.fill("alice")
    page.locator("input[type=password]").fill("wrong-password")
    page.get_by_role("button", name="Sign In").click()
    page.wait_for_timeout(1500)
    assert page.locator("#chat-input").count() == 0
    _shot(page, artifacts_dir, "flow5-login-refused")
    login(page, server.url, "alice", USERS["alice"])
    assert page.locator("#chat-input").count() == 1
    _shot(page, artifacts_dir, "flow5-logged-in")


def _reply_after(page, sent_count: int):
    """The assistant's message that answers our `sent_count`-th message."""
    page.wait_for_function(
        "n => document.querySelectorAll('.ai-message').length >= n", arg=sent_count + 1, timeout=60_000
    )
    return page.locator(".ai-message").nth(sent_count).inner_text()


def test_bad_input_gets_clear_messages_and_never_a_traceback(server, page, artifacts_dir, tmp_path):
    login(page, server.url, "bob", USERS["bob"])
    send(page, "https://gitlab.com/someone/game")
    assert "is not github.com" in _reply_after(page, 1)
    send(page, "please look at https://github.com/godot-rag-test-owner/no-such-repo")
    assert "Could not fetch" in _reply_after(page, 2)
    send(page, "extends Node\n" + "var padding_value_for_the_limit_test = 1234567890\n" * 90)
    reply = _reply_after(page, 3)
    assert "over the file size limit of 4,000" in reply
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../../outside.gd", "extends Node\n")
    upload(page, [evil])
    assert "Refused" in _reply_after(page, 4)
    page.locator(".ai-message").nth(4).scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "bad-input-refusals")
    send(page, "Can you check this?\nfunction add(a, b) { return a + b; }\nconsole.log(add(1, 2));\nlet t = add(3, 4);")
    wait_verdict(page)
    polite = page.get_by_text("does not look like Godot code").last
    polite.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "bad-input-not-godot")
    assert "Traceback" not in page.locator("body").inner_text()


_G3_PROJECT = {
    "project.godot": 'config_version=4\n\n[application]\n\nconfig/name="Glow"\nrun/main_scene="res://main.tscn"\n',
    "player.gd": "extends KinematicBody2D\n\nexport var speed = 200\n\n\nfunc _physics_process(delta):\n"
                 "\tvar velocity = Vector2(speed, 0)\n\tmove_and_slide(velocity, Vector2.UP)\n",
    "glow.shader": "shader_type canvas_item;\n\nuniform vec4 tint : hint_color = vec4(1.0);\n\n"
                   "void fragment() {\n\tCOLOR = texture(TEXTURE, UV) * tint;\n}\n",
    "main.tscn": '[gd_scene load_steps=4 format=2]\n\n[ext_resource path="res://player.gd" type="Script" id=1]\n'
                 '[ext_resource path="res://glow.shader" type="Shader" id=2]\n\n'
                 '[sub_resource type="ShaderMaterial" id=1]\nshader = ExtResource( 2 )\n\n'
                 '[node name="Player" type="KinematicBody2D"]\nmaterial = SubResource( 1 )\nscript = ExtResource( 1 )\n',
    "screenshots/.gdignore": "",
    "screenshots/title.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
    "icon.png": b"\x89PNG\r\n\x1a\n" + bytes(range(255, -1, -1)) * 4,
}


def test_zip_upload_gives_a_migrated_zip_with_every_file_and_the_shader(server, page, artifacts_dir, tmp_path):
    """Issue 45: the web chat's migrated zip holds every input file (image, `.gdignore`) and the shader, renamed
    to `.gdshader` with its Godot 4 code, and the scene points at the new path."""
    archive = tmp_path / "glow.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in _G3_PROJECT.items():
            zf.writestr(f"glow/{name}", data)
    login(page, server.url, "alice", USERS["alice"])
    upload(page, [archive], "show me the Godot 4 version")
    wait_verdict(page)
    link = page.locator("a", has_text=re.compile(r"godot4-[\w-]+\.zip")).last
    link.wait_for(timeout=60_000)
    link.scroll_into_view_if_needed()
    _shot(page, artifacts_dir, "zip-migrated-download")
    response = page.context.request.get(urllib.parse.urljoin(server.url + "/", link.get_attribute("href")))
    assert response.ok, response.status
    out = tmp_path / "godot4.zip"
    out.write_bytes(response.body())
    with zipfile.ZipFile(out) as zf:
        got = {n: zf.read(n) for n in zf.namelist()}
    expected = {n.replace(".shader", ".gdshader") for n in _G3_PROJECT}
    assert expected <= set(got), sorted(expected - set(got))
    for name in ("icon.png", "screenshots/title.png", "screenshots/.gdignore"):
        data = _G3_PROJECT[name]
        assert got[name] == (data if isinstance(data, bytes) else data.encode()), f"{name} is copied byte for byte"
    shader = got["glow.gdshader"].decode()
    assert "source_color" in shader and "hint_color" not in shader
    scene = got["main.tscn"].decode()
    assert "res://glow.gdshader" in scene and "res://glow.shader" not in scene
    assert "CharacterBody2D" in got["player.gd"].decode()
