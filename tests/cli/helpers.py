"""Running the `godot-rag` CLI in a subprocess, as scripts do, and reading what it promises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from agent.settings import PROJECT_ROOT

SECRET = "hunter22-not-for-your-eyes"
UNREACHABLE_DB = f"postgresql://godot:{SECRET}@127.0.0.1:9/godot_rag"
"""A database URL nothing listens on (port 9, discard), with a password that must never be printed."""


def cli_env(settings: Any = None, **extra: str) -> dict[str, str]:
    """The environment for one CLI call: this tree's code, offline, on `settings`' database if given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GODOT_RAG_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(PROJECT_ROOT))
    if settings is not None:
        env.update(GODOT_RAG_HOME=str(settings.home), GODOT_RAG_DATABASE_NAME=settings.database_name)
        if settings.database_url:
            env["GODOT_RAG_DATABASE_URL"] = settings.database_url
    env.update(extra)
    return env


def cli_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "agent.cli", *args]


def run_cli(*args: str, env: dict[str, str], stdin: bytes | str | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """One CLI call; stdin may be bytes (sent as they are) or text."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    done = subprocess.run(cli_argv(*args), input=data, capture_output=True, env=env, cwd=PROJECT_ROOT,
                          timeout=timeout)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode("utf-8"),
                                       done.stderr.decode("utf-8", "replace"))


def one_json(stdout: str) -> dict[str, Any]:
    """The contract: exactly one JSON object on stdout."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    assert len(lines) == 1, stdout[-2000:]
    obj = json.loads(lines[0])
    assert isinstance(obj, dict)
    return obj


def assert_clear_failure(done: subprocess.CompletedProcess[str], *, code: int, error: str, needle: str) -> dict:
    """Exit `code`, one stderr message containing `needle`, no traceback, and the failure JSON."""
    assert done.returncode == code, (done.returncode, done.stderr[-2000:])
    assert needle in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    obj = one_json(done.stdout)
    assert obj["status"] == "failed" and obj["error"] == error and obj["exit_code"] == code, obj
    assert needle in obj["reason"], obj
    return obj


def write_project(root: Path, *, scripts: int, funcs: int) -> Path:
    """A small Godot 4 project: `scripts` scripts of `funcs` functions (about scripts x (funcs + 1) chunks)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "project.godot").write_text('config_version=5\n\n[application]\nconfig/name="Walkers"\n')
    for i in range(scripts):
        body = "".join(
            f"func move_{j}(delta: float) -> void:\n\tvelocity = Vector2({j}, {i}) * delta\n\tmove_and_slide()\n\n"
            for j in range(funcs)
        )
        (root / f"walker_{i}.gd").write_text(f"extends CharacterBody2D\n\n{body}")
    return root


def chunk_states(settings: Any, run_id: str) -> list[dict[str, Any]]:
    """The stored chunks of a run, in order (empty while the run does not exist yet)."""
    from agent.storage import database_url

    url = settings.database_url or database_url(settings)
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT chunk_id, status, attempts FROM godot_rag.run_chunks WHERE run_id = %s ORDER BY chunk_order",
            (run_id,),
        ).fetchall()
