"""Whole projects written by others, analysed as a user would: `godot-rag analyze DIR` with the CLI's defaults.

Each project is analysed by this tree and, in the same run, by a baseline commit (`--baseline REV`,
checked out with `git worktree` into a temporary folder and run from there), both against the same
database and knowledge base. Reported per project and per tree: the verdict and what decided it,
whether it is the project's true side, the chunk count, every chunk judged Godot 3 (file:lines and
why), the files judged, the wall time and the peak memory of the process; a refusal is reported as
such. The true side comes from the folder the project sits in:

    DIR/g3/<project>/...   a Godot 3 project      DIR/g4/<project>/...   a Godot 4 project
    DIR/mixed/<project>/...                        a project that really holds both

Nothing is committed of the projects; `--sources FILE` (a TSV with `dir` and `repo`/`commit` columns)
names where each came from in the output.

    .venv/bin/python bench/projects.py DIR [--baseline REV] [--only NAME ...] [--out FILE.json]
    .venv/bin/python bench/projects.py FILE.json --again     # print a saved run again
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIDES = ("g3", "g4", "mixed")
TRUE = {"g3": "godot3", "g4": "godot4", "mixed": "mixed"}
JUDGED_SUFFIXES = {".gd", ".tscn", ".tres", ".godot", ".import", ".cfg", ".escn"}


def analyse(tree: Path, project: Path, timeout: float) -> dict:
    """One `godot-rag analyze PROJECT --format json` run by the code in `tree`: the report plus time and memory."""
    env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           # one database and knowledge base for both trees (a worktree would default to a home of its own)
           "GODOT_RAG_HOME": os.environ.get("GODOT_RAG_HOME", str(ROOT / ".godot_rag_home"))}
    env.pop("GODOT_RAG_MAX_CHUNKS", None)  # the CLI's own default cap, as a user gets it
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", "from agent.cli import main; raise SystemExit(main())",
                             "analyze", str(project), "--format", "json"],
                            cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return {"status": "timeout", "seconds": round(time.perf_counter() - t0, 1)}
    seconds = time.perf_counter() - t0
    try:
        report = json.loads(out)
    except ValueError:
        return {"status": "crashed", "seconds": round(seconds, 1), "stderr": err[-800:]}
    return {"report": report, "seconds": round(seconds, 1), "exit": proc.returncode,
            "estimate": next((line for line in err.splitlines() if "chunks to judge" in line), "")}


def summarise(result: dict, side: str) -> dict:
    """What the bench prints of one analysis: verdict, decisive basis, Godot 3 chunks with why, judged files."""
    if "report" not in result:
        return {**result, "correct": False}
    r = result["report"]
    if r.get("status") != "completed":
        return {"status": r.get("status"), "error": r.get("error"), "reason": (r.get("reason") or "")[:300],
                "seconds": result["seconds"], "correct": False}
    v = r["verdict"]
    judged = {c["source_file"] for c in r["chunks"]}
    g3 = [{"where": f"{c['source_file']}:{c['start_line']}-{c['end_line']}",
           "strength": (c.get("judgment") or {}).get("strength"),
           "why": (c.get("judgment") or {}).get("rationale", "")[:240]}
          for c in r["chunks"] if (c.get("judgment") or {}).get("version_signal") == "godot3"]
    return {
        "status": "completed", "verdict": v["label"], "correct": v["label"] == TRUE[side],
        "basis": v.get("basis", ""), "chunks": len(r["chunks"]), "counts": v["counts"],
        "godot3_chunks": g3, "leftovers": len(v.get("leftovers") or []), "notes": len(v.get("notes") or []),
        "judged_not_godot": sorted(p for p in judged if Path(p).suffix.lower() not in JUDGED_SUFFIXES
                                   and not p.endswith("project.godot")),
        "seconds": result["seconds"], "estimate": result.get("estimate", ""),
        "chunks_per_s": round(len(r["chunks"]) / result["seconds"], 1) if result["seconds"] else None,
    }


def baseline_tree(rev: str) -> tuple[Path, tempfile.TemporaryDirectory]:
    """A checkout of `rev` in a temporary folder (a git worktree of this repository)."""
    tmp = tempfile.TemporaryDirectory(prefix="godot-rag-baseline-")
    path = Path(tmp.name) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev],
                   check=True, capture_output=True)
    return path, tmp


def projects(root: Path, only: list[str]) -> list[tuple[str, Path]]:
    return [(side, p) for side in SIDES if (root / side).is_dir()
            for p in sorted((root / side).iterdir()) if p.is_dir() and (not only or p.name in only)]


def sources(path: Path | None) -> dict[str, dict]:
    if path is None or not path.is_file():
        return {}
    with path.open(encoding="utf-8") as f:
        return {Path(row["dir"]).name: row for row in csv.DictReader(f, delimiter="\t")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--baseline", help="a git revision to compare against in the same run (e.g. the last landing)")
    ap.add_argument("--only", nargs="*", default=[], help="project folder names to run")
    ap.add_argument("--sources", type=Path, help="TSV naming each project's repository and commit")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--again", action="store_true", help="print ROOT (an --out JSON of an earlier run) again")
    args = ap.parse_args()
    if args.again:
        rows = json.loads(args.root.read_text(encoding="utf-8"))
        labels = [k for k in rows[0] if isinstance(rows[0][k], dict)] if rows else []
        for row in rows:
            for label in labels:
                print_line(row, label)
        print_summary(rows, labels)
        return 0
    trees: list[tuple[str, Path]] = [("this tree", ROOT)]
    keep = None
    if args.baseline:
        path, keep = baseline_tree(args.baseline)
        trees.insert(0, (f"baseline {args.baseline}", path))
    named = sources(args.sources)
    rows = []
    try:
        for side, project in projects(args.root, args.only):
            src = named.get(project.name, {})
            row = {"project": project.name, "side": side, "repo": src.get("repo", ""), "commit": src.get("commit", "")}
            for label, tree in trees:
                row[label] = summarise(analyse(tree, project, args.timeout), side)
                print_line(row, label)
            rows.append(row)
    finally:
        if keep is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[0][1])],
                           capture_output=True)
            keep.cleanup()
    print_summary(rows, [label for label, _ in trees])
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


def print_line(row: dict, label: str) -> None:
    s = row[label]
    print(f"{row['project']:<44} {row['side']:<5} {label:<22} {s.get('verdict') or s.get('status'):<9} "
          f"{'ok' if s['correct'] else 'WRONG':<5} chunks={s.get('chunks', '-')!s:<6} "
          f"g3={len(s.get('godot3_chunks') or [])!s:<4} leftovers={s.get('leftovers', '-')!s:<4} "
          f"notes={s.get('notes', '-')!s:<4} {s['seconds']:>7.1f}s  "
          f"{s.get('basis') or s.get('reason') or s.get('stderr') or ''}", flush=True)


def print_summary(rows: list[dict], labels: list[str]) -> None:
    print("\nsummary")
    for label in labels:
        done = [r[label] for r in rows]
        right = sum(1 for s in done if s["correct"])
        g4 = [s for r, s in zip(rows, done) if r["side"] == "g4"]
        print(f"  {label}: {right}/{len(done)} projects right; Godot 4 projects right "
              f"{sum(1 for s in g4 if s['correct'])}/{len(g4)}; Godot 3 chunks in Godot 4 projects "
              f"{sum(len(s.get('godot3_chunks') or []) for s in g4)} (leftovers to check in code "
              f"{sum(s.get('leftovers') or 0 for s in g4)}, files with notes {sum(s.get('notes') or 0 for s in g4)})"
              f"; files of other types judged "
              f"{sum(len(s.get('judged_not_godot') or []) for s in done)}; time {sum(s['seconds'] for s in done):.0f}s")
    print("\nsources")
    for r in rows:
        print(f"  {r['side']}/{r['project']}: {r['repo'] or '(local)'} {r['commit']}")


if __name__ == "__main__":
    raise SystemExit(main())
