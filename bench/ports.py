"""Detection on real Godot 3 -> 4 ports (the functions changed, both sides' verdicts) and on projects by others.

The data is a folder you collect (nothing is committed; bench/portsdata.py builds it from git mirrors
of godotengine/godot-demo-projects and godotengine/tps-demo): one sub-folder per project,

    DIR/<project>/g3/<path>      the project as it was in Godot 3: its scripts, scenes, resources, project.godot
    DIR/<project>/g4/<path>      the same project after the official port
    DIR/<project>/pairs.json     [{"g3": "<path>.gd", "g4": "<path>.gd"}, ...]: a script and its port
    DIR/<project>/source.json    optional: {"source": ..., "repo": ..., "g3"/"g4": {branch, commit, folder}}
    DIR/SOURCES.tsv              optional: the repositories and commits the folder was built from

Each side is run whole, as one project (its .gd, .tscn, .tres and project.godot files; as in Godot and the
product's intake, nothing under a folder holding a .gdignore): its context (extends chains, scenes,
autoloads, the project's own names; `build_project_context`) is built once from all its files, and then
every chunk of every script,
paired or not, is retrieved for and judged in that context by the product's retriever, evidence judge and
validator, three times in the same run: with the project context and API index; without them (the
judge's previous path: every retrieved mapping, no receivers, a converter-like baseline); and, stricter,
also without the mappings the API index derived (the rename tables, the curated syntax rows and the
syntax rules). A Godot 3 function counts as *changed* when its code, comments and blank lines left out,
differs from the Godot 4 function of the same name in the paired script. Reported per source (the
`source` of source.json: demo projects, tps-demo) and in total:

- `changed_flagged`: changed Godot 3 functions whose chunk is judged godot3 (the recall);
- `converter_missed_flagged`: of the changed functions the baseline misses, the share flagged
  (`conv_missed_flagged`: the same against the stricter baseline);
- `unchanged_flagged`: Godot 3 functions the port left as they were, judged godot3;
- `g3_flagged`: every function of the Godot 3 sides (paired or not) judged godot3;
- `godot4_flagged`: Godot 4 functions judged godot3 (false alarms; each is listed);
- each side's project verdict by the product's own rule (`agent.graph.verdict.decide_project`) over its
  scripts' chunks and project.godot's config_version (right: godot3 for g3/, godot4 for g4/), with the
  verdict of the scripts alone beside it (project.godot left out, so config_version cannot decide).

`--godot4-only DIR` adds Godot 4 projects written by others (`DIR/<project>/**`, scripts, scenes and
project.godot): each is run whole the same way (judged once: with the context and API index); every
function judged godot3 is a false alarm and is listed, and each project's verdict should be godot4.
`--godot3-only DIR`: Godot 3 projects by others, the other way round (functions judged godot4 are listed;
the verdict should be godot3). Each of these projects is its own source.

The cost of the project model is reported too: the time spent in `build_project_context`, in building
every script's model and in typing each chunk's receivers on it, for each kind of side (scripts per
second) and its share of the run's wall time.

`--baseline REV` runs the same bench (these bench files, copied into the checkout) on another revision of
the repository in the same invocation: bench/projects.py's `baseline_tree` checks REV out with `git
worktree` into a temporary folder, the bench runs there in a child process (its own `agent` package,
its own copy of the KB's database), then this tree runs, and both are printed side by side, with the
changed functions flagged and the false alarms each run has that the other has not. `--kb DIR` loads
the KB into a database of its own (`--kb-database`, by default `<name>_ports`; the baseline's gets
`_baseline` appended), so a bench/detect.py run elsewhere does not drop it mid-run. `--out FILE.json`
keeps everything: the sources, and for each run every chunk's result (path, function, lines, the
verdict of each mode, strength, rationale), the pairs' changed/unchanged functions, the verdicts and
the timings, so two runs can be diffed. The dev sources used (paths, repositories, commits) are printed
first.

    .venv/bin/python bench/ports.py DIR [DIR ...] [--godot4-only DIR] [--godot3-only DIR] [--kb DIR]
        [--kb-database NAME] [--baseline REV] [--skip NAME ...] [--out FILE.json]
    .venv/bin/python bench/portsdata.py DIR      # build DIR from the git mirrors
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.detect import (PROMPT, _NoEmbedder, load_kb_without_embeddings, retrieve_all,  # noqa: E402
                          script_chunks, versioned_index)
from bench.portsdata import baseline, dev_sources  # noqa: E402
from agent.graph.verdict import decide_project, file_versions  # noqa: E402
from agent.judge.base import JudgeInput  # noqa: E402
from agent.judge.evidence import EvidenceJudge  # noqa: E402
from agent.judge.facts import without_derived  # noqa: E402
from agent.judge.lexer import lex  # noqa: E402
from agent.judge.project import build_project_context  # noqa: E402

try:  # the exact lookups (a baseline revision from before them judges on the retrieved rows alone)
    from agent.judge.project import with_knowledge_base  # noqa: E402
except ImportError:
    def with_knowledge_base(project, retriever):
        return project
from agent.judge.validate import judge_and_validate  # noqa: E402
from agent.retrieve.query import build_retriever_query, split_trace  # noqa: E402
from agent.settings import Settings  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
BENCH_FILES = ("ports.py", "detect.py", "portsdata.py", "projects.py")  # what a baseline checkout runs
ALL_MODES = ("new", "old", "conv")
PORT_STATS = ("changed", "changed_flagged", "changed_old_flagged", "converter_missed", "converter_missed_flagged",
              "changed_conv_flagged", "conv_missed", "conv_missed_flagged", "unchanged", "unchanged_flagged",
              "g3_functions", "g3_flagged", "godot4_functions", "godot4_flagged", "projects", "pairs",
              "g3_verdict_right", "g4_verdict_right", "g3_scripts_verdict_right", "g4_scripts_verdict_right")
OTHER_STATS = ("projects", "functions", "judged_godot3", "judged_godot4", "verdict_right", "scripts_verdict_right")


def _normalised(code: str) -> str:
    """The code of a function with comments, blank lines and trailing spaces left out."""
    lines = (line.rstrip() for line in lex(code).no_comments.splitlines())
    return "\n".join(line for line in lines if line.strip())


def _side(root: Path) -> dict[str, str]:
    """The project's scripts, scenes, resources and project.godot (its autoloads); as in Godot (and the
    product's intake), nothing under a folder holding a .gdignore (but for the project's root)."""
    ignored = [p.parent for p in root.rglob(".gdignore") if not (p.parent / "project.godot").is_file()]
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(root.rglob("*")) if p.is_file() and (p.suffix in (".gd", ".tscn", ".tres")
                                                                or p.name == "project.godot")
            and not any(d in p.parents for d in ignored)}


async def _judge_side(files: dict[str, str], retriever, api, no_vectors: bool,
                      modes: tuple[str, ...] = ALL_MODES) -> tuple[dict[str, dict], dict]:
    """Every chunk of every script of the side, each judged in the whole side's context:
    chunk id -> verdicts per mode; and the cost (context build, retrieval, judging)."""
    judge = EvidenceJudge()
    t0 = time.perf_counter()
    project = with_knowledge_base(build_project_context(files, api), retriever)
    typer_s = _time_the_model(project, files)
    cost = {"files": len(files), "scripts": sum(p.endswith(".gd") for p in files),
            "context_s": time.perf_counter() - t0, "retrieve_s": 0.0, "judge_s": 0.0, "chunks": 0}
    out: dict[str, dict] = {}
    for path, text in files.items():
        if not path.endswith(".gd"):
            continue
        chunks = script_chunks(path, text)
        t1 = time.perf_counter()
        bundles = retrieve_all(retriever, [build_retriever_query(PROMPT, c) for c in chunks], no_vectors=no_vectors)
        t2 = time.perf_counter()
        cost["retrieve_s"] += t2 - t1
        cost["chunks"] += len(chunks)
        for c, b in zip(chunks, bundles):
            row = {"path": path, "name": c.name, "kind": c.chunk_kind, "code": c.code_text,
                   "lines": (c.span.start_line, c.span.end_line)}
            for mode in modes:
                ctx, ev = (project, b) if mode == "new" else (None, b) if mode == "old" else (None, without_derived(b))
                inp = JudgeInput(prompt=PROMPT, trace=split_trace(c, "bench"), chunk=c, evidence=ev, project=ctx)
                res = await judge_and_validate(judge, inp, fallback=judge)
                row[mode] = res.judgment.version_signal
                if mode == "new":
                    row["why"], row["strength"] = res.judgment.rationale[:300], res.judgment.strength
            out[c.chunk_id] = row
        cost["judge_s"] += time.perf_counter() - t2
    cost["context_s"] += typer_s[0]  # the script models' typing, done while judging, is the model's cost
    cost["judge_s"] -= typer_s[0]
    return out, cost


def _time_the_model(project, files: dict[str, str]) -> list[float]:
    """Build every script's model now (timed with the context) and time the typer's per-chunk work."""
    spent = [0.0]
    if getattr(project, "typer", None) is None:
        return spent
    for path in files:
        project.scripts.model(path)
    receivers = project.typer.receivers

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return receivers(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t
    project.typer.receivers = timed
    return spent


def _functions(rows: dict[str, dict]) -> dict[tuple[str, str], dict]:
    return {(r["path"], r["name"]): r for r in rows.values() if r["kind"] == "function" and r["name"]}


def _function_rows(rows: dict[str, dict]) -> list[dict]:
    """Every function chunk (two functions of one name in a script, e.g. in inner classes, both count)."""
    return [r for r in rows.values() if r["kind"] == "function" and r["name"]]


def _verdict(rows: dict[str, dict], files: dict[str, str], expected: str) -> dict:
    """The product's project verdict (`decide_project`) from the scripts' chunks and project.godot's
    config_version, and the verdict of the scripts alone."""
    configs = sorted((p for p in files if p.rsplit("/", 1)[-1] == "project.godot"), key=lambda p: (p.count("/"), p))
    m = re.search(r"^\s*config_version\s*=\s*(\d+)", files[configs[0]], re.M) if configs else None
    signals = {"config_version": int(m.group(1)), "suggests": "godot4" if int(m.group(1)) >= 5 else "godot3"} if m else {}
    done = [{"chunk_id": cid, "source_file": r["path"], "status": "done", "version_signal": r["new"],
             "start_line": r["lines"][0], "end_line": r["lines"][1],
             "judgment": {"strength": r.get("strength"), "rationale": r.get("why", "")}} for cid, r in rows.items()]
    per_file = file_versions(done, [{"path": p, "kind": "gdscript"} for p in files if p.endswith(".gd")])
    decided, alone = decide_project(per_file, signals), decide_project(per_file, {})
    return {"label": decided["label"], "basis": decided["basis"], "right": decided["label"] == expected,
            "expected": expected, "leftovers": len(decided["leftovers"]), "godot3_files": decided["godot3_files"],
            "godot4_files": decided["godot4_files"], "scripts_label": alone["label"],
            "scripts_right": alone["label"] == expected, "config_version": signals.get("config_version")}


def _saved(rows: dict[str, dict]) -> list[dict]:
    """What --out keeps of each chunk: all but its code (the misses keep theirs)."""
    return [{"chunk_id": cid, **{k: v for k, v in r.items() if k != "code"}} for cid, r in rows.items()]


def _source_of(project: Path, default: str) -> str:
    try:
        return json.loads((project / "source.json").read_text())["source"]
    except (OSError, ValueError, KeyError):
        return default


async def run_ports(dirs: list[Path], retriever, api, no_vectors: bool, skip: set[str]) -> dict:
    """Both sides of each port project, run whole: per-project stats, verdicts and every chunk's result."""
    projects: dict[str, dict] = {}
    for d in dirs:
        for project in sorted(p for p in d.iterdir() if (p / "pairs.json").is_file() and p.name not in skip):
            pairs = json.loads((project / "pairs.json").read_text())
            st = dict.fromkeys(PORT_STATS, 0)
            st["projects"], st["pairs"] = 1, len(pairs)
            entry: dict = {"dir": str(d), "source": _source_of(project, d.name), "stats": st,
                           "godot4_hits": [], "flagged": [], "missed": [], "unchanged_hits": [], "g3_hits": []}
            sides = {}
            for side, expected in (("g3", "godot3"), ("g4", "godot4")):
                files = _side(project / side)
                rows, cost = await _judge_side(files, retriever, api, no_vectors)
                verdict = _verdict(rows, files, expected)
                st[f"{side}_verdict_right"] += verdict["right"]
                st[f"{side}_scripts_verdict_right"] += verdict["scripts_right"]
                sides[side] = rows
                entry[side] = {"verdict": verdict, "cost": cost, "chunks": _saved(rows)}
            for fn in _function_rows(sides["g3"]):
                st["g3_functions"] += 1
                if fn["new"] == "godot3":
                    st["g3_flagged"] += 1
                    entry["g3_hits"].append({"path": fn["path"], "name": fn["name"]})
            for fn in _function_rows(sides["g4"]):
                st["godot4_functions"] += 1
                if fn["new"] == "godot3":
                    st["godot4_flagged"] += 1
                    entry["godot4_hits"].append({"project": project.name, "path": fn["path"], "name": fn["name"],
                                                 "lines": fn["lines"], "why": fn["why"]})
            g3, g4 = _functions(sides["g3"]), _functions(sides["g4"])
            entry["pairs"] = []
            for pair in pairs:
                after = {name: fn for (path, name), fn in g4.items() if path == pair["g4"]}
                for (path, name), fn in g3.items():
                    if path != pair["g3"] or name not in after:
                        continue
                    where = {"project": project.name, "path": path, "name": name}
                    changed = _normalised(fn["code"]) != _normalised(after[name]["code"])
                    entry["pairs"].append({"g3": path, "g4": pair["g4"], "name": name, "changed": changed,
                                           **{m: fn[m] for m in ALL_MODES}})
                    if not changed:
                        st["unchanged"] += 1
                        st["unchanged_flagged"] += fn["new"] == "godot3"
                        if fn["new"] == "godot3":
                            entry["unchanged_hits"].append({**where, "why": fn["why"]})
                        continue
                    st["changed"] += 1
                    hit, old_hit = fn["new"] == "godot3", fn["old"] == "godot3"
                    st["changed_flagged"] += hit
                    st["changed_old_flagged"] += old_hit
                    if not old_hit:
                        st["converter_missed"] += 1
                        st["converter_missed_flagged"] += hit
                    st["changed_conv_flagged"] += fn["conv"] == "godot3"
                    if fn["conv"] != "godot3":
                        st["conv_missed"] += 1
                        st["conv_missed_flagged"] += hit
                    if hit:
                        entry["flagged"].append({**where, "why": fn["why"]})
                    else:
                        entry["missed"].append({**where, "why": fn["why"], "g3": fn["code"], "g4": after[name]["code"]})
            projects[project.name] = entry
            print(f"  ran {project.name}: {st['changed_flagged']}/{st['changed']} changed flagged, "
                  f"{st['godot4_flagged']}/{st['godot4_functions']} Godot 4 functions flagged, verdicts "
                  f"{entry['g3']['verdict']['label']}/{entry['g4']['verdict']['label']}", file=sys.stderr, flush=True)
    return {"projects": projects, "stats": _totals({n: p["stats"] for n, p in projects.items()},
                                                     {n: p["source"] for n, p in projects.items()}, PORT_STATS)}


