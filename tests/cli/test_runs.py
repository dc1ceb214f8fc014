"""The CLI on a real database: a FIFO in the project, Ctrl-C and SIGTERM mid-run, then resume.

An interrupted run must stay resumable (finished chunks kept and never judged again), name its
resume command, print its report (status `interrupted`) and exit 1, as the README documents.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from agent.settings import PROJECT_ROOT
from tests.cli.helpers import (
    assert_clear_failure,
    chunk_states,
    cli_argv,
    cli_env,
    one_json,
    run_cli,
    write_project,
)


def test_a_fifo_in_the_project_is_listed_and_the_run_completes(empty_db, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "main.gd").write_text("extends Node\n\nfunc _ready() -> void:\n\tprint(\"hi\")\n")
    os.mkfifo(d / "pipe.gd")
    done = run_cli("analyze", str(d), "--format", "json", env=cli_env(empty_db), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = one_json(done.stdout)
    assert report["status"] == "completed"
    assert [f["path"] for f in report["files"]] == ["main.gd"]
    (pipe,) = report["excluded_files"]
    assert pipe["path"] == "pipe.gd" and "named pipe (FIFO)" in pipe["reason"]
    assert "1 file(s) included, 1 excluded: pipe.gd (named pipe" in done.stderr


def _start_and_stop(settings, project, run_id: str, sig: int, fmt: str) -> tuple[subprocess.CompletedProcess, set]:
    """Start `analyze`, send `sig` once a few chunks are done; the finished process and the done chunk ids."""
    proc = subprocess.Popen(
        cli_argv("analyze", str(project), "--format", fmt, "--run-id", run_id),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(settings), cwd=PROJECT_ROOT,
    )
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            states = chunk_states(settings, run_id)
            if sum(s["status"] == "done" for s in states) >= 3:
                break
            assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
            time.sleep(0.02)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done_ids = {s["chunk_id"] for s in chunk_states(settings, run_id) if s["status"] == "done"}
    return subprocess.CompletedProcess(proc.args, proc.returncode, out.decode(), err.decode()), done_ids


@pytest.mark.parametrize(("sig", "fmt"), [(signal.SIGINT, "json"), (signal.SIGTERM, "text")])
def test_a_stop_signal_leaves_the_run_resumable(empty_db_factory, tmp_path, sig, fmt):
    settings = empty_db_factory("stop")
    project = write_project(tmp_path / "walkers", scripts=5, funcs=16)
    run_id = f"stop-{sig.name.lower()}"
    stopped, done_at_stop = _start_and_stop(settings, project, run_id, sig, fmt)
    assert stopped.returncode == 1, stopped.stderr[-3000:]
    assert f"interrupted ({sig.name}); run {run_id} is resumable: godot-rag resume {run_id}" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    states = chunk_states(settings, run_id)
    assert 3 <= len(done_at_stop) < len(states), "the signal must land mid-run"
    assert not any(s["status"] == "processing" for s in states)  # nothing left claimed by a dead process
    if fmt == "json":
        report = one_json(stopped.stdout)
        assert report["run_id"] == run_id and report["status"] == "interrupted"
        assert {c["chunk_id"] for c in report["chunks"] if c["status"] == "done"} == done_at_stop
    else:
        assert f"run {run_id}" in stopped.stdout and "status interrupted" in stopped.stdout

    resumed = run_cli("resume", run_id, "--format", "json", env=cli_env(settings), timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    report = one_json(resumed.stdout)
    assert report["status"] == "completed" and len(report["chunks"]) == len(states)
    attempts = {c["chunk_id"]: c["attempts"] for c in report["chunks"]}
    assert all(attempts[c] == 1 for c in done_at_stop)  # finished before the signal: never judged again


def test_an_unknown_run_is_exit_2_with_the_failure_object(empty_db):
    for args in (("show", "nope", "--format", "json"), ("resume", "nope", "--format", "json")):
        done = run_cli(*args, env=cli_env(empty_db), timeout=300)
        assert_clear_failure(done, code=2, error="unknown_run", needle="no run 'nope'")
    listed = run_cli("runs", "--format", "json", "--limit", "1", env=cli_env(empty_db), timeout=300)
    assert listed.returncode == 0 and json.loads(listed.stdout) == []
