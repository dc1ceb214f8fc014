"""The migration engine of an earlier commit, run on the inputs bench/migrate.py hands it.

bench/migrate.py calls `migrate_at(rev, inputs, workdir)`: REV is checked out into a temporary git worktree
(bench/portsdata.py `baseline`), every input is written to WORKDIR/in/<key>.json (path -> text), and this file
runs in a subprocess with that tree first on `sys.path`, so `agent` is the earlier code. It migrates each input
with that tree's `migrate_files` against the same knowledge base (GODOT_RAG_HOME) and writes OUT/<key>.json:
`{"seconds", "migration"}` (the ProjectMigration as JSON, migrated texts included) or `{"error": traceback}`.
Nothing of this repository is imported before the tree is on `sys.path`; bench/migrate.py measures the outputs
with its own code, the same that measures this tree's migration.

    python bench/migrate_baseline.py TREE IN OUT
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve()


def migrate_at(rev: str, inputs: dict[str, dict[str, str]], workdir: Path) -> Path:
    """Every input (key -> path -> text) migrated by the engine at `rev`; returns the folder of <key>.json outputs."""
    from bench.portsdata import baseline  # here, not at the top: the runner cannot import this repository

    src, out = workdir / "in", workdir / "out"
    src.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    for key, files in inputs.items():
        (src / f"{key}.json").write_text(json.dumps(files), encoding="utf-8")
    (src / "ORDER").write_text("\n".join(inputs), encoding="utf-8")
    home = Path(os.environ.get("GODOT_RAG_HOME", HERE.parents[1] / ".godot_rag_home")).resolve()
    env = {**os.environ, "PYTHONPATH": "", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "GODOT_RAG_HOME": str(home)}  # one knowledge base for both trees (the worktree would find none)
    with baseline(rev) as tree:
        subprocess.run([sys.executable, str(HERE), str(tree), str(src), str(out)], cwd=tree, env=env, check=True)
    return out


def main() -> int:
    tree, src, out = (Path(a) for a in sys.argv[1:4])
    # this file's folder (bench/) must not shadow anything, and `agent` must come from the tree
    sys.path[:] = [str(tree)] + [p for p in sys.path[1:] if Path(p or ".").resolve() != HERE.parent]
    from types import SimpleNamespace

    import agent
    from agent.judge.project import knowledge_context
    from agent.migrate import migrate_files
    from agent.settings import Settings
    from agent.storage.db import make_pool

    if not Path(agent.__file__).resolve().is_relative_to(tree.resolve()):
        print(f"baseline: agent comes from {agent.__file__}, not {tree}", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    kb = knowledge_context(SimpleNamespace(settings=settings, pool=make_pool(settings, min_size=1, max_size=2)))
    if kb is None:
        print("baseline: the knowledge base has no API index", file=sys.stderr)
        return 2
    for key in (src / "ORDER").read_text(encoding="utf-8").split("\n"):
        files = json.loads((src / f"{key}.json").read_text(encoding="utf-8"))
        t0 = time.perf_counter()
        try:
            migration = migrate_files(files, kb)
        except Exception:  # noqa: BLE001 - a crash is a result: recorded and reported by bench/migrate.py
            result = {"error": traceback.format_exc(), "seconds": time.perf_counter() - t0}
        else:
            result = {"seconds": time.perf_counter() - t0, "migration": json.loads(migration.model_dump_json())}
        (out / f"{key}.json").write_text(json.dumps(result), encoding="utf-8")
        print(f"baseline {key:60s} {result['seconds']:7.1f}s{'  CRASHED' if 'error' in result else ''}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
