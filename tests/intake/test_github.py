"""GitHub intake: the real URL validator, clones from a local origin, timeouts, no leftovers."""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from agent.intake import GithubTarget, IntakeError, intake_github, intake_target, parse_github_url
from agent.intake.github import _run, _size_watch

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "small_project"


def _leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("godot-rag-clone-*")}


@pytest.fixture(autouse=True)
def _private_tempdir(tmp_path, monkeypatch):
    """Clones go to this test's own temp dir, so other processes' clones can't blur the leftovers check."""
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
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "init"], ["branch", "v1"]):
        _git(repo, *cmd)
    return repo


_GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "PATH": "/usr/bin:/bin",
}


def _git(repo: Path, *args: str) -> str:
    """Run git in an origin repo under a fixed identity and no user config; its stdout."""
    done = subprocess.run(["git", *args], cwd=repo, env=_GIT_ENV, check=True, capture_output=True, text=True)
    return done.stdout.strip()


ASSET_BYTES = 3_000_000


@pytest.fixture(scope="module")
def asset_origin(tmp_path_factory) -> Path:
    """A repo shaped like a real game, serving partial fetches as github.com does.

    A 3 MB incompressible asset beside small scripts, a symlink pointing out of the tree, a
    submodule entry, and a branch and a tag whose names have a `/`.
    """
    repo = tmp_path_factory.mktemp("assets") / "repo"
    shutil.copytree(PROJECT, repo / "game")
    (repo / "game" / "art" / "music.ogg").write_bytes(random.Random(3).randbytes(ASSET_BYTES))
    (repo / "game" / "scripts" / "escape.gd").symlink_to("/etc/passwd")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "uploadpack.allowFilter", "true")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    head = _git(repo, "rev-parse", "HEAD")
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},game/addons/vendored")
    _git(repo, "commit", "-qm", "a submodule entry")
    _git(repo, "branch", "feature/godot4")
    _git(repo, "tag", "release/1.0")
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
        ("https://github.com:8443/a/b", "port 8443 is not accepted"),
        ("https://github.com:22/a/b", "port 22 is not accepted"),
        ("https://github.com:/a/b", "port .empty. is not accepted"),
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


def test_only_analysed_files_are_downloaded(base_settings, asset_origin):
    """The 3 MB asset is listed with its reason but never fetched.

    With a 1 MB cap the intake still succeeds; the cap is watched during the download, and
    fetching the asset would exceed it.
    """
    before = _leftovers()
    r = intake_github(
        "https://github.com/example/game",
        settings=base_settings.with_(max_total_bytes=1_000_000),
        origin_for_tests=asset_origin.as_uri(),
    )
    by_path = {f.path: f for f in r.expansion.files}
    assert {"game/project.godot", "game/scripts/player.gd", "game/scenes/main.tscn"} <= {
        f.path for f in r.expansion.included
    }
    music = by_path["game/art/music.ogg"]
    assert not music.included and "binary asset" in music.reason
    assert by_path["game/README.md"].reason.startswith("Documentation files are excluded")
    escape = by_path["game/scripts/escape.gd"]
    assert not escape.included and "symbolic link" in escape.reason
    assert "submodule" in by_path["game/addons/vendored"].reason
    assert r.expansion.included[0].text  # the analysed files were really read
    assert _leftovers() == before


def test_refs_with_slashes_and_commit_shas(base_settings, asset_origin):
    """`/tree/feature/godot4/game` is branch `feature/godot4` plus folder `game`, as on GitHub.

    Tags resolve the same way; a full commit sha is fetched as it is.
    """
    r = intake_github(
        "https://github.com/example/game/tree/feature/godot4/game/scripts",
        settings=base_settings,
        origin_for_tests=asset_origin.as_uri(),
    )
    assert "player.gd" in {f.path for f in r.expansion.included}
    r = intake_github(
        "https://github.com/example/game/tree/release/1.0/game",
        settings=base_settings,
        origin_for_tests=asset_origin.as_uri(),
    )
    assert "scripts/player.gd" in {f.path for f in r.expansion.included}
    first = _git(asset_origin, "rev-list", "--max-parents=0", "HEAD")
    r = intake_github(
        f"https://github.com/example/game/tree/{first}/game",
        settings=base_settings,
        origin_for_tests=asset_origin.as_uri(),
    )
    paths = {f.path for f in r.expansion.files}
    assert "scripts/player.gd" in paths and "addons/vendored" not in paths  # the submodule came later
    with pytest.raises(IntakeError, match="Could not fetch"):
        intake_github(
            "https://github.com/example/game/tree/feature/nope/game",
            settings=base_settings,
            origin_for_tests=asset_origin.as_uri(),
        )


def test_size_watch_stops_a_running_step(tmp_path):
    """The cap holds while a step runs: the step is killed as soon as its output passes it."""
    start = time.monotonic()
    with pytest.raises(IntakeError, match="total size limit of 1,000,000 bytes"):
        _run(
            ["sh", "-c", "head -c 3000000 /dev/zero > big; sleep 30; touch finished"],
            cwd=tmp_path,
            deadline=time.monotonic() + 60,
            what="the test step",
            timeout=60,
            watch=_size_watch(tmp_path, 1_000_000, what="the test step", cap=1_000_000),
        )
    assert time.monotonic() - start < 10
    time.sleep(0.2)
    assert not (tmp_path / "finished").exists()
