"""The embedded Postgres: survives restarts, is shared by processes, recovers from kill -9 of its owner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from agent.settings import PROJECT_ROOT

HELPER = textwrap.dedent(
    """
    import os, sys, time
    from agent.settings import Settings
    from agent.storage import connect, migrate
    s = Settings.from_env()
    conn = connect(s)
    migrate(conn, s)
    action = sys.argv[1]
    if action == "write":
        conn.execute("CREATE TABLE IF NOT EXISTS public.kv (k text primary key, v text)")
        conn.execute("INSERT INTO public.kv VALUES (%s, %s) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
                     (sys.argv[2], sys.argv[3]))
    elif action == "read":
        row = conn.execute("SELECT v FROM public.kv WHERE k = %s", (sys.argv[2],)).fetchone()
        print("VALUE=" + (row["v"] if row else "<none>"), flush=True)
    pid = conn.execute("SELECT pg_backend_pid() AS p").fetchone()["p"]
    print("READY", flush=True)
    if len(sys.argv) > 4 and sys.argv[4] == "hold":
        time.sleep(120)
    """
)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GODOT_RAG_")}
    env["GODOT_RAG_HOME"] = str(home)
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    return env


def _run(home: Path, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", HELPER, *args], env=_env(home), capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def _postmasters(pgdata: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        cmd = proc.info.get("cmdline") or []
        if proc.info.get("name") == "postgres" and str(pgdata) in " ".join(cmd) and "-D" in cmd:
            found.append(proc)
    return found


@pytest.fixture
def home(tmp_path: Path):
    h = tmp_path / "home"
    yield h
    for proc in _postmasters((h / "pgdata").resolve()):
        proc.terminate()


def test_data_survives_restart(home: Path):
    _run(home, "write", "color", "blue")
    assert not _postmasters((home / "pgdata").resolve()), "last user exited: the server should stop"
    assert "VALUE=blue" in _run(home, "read", "color")


def test_two_processes_share_one_server(home: Path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HELPER, "write", "a", "1", "hold"],
        env=_env(home), stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "READY"
        assert "VALUE=1" in _run(home, "read", "a")
        assert len(_postmasters((home / "pgdata").resolve())) == 1
    finally:
        holder.terminate()
        holder.wait(30)


def test_kill9_owner_then_restart_reuses_or_cleans(home: Path):
    owner = subprocess.Popen(
        [sys.executable, "-c", HELPER, "write", "k", "before-kill", "hold"],
        env=_env(home), stdout=subprocess.PIPE, text=True,
    )
    assert owner.stdout.readline().strip() == "READY"
    pgdata = (home / "pgdata").resolve()
    before = _postmasters(pgdata)
    assert len(before) == 1
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait(10)
    handles = json.loads((pgdata / ".handle_pids.json").read_text())
    assert owner.pid in handles, "the dead owner's handle is stale now"

    assert "VALUE=before-kill" in _run(home, "read", "k")
    # never a second server on the same data, and the stale handle no longer pins it
    deadline = time.time() + 10
    while _postmasters(pgdata) and time.time() < deadline:
        time.sleep(0.2)
    assert not _postmasters(pgdata), "with the dead handle pruned, the last real user stops the server"
    assert owner.pid not in json.loads((pgdata / ".handle_pids.json").read_text())


def test_starts_racing_shutdowns_all_succeed(home: Path):
    """Two loops of short-lived users: each start may meet the other's shutdown of the server; none fails."""
    script = "\n".join([
        "import sys",
        "from agent.settings import Settings",
        "from agent.storage import connect",
        "conn = connect(Settings.from_env())",
        "print('OK', conn.execute('SELECT 1 AS one').fetchone()['one'], flush=True)",
    ])

    def loop() -> subprocess.Popen:
        cmd = f"for i in 1 2 3 4 5; do {sys.executable} -c \"$SCRIPT\" || echo FAILED; done"
        return subprocess.Popen(["bash", "-c", cmd], env={**_env(home), "SCRIPT": script},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    loops = [loop(), loop()]
    outs = [p.communicate(timeout=300) for p in loops]
    for out, err in outs:
        assert "FAILED" not in out, err[-2000:]
        assert out.count("OK 1") == 5, (out, err[-2000:])
    assert not _postmasters((home / "pgdata").resolve()), "the last user stopped the server"
