"""The CLI contract in subprocesses, and the kill -9 / resume durability test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest
from psycopg.rows import dict_row

from agent.settings import PROJECT_ROOT
from tests.graph.projects import ENEMY_GD_3, dodge_files, generated_files, write_files



def _env(settings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GODOT_RAG_DATABASE_URL=settings.database_url,
        GODOT_RAG_DATABASE_NAME=settings.database_name,
        HF_HUB_OFFLINE="1",
        PYTHONPATH=str(PROJECT_ROOT),
    )
    return env


def _cli(settings, *args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent.cli", *args], input=stdin, capture_output=True, text=True,
        env=_env(settings), cwd=PROJECT_ROOT, timeout=timeout,
    )


def test_cli_analyze_show_export_runs(kb_db_factory, tmp_path):
    settings = kb_db_factory()
    write_files(tmp_path / "proj", dodge_files())
    done = _cli(settings, "analyze", str(tmp_path / "proj"), "--format", "json", "--run-id", "cli-1",
                "--prompt", "Godot 3 or 4?")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # exactly one JSON object on stdout
    assert report["run_id"] == "cli-1" and report["status"] == "completed"
    assert {"run_id", "project_id", "status", "verdict", "files", "excluded_files", "chunks"} <= set(report)
    assert set(report["verdict"]) >= {"label", "migration_required", "counts", "summary"}
    assert set(report["verdict"]["counts"]) == {"godot3", "godot4", "neutral"}
    assert {f["path"] for f in report["files"]} == {"project.godot", "player.gd", "player.tscn"}
    assert all(set(f) >= {"path", "kind", "sha256", "chunks"} for f in report["files"])
    assert report["excluded_files"][0]["path"] == "README.md"
    ev = [e for c in report["chunks"] for e in c["evidence"]]
    assert ev and all(set(e) >= {"table", "record_id", "title", "score", "symbol", "source_url", "source_api",
                                 "target_api"} for e in ev)
    assert "analyze" in done.stderr or "chunk" in done.stderr  # progress went to stderr
    # the chunk count and the expected time, said at intake (a fresh database has no measured rate yet)
    assert f"godot-rag: {len(report['chunks'])} chunks to judge" in done.stderr

    shown = _cli(settings, "show", "cli-1", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["chunks"] == report["chunks"]
    text = _cli(settings, "show", "cli-1")
    assert "verdict:" in text.stdout

    out = tmp_path / "cli-1.jsonl"
    exported = _cli(settings, "export", "cli-1", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == len(report["chunks"])
    assert all(x["run_id"] == "cli-1" and x["judgment"]["label"] for x in lines)

    runs = _cli(settings, "runs", "--format", "json")
    assert [r["run_id"] for r in json.loads(runs.stdout)] == ["cli-1"]

    again = _cli(settings, "analyze", str(tmp_path / "proj"), "--run-id", "cli-1")
    assert again.returncode == 2 and "already exists" in again.stderr


def test_cli_snippet_on_stdin_and_intake_errors(kb_db_factory, tmp_path):
    settings = kb_db_factory()
    done = _cli(settings, "analyze", "-", "--format", "json", stdin=ENEMY_GD_3)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"]["label"] == "godot3"
    assert report["direct_answer"]["migration_required"] is True
    missing = _cli(settings, "analyze", str(tmp_path / "nope"), "--format", "json")
    assert missing.returncode == 2 and json.loads(missing.stdout)["status"] == "failed"  # the failure object
    assert missing.stderr.strip()
    empty = _cli(settings, "analyze", "-", stdin="")
    assert empty.returncode == 2 and empty.stderr.strip()
    unknown = _cli(settings, "show", "does-not-exist")
    assert unknown.returncode == 2 and "no run" in unknown.stderr


def _chunk_states(settings, run_id: str) -> list[dict]:
    with psycopg.connect(settings.database_url, autocommit=True, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT chunk_id, status, attempts FROM godot_rag.run_chunks WHERE run_id = %s ORDER BY chunk_order",
            (run_id,),
        ).fetchall()


@pytest.mark.slow
def test_kill_9_then_resume(kb_db_factory, tmp_path):
    settings = kb_db_factory()
    project = tmp_path / "big"
    write_files(project, generated_files(godot4_scripts=4, godot3_scripts=1, funcs=6))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "analyze", str(project), "--format", "json", "--run-id", "killed"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(settings), cwd=PROJECT_ROOT,
    )
    deadline = time.monotonic() + 240
    states: list[dict] = []
    try:
        while time.monotonic() < deadline:
            try:
                states = _chunk_states(settings, "killed")
            except psycopg.Error:
                states = []
            if sum(s["status"] == "done" for s in states) >= 5:
                break
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    states = _chunk_states(settings, "killed")
    done_at_kill = {s["chunk_id"] for s in states if s["status"] == "done"}
    in_flight = {s["chunk_id"] for s in states if s["status"] == "processing"}
    assert 5 <= len(done_at_kill) < len(states), "the kill must land mid-run"
    assert len(states) >= 40

    resumed = _cli(settings, "resume", "killed", "--format", "json")
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["status"] == "completed"
    final = _chunk_states(settings, "killed")
    assert all(s["status"] == "done" for s in final)
    for s in final:
        if s["chunk_id"] not in in_flight:
            assert s["attempts"] == 1, s  # done before the kill or never started: judged exactly once
        else:
            assert s["attempts"] >= 1
    assert {c["chunk_id"]: c["attempts"] for c in report["chunks"]} == {s["chunk_id"]: s["attempts"] for s in final}

    clean = _cli(settings, "analyze", str(project), "--format", "json", "--run-id", "clean")
    assert clean.returncode == 0, clean.stderr
    reference = json.loads(clean.stdout)
    differ = [
        (a["chunk_id"], a["chunk_id"] in done_at_kill, a["chunk_id"] in in_flight, a["judgment"], b["judgment"])
        for a, b in zip(report["chunks"], reference["chunks"], strict=True)
        if a["judgment"] != b["judgment"]
    ]
    assert not differ, differ[:3]
    assert report["verdict"] == reference["verdict"]
    strip = lambda r: [(c["chunk_id"], c["judgment"]) for c in r["chunks"]]  # noqa: E731
    assert strip(report) == strip(reference)


def test_cli_says_when_the_knowledge_base_is_empty(empty_db):
    done = _cli(empty_db, "analyze", "-", "--format", "json", stdin="extends Node\n\nfunc _ready():\n\tpass\n")
    assert done.returncode == 0, done.stderr
    assert "godot-rag ingest" in done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "completed"
    assert all(c["evidence"] == [] for c in report["chunks"])
