"""The data of bench/ports.py and its dev sources: built from local git mirrors of the official ports.

`build` writes the folder bench/ports.py reads, from bare git mirrors of godotengine/godot-demo-projects
(Godot 3 side: branch 3.5, Godot 4 side: master) and godotengine/tps-demo (3.x and master):

    OUT/<project>/g3/<path>      every .gd, .tscn, .tres and project.godot of the project on the Godot 3 branch
    OUT/<project>/g4/<path>      the same on the Godot 4 branch
    OUT/<project>/pairs.json     [{"g3": "<path>", "g4": "<path>"}, ...]: the scripts on both sides
    OUT/<project>/source.json    where it came from (source, repo, branch, commit and folder per side)
    OUT/SOURCES.tsv              source, repo, side, branch, commit, projects

A project is a folder holding project.godot (a nested project's files are its own); demo projects are
named `demo__<folder with / as __>`. A project is kept when it has scripts on both sides, under the same
folder or one the port moved (`MOVED`). A script is paired with the same path on the other side, else with
the same path ignoring case and underscores, else with the one script left on the other side whose file
name matches so (`pairs_of`). Nothing is fetched: the mirrors are read with `git --git-dir=... ls-tree`
and `cat-file`; a blob a mirror lacks (its largest files may be absent) is left out and named.

    .venv/bin/python bench/portsdata.py OUT [--mirrors /work/.mirror]

The module also holds what bench/ports.py shares with bench/projects.py: a baseline tree for one run
(`baseline`, on bench/projects.py's `baseline_tree`) and the dev sources a run names (`dev_sources`).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.projects import ROOT, baseline_tree  # noqa: E402

KEPT_SUFFIXES = (".gd", ".tscn", ".tres")
# (source, mirror folder, repository, Godot 3 branch, Godot 4 branch)
MIRRORS = (("demo", "godotengine+godot-demo-projects", "godotengine/godot-demo-projects", "3.5", "master"),
           ("tps-demo", "godotengine+tps-demo", "godotengine/tps-demo", "3.x", "master"))
# demo folders the port moved or renamed (3.5 -> master); their scripts pair by name as everywhere
MOVED = {"2d/gd_paint": "gui/gd_paint", "3d/navmesh": "3d/navigation", "misc/opensimplexnoise": "misc/noise_viewer",
         "loading/background_load": "loading/load_threaded", "gui/sdf_font": "gui/msdf_font"}


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True,
                          text=True, encoding="utf-8", errors="replace").stdout


def _projects(paths: list[str]) -> dict[str, list[str]]:
    """Project folder ('' for the root) -> its kept files, each under its nearest project.godot."""
    roots = sorted((p.rsplit("/", 1)[0] if "/" in p else "" for p in paths if p.rsplit("/", 1)[-1] == "project.godot"),
                   key=len, reverse=True)
    out: dict[str, list[str]] = {r: [] for r in roots}
    for p in paths:
        if not (p.endswith(KEPT_SUFFIXES) or p.rsplit("/", 1)[-1] == "project.godot"):
            continue
        owner = next((r for r in roots if r == "" or p.startswith(r + "/")), None)
        if owner is not None:
            out[owner].append(p)
    return out


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("_", "").lower()


def pairs_of(g3: list[str], g4: list[str]) -> list[dict[str, str]]:
    """Scripts on both sides (project-relative paths): the same path; else the same path ignoring case and
    underscores (HUD.gd -> hud.gd, combat/TurnQueue.gd -> combat/turn_queue.gd); else the same file name
    so compared when it is the only one of its side left (src/Actors/Player.gd -> player/player.gd)."""
    left3, left4 = {p for p in g3 if p.endswith(".gd")}, {p for p in g4 if p.endswith(".gd")}
    pairs = [{"g3": p, "g4": p} for p in sorted(left3 & left4)]
    left3, left4 = left3 - left4, left4 - left3
    for key in (lambda p: p.replace("_", "").lower(), _stem):
        k3, k4 = {}, {}
        for p in left3:
            k3.setdefault(key(p), []).append(p)
        for p in left4:
            k4.setdefault(key(p), []).append(p)
        for k in sorted(set(k3) & set(k4)):
            if len(k3[k]) == 1 and len(k4[k]) == 1:
                pairs.append({"g3": k3[k][0], "g4": k4[k][0]})
                left3.discard(k3[k][0])
                left4.discard(k4[k][0])
    return pairs


def build(out: Path, mirrors: Path) -> dict:
    """Write OUT from the mirrors; returns the counts and the commits used."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rows, counts = [], {"projects": 0, "pairs": 0, "by_source": {}, "absent": []}
    for source, mirror, repo, b3, b4 in MIRRORS:
        git_dir = mirrors / mirror / "repo"
        c3, c4 = _git(git_dir, "rev-parse", b3).strip(), _git(git_dir, "rev-parse", b4).strip()
        p3 = _projects(_git(git_dir, "ls-tree", "-r", "-z", "--name-only", c3).split("\0"))
        p4 = _projects(_git(git_dir, "ls-tree", "-r", "-z", "--name-only", c4).split("\0"))
        n_projects = n_pairs = 0
        for folder3 in sorted(p3):
            folder4 = MOVED.get(folder3, folder3) if source == "demo" else folder3
            if folder4 not in p4:
                continue
            strip3, strip4 = len(folder3) + 1 if folder3 else 0, len(folder4) + 1 if folder4 else 0
            files3 = [p[strip3:] for p in p3[folder3]]
            files4 = [p[strip4:] for p in p4[folder4]]
            if not any(p.endswith(".gd") for p in files3) or not any(p.endswith(".gd") for p in files4):
                continue
            name = "demo__" + folder3.replace("/", "__") if source == "demo" else source
            project = out / name
            absent = {"g3": _copy(git_dir, c3, folder3, p3[folder3], project / "g3"),
                      "g4": _copy(git_dir, c4, folder4, p4[folder4], project / "g4")}
            counts["absent"] += [f"{name}/{side}: {p}" for side, ps in absent.items() for p in ps]
            files3 = [p[strip3:] for p in p3[folder3] if p not in absent["g3"]]
            files4 = [p[strip4:] for p in p4[folder4] if p not in absent["g4"]]
            pairs = pairs_of(files3, files4)
            (project / "pairs.json").write_text(json.dumps(pairs, indent=1) + "\n")
            (project / "source.json").write_text(json.dumps(
                {"source": source, "repo": repo, "g3": {"branch": b3, "commit": c3, "folder": folder3},
                 "g4": {"branch": b4, "commit": c4, "folder": folder4}}, indent=1) + "\n")
            n_projects += 1
            n_pairs += len(pairs)
        counts["projects"] += n_projects
        counts["pairs"] += n_pairs
        counts["by_source"][source] = {"projects": n_projects, "pairs": n_pairs}
        rows += [{"source": source, "repo": repo, "side": "g3", "branch": b3, "commit": c3, "projects": n_projects},
                 {"source": source, "repo": repo, "side": "g4", "branch": b4, "commit": c4, "projects": n_projects}]
    with (out / "SOURCES.tsv").open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, ["source", "repo", "side", "branch", "commit", "projects"], delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    counts["sources"] = rows
    return counts