async def run_others(root: Path, expected: str, retriever, api, no_vectors: bool, skip: set[str]) -> dict:
    """Projects by others (all Godot 4 or all Godot 3), each run whole and judged once, with the context:
    functions judged the other way are false alarms; the verdict should be `expected`."""
    projects: dict[str, dict] = {}
    for project in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in skip):
        files = _side(project)
        rows, cost = await _judge_side(files, retriever, api, no_vectors, modes=("new",))
        verdict = _verdict(rows, files, expected)
        fns = _function_rows(rows)
        st = {"projects": 1, "functions": len(fns), "judged_godot3": sum(f["new"] == "godot3" for f in fns),
              "judged_godot4": sum(f["new"] == "godot4" for f in fns), "verdict_right": int(verdict["right"]),
              "scripts_verdict_right": int(verdict["scripts_right"])}
        wrong = "godot3" if expected == "godot4" else "godot4"
        hits = [{"project": project.name, "path": f["path"], "name": f["name"], "lines": f["lines"], "why": f["why"]}
                for f in fns if f["new"] == wrong]
        projects[project.name] = {"dir": str(root), "source": project.name, "stats": st, "verdict": verdict,
                                  "cost": cost, "hits": hits, "chunks": _saved(rows)}
        print(f"  ran {project.name}: {st['functions']} functions, {len(hits)} judged {wrong}, verdict "
              f"{verdict['label']}", file=sys.stderr, flush=True)
    return {"expected": expected, "projects": projects,
            "stats": _totals({n: p["stats"] for n, p in projects.items()}, {n: n for n in projects}, OTHER_STATS)}


