"""GitHub intake: the real URL validator, clones from a local origin, timeouts, no leftovers."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from agent.intake import GithubTarget, IntakeError, intake_github, intake_target, parse_github_url

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "small_project"


def _leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("godot-rag-clone-*")}


@pytest.fixture(autouse=True)
def _private_tempdir(tmp_path, monkeypatch):
    """Clones go to a temp dir of this test alone, so other processes' clones can't blur the leftovers check."""
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """A local git repo holding the fixture project under game/, with a branch `v1`."""
    repo = tmp_path_factory.mktemp("origin") / "repo"
    shutil.copytree(PROJECT, repo / "game")
    (repo / "tools").mkdir()
    (repo / "tools" / "other.gd").write_text("extends Node\n")
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PATH": "/usr/bin:/bin",
    }
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "init"], ["branch", "v1"]):
        subprocess.run(["git", *cmd], cwd=repo, env=env, check=True)
    return repo


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("file:///etc/passwd", "file:// scheme"),
        ("ssh://git@github.com/godotengine/godot.git", "ssh:// scheme"),
        ("git@github.com:godotengine/godot.git", "SSH"),
        ("http://github.com/godotengine/godot", "http:// scheme"),
        ("https://140.82.112.3/godotengine/godot", "not github.com"),
        ("https://[::1]/a/b", "not github.com"),
        ("https://localhost/a/b", "not github.com"),
        ("https://127.0.0.1:8080/a/b", "not github.com"),
        ("https://gitlab.com/a/b", "not github.com"),
        ("https://github.com.evil.example/a/b", "not github.com"),
        ("https://evil.example/github.com/a/b", "not github.com"),
        ("https://user:pw@github.com/a/b", "credentials"),
        ("https://github.com:8443/a/b", "not github.com"),
        ("https://github.com/onlyowner", "missing owner"),
        ("https://github.com/a/b/blob/main/x.gd", "only repository roots"),
        ("https://github.com/a/b/tree/--upload-pack=x", "invalid branch"),
        ("https://github.com/a/b/tree/main/../../etc", "escapes"),
        ("https://github.com/a/b?x=1", "query"),
        ("github.com/a/b", "scheme-less"),
        ("", "Empty URL"),
    ],
)
def test_validator_refuses(url, needle):
    with pytest.raises(IntakeError, match=needle):
        parse_github_url(url)


def test_validator_accepts():
    assert parse_github_url("https://github.com/godotengine/godot-demo-projects") == GithubTarget(
        "godotengine", "godot-demo-projects"
    )
    t = parse_github_url("https://github.com/godotengine/godot-demo-projects/tree/4.2/2d/dodge_the_creeps/")
    assert (t.ref, t.subdir) == ("4.2", "2d/dodge_the_creeps")
    assert parse_github_url("https://github.com/a/b.git").clone_url == "https://github.com/a/b.git"


def test_intake_target_routes_urls_to_the_validator(base_settings):
    with pytest.raises(IntakeError, match="file:// scheme"):
        intake_target("file:///tmp", settings=base_settings)
    with pytest.raises(IntakeError, match="not github.com"):
        intake_target("https://localhost/a/b", settings=base_settings)


def test_clone_from_local_origin(base_settings, origin):
    before = _leftovers()
    r = intake_github(
        "https://github.com/example/coins", settings=base_settings, origin_for_tests=origin.as_uri()
    )
    paths = {f.path for f in r.expansion.included}
    assert "game/scripts/player.gd" in paths and "tools/other.gd" in paths
    assert r.request.source_origin == "github" and r.request.source_file == "https://github.com/example/coins"
    assert not any(p.startswith(".git/") for p in paths)
    sub = intake_github(
        "https://github.com/example/coins/tree/v1/game",
        settings=base_settings,
        origin_for_tests=origin.as_uri(),
    )
    assert {f.path for f in sub.expansion.included} >= {"project.godot", "scripts/player.gd"}
    assert "tools/other.gd" not in {f.path for f in sub.expansion.files}
    assert _leftovers() == before


def test_clone_errors_are_clear_and_clean(base_settings, origin, tmp_path):
    before = _leftovers()
    with pytest.raises(IntakeError, match="Could not fetch"):
        intake_github(
            "https://github.com/example/missing",
            settings=base_settings,
            origin_for_tests=(tmp_path / "nope").as_uri(),
        )
    with pytest.raises(IntakeError, match="Could not fetch"):
        intake_github(
            "https://github.com/example/coins/tree/no-such-branch",
            settings=base_settings,
            origin_for_tests=origin.as_uri(),
        )
    with pytest.raises(IntakeError, match="does not exist"):
        intake_github(
            "https://github.com/example/coins/tree/main/no_folder",
            settings=base_settings,
            origin_for_tests=origin.as_uri(),
        )
    small = base_settings.with_(max_total_bytes=500)
    with pytest.raises(IntakeError, match="total size limit of 500"):
        intake_github("https://github.com/example/coins", settings=small, origin_for_tests=origin.as_uri())
    assert _leftovers() == before


def test_unreachable_repo_times_out(base_settings):
    """An origin that accepts the connection and never answers: clear error after the timeout."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    port = server.getsockname()[1]
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    before = _leftovers()
    try:
        start = time.monotonic()
        with pytest.raises(IntakeError, match=r"timed out after 1\.5 s"):
            intake_github(
                "https://github.com/example/slow",
                settings=base_settings.with_(clone_timeout=1.5),
                origin_for_tests=f"http://127.0.0.1:{port}/example/slow.git",
            )
        assert time.monotonic() - start < 10
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()
    assert _leftovers() == before
