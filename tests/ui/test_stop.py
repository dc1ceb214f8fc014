"""Issue 35 item 5: stopping `godot-rag ui` (SIGTERM, or Ctrl-C on its terminal) stops the embedded
Postgres it started.

The chat child registers as a user of the server at the latest when it closes its data layer on
the way out, then Chainlit ends the process with `os._exit`, so it never unregisters; the launcher,
the last live user, must still stop the server. Each case starts the UI on a fresh home
(an initdb of its own), so it runs as users start it the first time.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from agent.settings import PROJECT_ROOT
from tests.ui.conftest import free_port


def _postmaster(pgdata: Path) -> psutil.Process | None:
    """The running (not defunct) postmaster of `pgdata`, if any."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().splitlines()[0])
        proc = psutil.Process(pid)
        return None if proc.status() == psutil.STATUS_ZOMBIE else proc
    except (OSError, ValueError, IndexError, psutil.NoSuchProcess):
        return None


def _wait(cond, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def home():
    """A fresh home outside pytest's basetemp (see tests/cli/test_shared_home.py for why)."""
    path = Path(tempfile.mkdtemp(prefix="godot-rag-stop-home-"))
    yield path / "home"
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("how", ["sigterm", "ctrl-c"])
def test_stopping_the_ui_stops_its_embedded_postgres(home, how, artifacts_dir):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GODOT_RAG_")}
    env.update(GODOT_RAG_HOME=str(home), GODOT_RAG_UI_ALLOW_ANONYMOUS="1", HF_HUB_OFFLINE="1",
               PYTHONPATH=str(PROJECT_ROOT))
    log_path = artifacts_dir / f"ui-stop-{how}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent.cli", "ui", "--host", "127.0.0.1", "--port", str(port)],
            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=PROJECT_ROOT, start_new_session=True,
        )
    pgdata = home / "pgdata"
    try:
        def answers() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/auth/config", timeout=2) as r:
                    return r.status == 200
            except OSError:
                assert proc.poll() is None, f"the ui exited with {proc.returncode}; see {log_path}"
                return False

        _wait(answers, 180, "the ui to answer")
        server = _wait(lambda: _postmaster(pgdata), 30, "the embedded postgres")
        if how == "sigterm":
            proc.send_signal(signal.SIGTERM)
        else:  # a terminal's Ctrl-C reaches the whole foreground group
            os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 0, log_path.read_text()[-2000:]
        _wait(lambda: not server.is_running() or server.status() == psutil.STATUS_ZOMBIE, 30,
              "the embedded postgres to stop")
        assert not (pgdata / "postmaster.pid").exists()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        left = _postmaster(pgdata)
        if left is not None:  # never leave a server behind, even when the test fails
            left.terminate()
