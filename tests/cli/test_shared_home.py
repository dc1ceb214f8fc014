"""Issue 16 item 8: short CLI calls in two loops around a long run, all on one GODOT_RAG_HOME.

Every process starts (or reuses) the embedded server and the last one out stops it, so starts
race stops here. Each call must succeed with its one JSON value on stdout; nothing is lost (every
run is listed, completed, at the end). Loop counts are small: the machine is shared.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from agent.settings import PROJECT_ROOT
from tests.cli.helpers import cli_argv, cli_env, one_json, run_cli, write_project

LOOPS = 2
SNIPPET = "extends Node\n\nfunc _ready() -> void:\n\tprint(\"ready\")\n"


@pytest.fixture
def home():
    """A home outside pytest's basetemp: other pytest sessions reset that tree's permissions to 0700,
    which locks the embedded server's system user out of a data directory in use."""
    path = Path(tempfile.mkdtemp(prefix="godot-rag-shared-home-"))
    yield path / "home"
    shutil.rmtree(path, ignore_errors=True)


def test_short_calls_around_a_long_run_on_one_home(home, tmp_path):
    env = cli_env(GODOT_RAG_HOME=str(home))
    project = write_project(tmp_path / "long", scripts=4, funcs=15)
    failures: list[str] = []
    snippet_runs: list[str] = []

    def loop(name: str) -> None:
        for i in range(LOOPS):
            listed = run_cli("runs", "--format", "json", env=env, timeout=300)
            if listed.returncode != 0 or not isinstance(json.loads(listed.stdout or "null"), list):
                failures.append(f"{name} runs #{i}: rc={listed.returncode} {listed.stdout[-500:]} {listed.stderr[-1500:]}")
            run_id = f"{name}-{i}"
            done = run_cli("analyze", "-", "--format", "json", "--run-id", run_id, env=env, stdin=SNIPPET,
                           timeout=300)
            if done.returncode != 0:
                failures.append(f"{name} analyze #{i}: rc={done.returncode} {done.stdout[-500:]} {done.stderr[-1500:]}")
            else:
                assert one_json(done.stdout)["status"] == "completed"
                snippet_runs.append(run_id)

    first = threading.Thread(target=loop, args=("a",))
    first.start()
    long_run = subprocess.Popen(
        cli_argv("analyze", str(project), "--format", "json", "--run-id", "long"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=PROJECT_ROOT,
    )
    second = threading.Thread(target=loop, args=("b",))
    second.start()
    out, err = long_run.communicate(timeout=900)
    first.join(900)
    second.join(900)
    assert long_run.returncode == 0, err.decode()[-3000:]
    assert one_json(out.decode())["status"] == "completed"
    assert not failures, failures

    listed = run_cli("runs", "--format", "json", env=env, timeout=300)
    runs = {r["run_id"]: r["status"] for r in json.loads(listed.stdout)}
    assert runs == {rid: "completed" for rid in ["long", *snippet_runs]}
    assert len(snippet_runs) == 2 * LOOPS
