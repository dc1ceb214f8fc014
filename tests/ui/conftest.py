"""Browser-test plumbing: the real `godot-rag ui` server on a free port, its own KB database, headless chromium.

The server runs as a subprocess exactly as users start it; each server gets a database cloned
from the KB template. Playwright drives Debian's chromium binary (nothing downloads a browser).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.settings import PROJECT_ROOT
from tests.conftest import _create_db, _db_url, _drop_db

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
USERS = {"alice": "alice-pw-1", "bob": "bob-pw-2"}
GODOT_RAG = [sys.executable, "-m", "agent.cli"]
"""This tree's CLI (a worktree has no .venv of its own; PYTHONPATH below keeps its code first)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class UiServer:
    """`godot-rag ui` in a subprocess (own process group, so a kill takes chainlit down with it)."""

    def __init__(self, database_url: str, home: Path, log_path: Path, extra_env: dict[str, str] | None = None):
        self.database_url = database_url
        self.home = home
        self.log_path = log_path
        self.extra_env = extra_env or {}
        self.port = 0
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120.0) -> float:
        """Start and wait until the login page answers; returns the seconds it took."""
        self.port = free_port()
        env = dict(os.environ)
        env.update(
            GODOT_RAG_DATABASE_URL=self.database_url,
            GODOT_RAG_HOME=str(self.home),
            GODOT_RAG_UI_USERS=",".join(f"{u}:{p}" for u, p in USERS.items()),
            CHAINLIT_AUTH_SECRET="test-secret-" + "x" * 40,
            HF_HUB_OFFLINE="1",
            PYTHONPATH=str(PROJECT_ROOT),  # the chainlit child imports ui/ and agent/ from this tree
        )
        env.pop("GODOT_RAG_UI_ALLOW_ANONYMOUS", None)
        env.pop("GODOT_RAG_UI_HEADER_AUTH", None)
        env.update(self.extra_env)
        log = open(self.log_path, "ab")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [*GODOT_RAG, "ui", "--host", "127.0.0.1", "--port", str(self.port)],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=PROJECT_ROOT,
        )
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ui server exited with {self.proc.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.url + "/auth/config", timeout=2) as r:
                    if r.status == 200:
                        return time.monotonic() - t0
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"ui server did not answer within {timeout}s; see {self.log_path}")

    def kill(self) -> None:
        """SIGKILL the whole process group: a crash, not a graceful stop."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="session")
def ui_db_factory(kb_template: str, admin_url: str):
    """Databases cloned from the KB template for UI servers (module-scoped servers need them)."""
    made: list[str] = []

    def make() -> str:
        name = f"godot_rag_ui_{uuid.uuid4().hex[:10]}"
        _create_db(admin_url, name, template=kb_template)
        made.append(name)
        return _db_url(admin_url, name)

    yield make
    for name in made:
        _drop_db(admin_url, name)


@pytest.fixture(scope="session")
def make_server(ui_db_factory, artifacts_dir: Path, tmp_path_factory) -> Iterator:
    """Build (not start) UI servers; all are stopped at the end."""
    servers: list[UiServer] = []

    def make(database_url: str | None = None, **extra_env: str) -> UiServer:
        home = tmp_path_factory.mktemp("ui_home")
        log = artifacts_dir / f"ui-server-{len(servers)}.log"
        log.write_bytes(b"")
        server = UiServer(database_url or ui_db_factory(), home, log, extra_env)
        servers.append(server)
        return server

    yield make
    for s in servers:
        s.stop()


@pytest.fixture(scope="module")
def server(make_server):
    """One UI server per module on a fresh database (a module that needs other settings defines its own)."""
    s = make_server()
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    """Headless Debian chromium through playwright (per module: the sync driver owns an event loop,
    which must be gone before async tests in other modules run)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