def _totals(per_project: dict[str, dict], source: dict[str, str], keys: tuple[str, ...]) -> dict:
    """Sums per source and in total."""
    out: dict[str, dict] = {}
    for name, st in per_project.items():
        for group in (source[name], "total"):
            acc = out.setdefault(group, dict.fromkeys(keys, 0))
            for k in keys:
                acc[k] += st[k]
    out.setdefault("total", dict.fromkeys(keys, 0))
    return out


def _cost(res: dict) -> dict:
    """Time in build_project_context per kind of side, against the run's wall time."""
    kinds: dict[str, list[dict]] = {}
    for entry in res.get("ports", {}).get("projects", {}).values():
        kinds.setdefault("port g3 sides", []).append(entry["g3"]["cost"])
        kinds.setdefault("port g4 sides", []).append(entry["g4"]["cost"])
    for key, label in (("godot4_only", "godot4-only projects"), ("godot3_only", "godot3-only projects")):
        for entry in res.get(key, {}).get("projects", {}).values():
            kinds.setdefault(label, []).append(entry["cost"])
    out = {}
    for label, costs in kinds.items():
        c = {k: sum(x[k] for x in costs) for k in ("scripts", "files", "chunks", "context_s", "retrieve_s", "judge_s")}
        c["sides"] = len(costs)
        c["slowest_context_s"] = max(x["context_s"] for x in costs)
        out[label] = c
    total = {k: sum(c[k] for c in out.values()) for k in ("scripts", "files", "chunks", "context_s", "retrieve_s",
                                                          "judge_s", "sides")}
    out["all sides"] = total
    return out