def _copy(git_dir: Path, commit: str, folder: str, paths: list[str], dest: Path) -> list[str]:
    """The files' blobs at `commit` under `dest`, paths relative to the project folder (one cat-file pass);
    returns the paths whose blob the mirror lacks."""
    missing: list[str] = []
    strip = len(folder) + 1 if folder else 0
    proc = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], check=True, capture_output=True,
                          input="".join(f"{commit}:{p}\n" for p in paths).encode())
    data, at = proc.stdout, 0
    for p in paths:
        head_end = data.index(b"\n", at)
        head = data[at:head_end].split()
        if head[-1] == b"missing":  # the mirror left the blob out (its largest files may be absent)
            at = head_end + 1
            missing.append(p)
            continue
        size = int(head[2])
        blob = data[head_end + 1: head_end + 1 + size]
        at = head_end + 1 + size + 1
        target = dest / p[strip:]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
    return missing


# --- shared with bench/ports.py -------------------------------------------------------------------

@contextmanager
def baseline(rev: str) -> Iterator[Path]:
    """A checkout of `rev` (bench/projects.py's `baseline_tree`), removed when the block ends."""
    path, tmp = baseline_tree(rev)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], capture_output=True)
        tmp.cleanup()


def dev_sources(ports: list[Path], others: list[Path]) -> list[dict]:
    """Where each data folder came from: a ports folder's SOURCES.tsv, and for folders of projects by
    others the sources.tsv beside (or in) them (columns dir, repo, commit), one row per project used."""
    rows = []
    for d in ports:
        tsv = d / "SOURCES.tsv"
        if tsv.is_file():
            with tsv.open(encoding="utf-8") as f:
                rows += [{"path": str(d), **r} for r in csv.DictReader(f, delimiter="\t")]
        else:
            rows.append({"path": str(d), "source": "(no SOURCES.tsv)"})
    for d in others:
        named: dict[str, dict] = {}
        for tsv in (d / "sources.tsv", d.parent / "sources.tsv"):
            if tsv.is_file():
                with tsv.open(encoding="utf-8") as f:
                    named = {Path(r["dir"]).name: r for r in csv.DictReader(f, delimiter="\t")}
                break
        for p in sorted(x for x in d.iterdir() if x.is_dir()):
            r = named.get(p.name, {})
            rows.append({"path": str(p), "source": p.name, "repo": r.get("repo", "(unknown)"),
                         "commit": r.get("commit", "")})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"),
                    help="folder of <owner>+<name>/repo bare git mirrors")
    args = ap.parse_args()
    counts = build(args.out, args.mirrors)
    for r in counts["sources"]:
        print(f"{r['source']}\t{r['repo']}\t{r['side']}\t{r['branch']}\t{r['commit']}")
    for source, c in counts["by_source"].items():
        print(f"{source}: {c['projects']} projects, {c['pairs']} pairs")
    print(f"total: {counts['projects']} projects, {counts['pairs']} pairs")
    for p in counts["absent"]:
        print(f"left out (the mirror lacks the blob): {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
