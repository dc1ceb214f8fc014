"""Batch analysis on the real Postgres with real worker processes (`python -m agent.cli worker`).

A small batch of tiny projects goes through the queue to a report with verdicts; submitting it
again does no work; bad input fails once with its reason; a worker killed with kill -9 mid-run
loses nothing (another worker resumes the run, no finished chunk judged again); and the corpus
export validates against its schema.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import jsonschema

from agent.settings import PROJECT_ROOT
from tests.cli.helpers import chunk_states, cli_argv, cli_env, one_json, run_cli, write_project

WORKER_ENV = {"GODOT_RAG_WORKER_HEARTBEAT": "1", "GODOT_RAG_WORKER_STALLED_AFTER": "4", "GODOT_RAG_JOB_RETRY_WAIT": "1"}

G3 = 'extends KinematicBody2D\n\nfunc _physics_process(delta):\n\tmove_and_slide(Vector2(1, 0))\n\tyield(get_tree(), "idle_frame")\n'
G4 = ("extends CharacterBody2D\n\nfunc _physics_process(delta: float) -> void:\n\tvelocity = Vector2(1, 0)\n"
      "\tmove_and_slide()\n\tawait get_tree().process_frame\n")


def _project(root: Path, script: str, config_version: int) -> Path:
    root.mkdir(parents=True)
    (root / "project.godot").write_text(f"config_version={config_version}\n")
    (root / "player.gd").write_text(script)
    return root


def _worker(settings, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        cli_argv("worker", "--concurrency", "2"), stdout=subprocess.DEVNULL, stderr=open(log, "wb"),  # noqa: SIM115
        env=cli_env(settings, **WORKER_ENV), cwd=PROJECT_ROOT,
    )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _report(settings, batch_id: str) -> dict:
    done = run_cli("batch", "report", batch_id, "--format", "json", env=cli_env(settings))
    assert done.returncode == 0, done.stderr[-2000:]
    return one_json(done.stdout)


def _wait_finished(settings, batch_id: str, workers: list[subprocess.Popen], timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report = _report(settings, batch_id)
        if report["status"]["finished"]:
            return report
        assert any(w.poll() is None for w in workers), "every worker exited"
        time.sleep(1.0)
    raise AssertionError(f"batch {batch_id} did not finish: {report['status']}")


def test_a_batch_runs_reports_resubmits_as_a_no_op_and_exports_a_valid_corpus(kb_db_factory, tmp_path):
    settings = kb_db_factory()
    g3 = _project(tmp_path / "old_game", G3, 4)
    g4 = _project(tmp_path / "new_game", G4, 5)
    gone = _project(tmp_path / "gone", G4 + "# another project\n", 5)
    targets = tmp_path / "targets.txt"
    targets.write_text(f"# two projects, a bad URL and one removed before its job runs\n{g3}\n{g4}\n"
                       f"https://gitlab.com/someone/game\n{gone}\n")
    env = cli_env(settings)
    submitted = run_cli("batch", "submit", str(targets), "--format", "json", env=env)
    assert submitted.returncode == 0, submitted.stderr[-3000:]
    sub = one_json(submitted.stdout)
    assert sub["queued"] == 3 and sub["already_done"] == 0
    (refusal,) = sub["refused"]
    assert refusal["target"] == "https://gitlab.com/someone/game" and "is not github.com" in refusal["reason"]
    for f in gone.iterdir():
        f.unlink()
    gone.rmdir()

    worker = _worker(settings, tmp_path / "worker.log")
    try:
        report = _wait_finished(settings, sub["batch_id"], [worker])
        _project(gone, G4 + "# another project\n", 5)  # back again: `batch retry` queues its failed item
        retried = run_cli("batch", "retry", sub["batch_id"], "--format", "json", env=env)
        assert one_json(retried.stdout)["queued"] == 1, retried.stderr[-2000:]
        after_retry = _wait_finished(settings, sub["batch_id"], [worker])
    finally:
        _stop(worker)
    items = {Path(i["target"]).name if "://" not in i["target"] else "url": i for i in report["items"]}
    assert items["old_game"]["state"] == "done" and items["old_game"]["verdict"] == "godot3", items
    assert items["new_game"]["state"] == "done" and items["new_game"]["verdict"] == "godot4", items
    assert items["url"]["state"] == "refused" and items["url"]["tries"] == 0
    assert items["gone"]["state"] == "failed" and items["gone"]["tries"] == 1, items["gone"]  # bad input: once
    assert "is not a file, a directory" in items["gone"]["reason"]
    assert report["status"]["counts"]["done"] == 2 and report["status"]["projects_per_min"] > 0
    (back,) = [i for i in after_retry["items"] if i["target"] == str(gone)]
    assert back["state"] == "done" and back["verdict"] == "godot4" and back["tries"] == 2 and not back["reason"]
    for item in (items["old_game"], items["new_game"]):
        assert item["chunks"] > 0 and item["chunks_done"] == item["chunks"] and item["seconds"] is not None
    text = run_cli("batch", "status", sub["batch_id"], env=env)
    assert text.returncode == 0 and "3 done" in text.stdout and "(finished)" in text.stdout, text.stdout

    again = run_cli("batch", "submit", str(targets), "--format", "json", env=env)
    resub = one_json(again.stdout)
    assert resub["queued"] == 0 and resub["already_done"] == 3, resub  # no work: no job, no run
    redone = _report(settings, resub["batch_id"])
    assert {i["run_id"] for i in redone["items"] if i["state"] == "already_done"} == {
        items["old_game"]["run_id"], items["new_game"]["run_id"], back["run_id"]}

    out = tmp_path / "corpus"
    done = run_cli("export", "corpus", "--batch", sub["batch_id"], "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    schema = json.loads((PROJECT_ROOT / "agent/batch/schemas/corpus_chunk.schema.json").read_text())
    lines = [json.loads(line) for line in (out / "chunks.jsonl").read_text().splitlines()]
    assert len(lines) == items["old_game"]["chunks"] + items["new_game"]["chunks"] + back["chunks"]
    for line in lines:
        jsonschema.validate(line, schema)
    (g3_dir,) = (out / "godot3").iterdir()
    assert g3_dir.name.startswith("old_game@") and (g3_dir / "player.gd").read_text() == G3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == {"projects": 3, "chunks": len(lines), "by_verdict": {"godot3": 1, "godot4": 2}}
    # incremental: the second batch's runs are the same runs, so nothing is added or rewritten
    run_cli("export", "corpus", "--batch", resub["batch_id"], "--out", str(out), env=env)
    assert len((out / "chunks.jsonl").read_text().splitlines()) == len(lines)


def test_a_worker_killed_mid_run_loses_nothing(kb_db_factory, tmp_path):
    settings = kb_db_factory()
    project = write_project(tmp_path / "walkers", scripts=6, funcs=16)
    targets = tmp_path / "targets.txt"
    targets.write_text(f"{project}\n")
    env = cli_env(settings)
    sub = one_json(run_cli("batch", "submit", str(targets), "--format", "json", env=env).stdout)
    run_id = _report(settings, sub["batch_id"])["items"][0]["run_id"]

    first = _worker(settings, tmp_path / "first.log")
    second = None
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            if sum(s["status"] == "done" for s in chunk_states(settings, run_id)) >= 3:
                break
            assert first.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
            time.sleep(0.02)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        at_kill = chunk_states(settings, run_id)
        done_at_kill = {s["chunk_id"] for s in at_kill if s["status"] == "done"}
        assert 3 <= len(done_at_kill) < len(at_kill), "the kill must land mid-run"

        second = _worker(settings, tmp_path / "second.log")
        report = _wait_finished(settings, sub["batch_id"], [second])
    finally:
        for proc in (first, second):
            if proc is not None:
                _stop(proc)
    (item,) = report["items"]
    assert item["state"] == "done" and item["run_id"] == run_id and item["tries"] == 2, item
    assert item["chunks_done"] == item["chunks"] == len(at_kill)
    final = {s["chunk_id"]: s for s in chunk_states(settings, run_id)}
    assert all(s["status"] == "done" for s in final.values())
    assert all(final[c]["attempts"] == 1 for c in done_at_kill), "a finished chunk was judged again"
    assert max(s["attempts"] for s in final.values()) <= 2  # only chunks in flight at the kill started twice