async def _run_all(args, retriever, api, no_vectors: bool) -> dict:
    skip = set(args.skip or [])
    res: dict = {"ports": await run_ports(args.dirs, retriever, api, no_vectors, skip)}
    if args.godot4_only:
        res["godot4_only"] = await run_others(args.godot4_only, "godot4", retriever, api, no_vectors, skip)
    if args.godot3_only:
        res["godot3_only"] = await run_others(args.godot3_only, "godot3", retriever, api, no_vectors, skip)
    return res


def run_here(args) -> dict:
    """The bench on the code this process imported: KB load, ports, projects by others, timings."""
    t0 = time.perf_counter()
    settings = Settings.from_env()
    if args.kb:
        settings = load_kb_without_embeddings(settings, args.kb, args.kb_database
                                              or f"{settings.database_name}_ports", docs=not args.kb_no_docs)
    kb_s = time.perf_counter() - t0
    from agent.retrieve import Retriever
    from agent.storage import make_pool

    with make_pool(settings, min_size=1, max_size=2) as pool:
        retriever = Retriever(settings, pool, embedder=_NoEmbedder() if args.kb else None)
        api = versioned_index(retriever)
        if api is None:
            raise SystemExit(2)
        res = asyncio.run(_run_all(args, retriever, api, bool(args.kb)))
    res["wall_s"], res["kb_load_s"] = time.perf_counter() - t0, kb_s
    res["cost"] = _cost(res)
    res["tree"] = {"path": str(HERE), **_revision(HERE)}
    return res


def _revision(tree: Path) -> dict:
    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(tree), *a], capture_output=True, text=True).stdout
    return {"commit": git("rev-parse", "HEAD").strip(),
            "dirty": sorted(x[3:] for x in git("status", "--porcelain", "--", "agent").splitlines() if x.strip())}


def run_baseline(args, rev: str) -> dict:
    """The same bench (these bench files) on `rev`, in a git worktree, in a child process; its result."""
    with baseline(rev) as tree, tempfile.TemporaryDirectory(prefix="ports-baseline-") as tmp:
        for name in BENCH_FILES:
            shutil.copy2(HERE / "bench" / name, tree / "bench" / name)
        out = Path(tmp) / "baseline.json"
        settings = Settings.from_env()
        cmd = [sys.executable, str(tree / "bench" / "ports.py"), *(str(d.resolve()) for d in args.dirs),
               "--out", str(out)]
        for flag, value in (("--godot4-only", args.godot4_only), ("--godot3-only", args.godot3_only),
                            ("--kb", args.kb)):
            if value:
                cmd += [flag, str(value.resolve())]
        if args.kb:
            cmd += ["--kb-database", f"{args.kb_database or settings.database_name + '_ports'}_baseline"]
        if args.skip:
            cmd += ["--skip", *args.skip]
        env = {**os.environ, "PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "GODOT_RAG_HOME": str(settings.home)}  # one database server for both trees
        print(f"baseline {rev}: running in {tree}", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
        if proc.returncode != 0 or not out.is_file():
            return {"failed": f"exit {proc.returncode}", "stdout": proc.stdout[-2000:]}
        res = json.loads(out.read_text())["runs"]["this tree"]
        res["tree"] = {"path": f"(worktree of {rev})", "rev": rev, **res.get("tree", {}), "dirty": []}
        return res


# --- printing ------------------------------------------------------------------------------------------

def _share(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else f"{a}/0"


def _table(title: str, rows: list[tuple[str, list[str]]], labels: list[str]) -> None:
    print(f"\n{title}")
    width = max([len(r[0]) for r in rows] + [10])
    cell = max([len(x) for _, cells in rows for x in cells] + [len(x) for x in labels])
    print(f"  {'':<{width}}  " + "  ".join(f"{x:<{cell}}" for x in labels))
    for name, cells in rows:
        print(f"  {name:<{width}}  " + "  ".join(f"{x:<{cell}}" for x in cells))


def print_sources(sources: list[dict], runs: dict[str, dict]) -> None:
    print("dev sources")
    for s in sources:
        if "branch" in s:
            print(f"  {s['path']}  {s['source']}  {s['repo']} {s['side']}={s['branch']} {s['commit']}")
        else:
            print(f"  {s['path']}  {s.get('repo', '')} {s.get('commit', '')}")
    for label, r in runs.items():
        t = r.get("tree", {})
        print(f"code: {label}: {t.get('rev', '')} {t.get('commit', '')} {t.get('path', '')}"
              + (f" (uncommitted changes in {', '.join(t['dirty'])})" if t.get("dirty") else ""))


def print_report(runs: dict[str, dict]) -> None:
    labels = [k for k in runs if "failed" not in runs[k]]
    for k, r in runs.items():
        if "failed" in r:
            print(f"\n{k}: FAILED ({r['failed']})\n{r.get('stdout', '')}")
    if not labels:
        return
    ok = {k: runs[k] for k in labels}
    sources = list(dict.fromkeys(g for r in ok.values() for g in r["ports"]["stats"]))
    sources = [g for g in sources if g != "total"] + ["total"]
    for g in sources:
        st = {k: r["ports"]["stats"].get(g, dict.fromkeys(PORT_STATS, 0)) for k, r in ok.items()}
        _table(f"ports: {g}", [
            ("projects / pairs", [f"{s['projects']} / {s['pairs']}" for s in st.values()]),
            ("changed functions flagged", [_share(s["changed_flagged"], s["changed"]) for s in st.values()]),
            ("  converter-like baseline", [_share(s["changed_old_flagged"], s["changed"]) for s in st.values()]),
            ("  stricter baseline", [_share(s["changed_conv_flagged"], s["changed"]) for s in st.values()]),
            ("converter-missed, flagged", [_share(s["converter_missed_flagged"], s["converter_missed"])
                                           for s in st.values()]),
            ("stricter-missed, flagged", [_share(s["conv_missed_flagged"], s["conv_missed"]) for s in st.values()]),
            ("unchanged G3 functions flagged", [_share(s["unchanged_flagged"], s["unchanged"]) for s in st.values()]),
            ("all G3 functions flagged", [_share(s["g3_flagged"], s["g3_functions"]) for s in st.values()]),
            ("Godot 4 functions flagged", [_share(s["godot4_flagged"], s["godot4_functions"]) for s in st.values()]),
            ("g3 verdicts godot3", [_share(s["g3_verdict_right"], s["projects"]) for s in st.values()]),
            ("  scripts alone", [_share(s["g3_scripts_verdict_right"], s["projects"]) for s in st.values()]),
            ("g4 verdicts godot4", [_share(s["g4_verdict_right"], s["projects"]) for s in st.values()]),
            ("  scripts alone", [_share(s["g4_scripts_verdict_right"], s["projects"]) for s in st.values()]),
        ], labels)
    for key, wrong in (("godot4_only", "godot3"), ("godot3_only", "godot4")):
        if not any(key in r for r in ok.values()):
            continue
        names = list(dict.fromkeys(n for r in ok.values() for n in r.get(key, {}).get("projects", {})))
        rows = []
        for n in names + ["total"]:
            cells = []
            for r in ok.values():
                p = r.get(key, {})
                s = p.get("stats", {}).get(n) if n == "total" else p.get("projects", {}).get(n, {}).get("stats")
                if not s:
                    cells.append("-")
                    continue
                v = "" if n == "total" else p["projects"][n]["verdict"]
                cells.append(f"{_share(s['judged_' + wrong], s['functions'])} "
                             + (f"{v['label']}{'' if v['right'] else '!'}/{v['scripts_label']}" if v else
                                f"right {s['verdict_right']}/{s['projects']} ({s['scripts_verdict_right']} alone)"))
            rows.append((n, cells))
        _table(f"{key.replace('_', '-')} projects: functions judged {wrong}, verdict (! wrong) / scripts alone",
               rows, labels)
    _print_verdicts(ok)
    _print_hits(ok)
    _print_cost(ok)


def _print_verdicts(ok: dict[str, dict]) -> None:
    print("\nverdicts of the port projects (g3 side | g4 side; ! marks a wrong one; [scripts alone])")
    names = list(dict.fromkeys(n for r in ok.values() for n in r["ports"]["projects"]))
    for n in names:
        cells = []
        for label, r in ok.items():
            e = r["ports"]["projects"].get(n)
            if e is None:
                cells.append(f"{label}: -")
                continue
            a, b = e["g3"]["verdict"], e["g4"]["verdict"]
            cells.append(f"{label}: {a['label']}{'' if a['right'] else '!'} [{a['scripts_label']}] | "
                         f"{b['label']}{'' if b['right'] else '!'} [{b['scripts_label']}]")
        print(f"  {n:<42} " + "   ".join(cells))
        last = ok[list(ok)[-1]]["ports"]["projects"].get(n)
        for side in ("g3", "g4"):
            v = last and last[side]["verdict"]
            if v and not v["right"]:
                print(f"      {side} wrong: {v['label']} ({v['basis'] or 'nothing decisive'}); Godot 3 scripts "
                      f"{v['godot3_files'][:4]}, Godot 4 scripts {v['godot4_files'][:4]}")
    for key in ("godot4_only", "godot3_only"):
        for label, r in ok.items():
            for n, e in r.get(key, {}).get("projects", {}).items():
                v = e["verdict"]
                print(f"  {key.replace('_', '-')} verdict: {label}: {n}: {v['label']}"
                      f"{'' if v['right'] else ' (WRONG)'} ({v['basis'] or 'nothing decisive'}), scripts alone "
                      f"{v['scripts_label']}, leftovers {v['leftovers']}"
                      + (f", Godot 3 scripts {v['godot3_files'][:3]}" if key == "godot4_only" and v["godot3_files"]
                         else f", Godot 4 scripts {v['godot4_files'][:3]}" if key == "godot3_only"
                         and v["godot4_files"] else ""))


def _hit_key(h: dict) -> tuple:
    return h["project"], h["path"], h["name"]


def _print_hits(ok: dict[str, dict]) -> None:
    """The false alarms of the last run (this tree), marked + when the other run lacks them; then the
    other run's that this one lacks (-)."""
    labels = list(ok)
    last, first = ok[labels[-1]], ok[labels[0]] if len(labels) > 1 else None

    def hits(r: dict, what: str) -> list[dict]:
        if what == "godot4 hit":
            return [h for e in r["ports"]["projects"].values() for h in e["godot4_hits"]]
        key = "godot4_only" if what == "godot4-only hit" else "godot3_only"
        return [h for e in r.get(key, {}).get("projects", {}).values() for h in e["hits"]]

    if first:
        def flagged(r: dict) -> dict[tuple, dict]:
            return {_hit_key(h): h for e in r["ports"]["projects"].values() for h in e["flagged"]}
        now, before = flagged(last), flagged(first)
        print(f"\nchanged functions flagged by {labels[-1]} only (+) and by {labels[0]} only (-)")
        for mark, a, b in (("+", now, before), ("-", before, now)):
            for k in sorted(set(a) - set(b)):
                print(f"{mark} {k[0]}/{k[1]}:{k[2]}: {a[k]['why'][:200]}")
    print(f"\nfalse alarms of {labels[-1]}" + (f" (+ not in {labels[0]}; - only in {labels[0]})" if first else ""))
    for what in ("godot4 hit", "godot4-only hit", "godot3-only hit (judged godot4)"):
        now = hits(last, what)
        before = {_hit_key(h) for h in hits(first, what)} if first else set()
        for h in now:
            mark = "+ " if first and _hit_key(h) not in before else "  "
            print(f"{mark}{what}: {h['project']}/{h['path']}:{h['name']}: {h['why'][:200]}")
        if first:
            have = {_hit_key(h) for h in now}
            for h in hits(first, what):
                if _hit_key(h) not in have:
                    print(f"- {what}: {h['project']}/{h['path']}:{h['name']}: {h['why'][:200]}")


def _print_cost(ok: dict[str, dict]) -> None:
    print("\nthe project model's cost (build_project_context)")
    for label, r in ok.items():
        wall = r["wall_s"]
        print(f"  {label}: wall {wall:.0f}s (KB load {r['kb_load_s']:.0f}s)")
        for kind, c in r["cost"].items():
            rate = f"{c['scripts'] / c['context_s']:.0f} scripts/s" if c["context_s"] else "-"
            print(f"    {kind:<22} {c['sides']:>3} sides, {c['scripts']:>5} scripts, {c['chunks']:>6} chunks: "
                  f"context {c['context_s']:6.1f}s ({rate}; {100 * c['context_s'] / wall:.1f}% of wall), "
                  f"retrieval {c['retrieve_s']:6.0f}s, judging {c['judge_s']:6.0f}s"
                  + (f", slowest side {c['slowest_context_s']:.1f}s" if "slowest_context_s" in c else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", type=Path, nargs="*", help="folders of <project>/{g3,g4,pairs.json}")
    ap.add_argument("--godot4-only", type=Path, help="a folder of Godot 4 projects by others (<project>/**)")
    ap.add_argument("--godot3-only", type=Path, help="a folder of Godot 3 projects by others (<project>/**)")
    ap.add_argument("--kb", type=Path, help="a generated KB dir, loaded without embeddings, the docs copied from the "
                    "product database when it has them (see bench/detect.py); without it the database as it is")
    ap.add_argument("--kb-no-docs", action="store_true",
                    help="with --kb: leave the docs out (mappings and index only; findings a page would back are "
                         "downgraded; about 3x faster)")
    ap.add_argument("--kb-database", help="the database --kb is loaded into (default <name>_ports; dropped first)")
    ap.add_argument("--baseline", help="a git revision to run the same bench on in the same invocation")
    ap.add_argument("--skip", nargs="*", help="project folder names to leave out (e.g. a large one)")
    ap.add_argument("--out", type=Path, help="write everything here (JSON): sources, per-chunk results, verdicts, "
                    "timings of each run")
    args = ap.parse_args()
    sources = dev_sources(args.dirs, [d for d in (args.godot4_only, args.godot3_only) if d])
    runs: dict[str, dict] = {}
    if args.baseline:
        runs[f"baseline {args.baseline}"] = run_baseline(args, args.baseline)
    runs["this tree"] = run_here(args)
    print_sources(sources, runs)
    print_report(runs)
    for label, r in runs.items():
        if "failed" not in r:
            print(json.dumps({"run": label, **r["ports"]["stats"]["total"], "seconds": round(r["wall_s"], 1)}))
    if args.out:
        args.out.write_text(json.dumps({"sources": sources, "args": {k: str(v) for k, v in vars(args).items()},
                                        "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
