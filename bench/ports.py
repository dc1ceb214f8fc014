"""Detection on real ports: the functions an official Godot 3 -> 4 port changed, and its Godot 4 side.

The data is a folder you collect (nothing is committed): one sub-folder per project,

    DIR/<project>/g3/<path>.gd   the script as it was in Godot 3 (scenes beside it may help receivers)
    DIR/<project>/g4/<path>.gd   the same script after the official port
    DIR/<project>/pairs.json     [{"g3": "<path>", "g4": "<path>"}, ...]

Each side is judged as one project (its extends chains and scenes resolve receivers), chunk by
chunk, by the product's retriever, evidence judge and validator, three times in the same run: with
the project context and API index; without them (the judge's previous path: every retrieved mapping,
no receivers, a converter-like baseline); and, stricter, also without the mappings the API index
derived (the rename tables, the curated syntax rows and the syntax rules). A Godot 3 function counts as *changed* when its code, comments and blank
lines left out, differs from the Godot 4 function of the same name in the paired script. Reported:

- `changed_flagged`: changed Godot 3 functions whose chunk is judged godot3 (the recall);
- `converter_missed_flagged`: of the changed functions the baseline misses, the share flagged
  (`conv_missed_flagged`: the same against the stricter baseline);
- `godot4_flagged`: Godot 4 functions judged godot3 (false alarms; each is listed).

`--godot4-only DIR` adds Godot 4 projects written by others (`DIR/<project>/**.gd`, scenes beside
them): every function judged godot3 there is a false alarm, and each is listed, with each project's verdict
by the product's own rule (`agent.graph.verdict.decide_project`) over its scripts and project.godot.

    .venv/bin/python bench/ports.py DIR [DIR ...] [--godot4-only DIR] [--kb DIR] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.detect import (PROMPT, _NoEmbedder, load_kb_without_embeddings, retrieve_all,  # noqa: E402
                          script_chunks, versioned_index)
from agent.graph.verdict import decide_project, file_versions  # noqa: E402
from agent.judge.base import JudgeInput  # noqa: E402
from agent.judge.evidence import EvidenceJudge  # noqa: E402
from agent.judge.facts import without_derived  # noqa: E402
from agent.judge.lexer import lex  # noqa: E402
from agent.judge.project import build_project_context  # noqa: E402
from agent.judge.validate import judge_and_validate  # noqa: E402
from agent.retrieve.query import build_retriever_query, split_trace  # noqa: E402
from agent.settings import Settings  # noqa: E402


def _normalised(code: str) -> str:
    """The code of a function with comments, blank lines and trailing spaces left out."""
    lines = (line.rstrip() for line in lex(code).no_comments.splitlines())
    return "\n".join(line for line in lines if line.strip())


def _side(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(root.rglob("*")) if p.is_file() and (p.suffix in (".gd", ".tscn", ".tres")
                                                                or p.name == "project.godot")}  # its autoloads


async def _judge_side(files: dict[str, str], retriever, api, no_vectors: bool) -> dict[str, dict]:
    """Every chunk of the side's scripts: (path, function name) -> verdicts with and without context."""
    judge, project = EvidenceJudge(), build_project_context(files, api)
    out: dict[str, dict] = {}
    for path, text in files.items():
        if not path.endswith(".gd"):
            continue
        chunks = script_chunks(path, text)
        queries = [build_retriever_query(PROMPT, c) for c in chunks]
        bundles = retrieve_all(retriever, queries, no_vectors=no_vectors)
        for c, b in zip(chunks, bundles):
            row = {"path": path, "name": c.name, "kind": c.chunk_kind, "code": c.code_text}
            for mode, ctx, ev in (("new", project, b), ("old", None, b), ("conv", None, without_derived(b))):
                inp = JudgeInput(prompt=PROMPT, trace=split_trace(c, "bench"), chunk=c, evidence=ev, project=ctx)
                res = await judge_and_validate(judge, inp, fallback=judge)
                row[mode] = res.judgment.version_signal
                if mode == "new":
                    row["why"], row["strength"] = res.judgment.rationale[:300], res.judgment.strength
                    row["lines"] = (c.span.start_line, c.span.end_line)
            out[c.chunk_id] = row
    return out


def _functions(rows: dict[str, dict]) -> dict[tuple[str, str], dict]:
    return {(r["path"], r["name"]): r for r in rows.values() if r["kind"] == "function" and r["name"]}


async def run(dirs: list[Path], retriever, api, no_vectors: bool) -> dict:
    stats = {"changed": 0, "changed_flagged": 0, "changed_old_flagged": 0, "converter_missed": 0,
             "converter_missed_flagged": 0, "changed_conv_flagged": 0, "conv_missed": 0, "conv_missed_flagged": 0,
             "unchanged": 0, "unchanged_flagged": 0,
             "godot4_functions": 0, "godot4_flagged": 0, "projects": 0, "pairs": 0}
    detail = {"missed": [], "flagged": [], "godot4_hits": []}
    for d in dirs:
        for project in sorted(p for p in d.iterdir() if (p / "pairs.json").is_file()):
            stats["projects"] += 1
            pairs = json.loads((project / "pairs.json").read_text())
            g3 = _functions(await _judge_side(_side(project / "g3"), retriever, api, no_vectors))
            g4 = _functions(await _judge_side(_side(project / "g4"), retriever, api, no_vectors))
            for fn in g4.values():
                stats["godot4_functions"] += 1
                if fn["new"] == "godot3":
                    stats["godot4_flagged"] += 1
                    detail["godot4_hits"].append({"project": project.name, **fn})
            for pair in pairs:
                stats["pairs"] += 1
                after = {name: fn for (path, name), fn in g4.items() if path == pair["g4"]}
                for (path, name), fn in g3.items():
                    if path != pair["g3"] or name not in after:
                        continue
                    where = {"project": project.name, "path": path, "name": name}
                    if _normalised(fn["code"]) == _normalised(after[name]["code"]):
                        stats["unchanged"] += 1
                        stats["unchanged_flagged"] += fn["new"] == "godot3"
                        if fn["new"] == "godot3":
                            detail.setdefault("unchanged_hits", []).append({**where, "why": fn["why"]})
                        continue
                    stats["changed"] += 1
                    hit, old_hit = fn["new"] == "godot3", fn["old"] == "godot3"
                    stats["changed_flagged"] += hit
                    stats["changed_old_flagged"] += old_hit
                    if not old_hit:
                        stats["converter_missed"] += 1
                        stats["converter_missed_flagged"] += hit
                    stats["changed_conv_flagged"] += fn["conv"] == "godot3"
                    if fn["conv"] != "godot3":
                        stats["conv_missed"] += 1
                        stats["conv_missed_flagged"] += hit
                    if hit:
                        detail["flagged"].append({**where, "why": fn["why"]})
                    else:
                        detail["missed"].append({**where, "why": fn["why"], "g3": fn["code"], "g4": after[name]["code"]})
    return {"stats": stats, "detail": detail}


async def run_godot4_only(root: Path, retriever, api, no_vectors: bool) -> dict:
    """Godot 4 projects by others, each judged as one project: functions judged godot3 are false alarms."""
    stats, hits, verdicts = {"projects": 0, "functions": 0, "flagged": 0}, [], {}
    for project in sorted(p for p in root.iterdir() if p.is_dir()):
        stats["projects"] += 1
        files = _side(project)
        rows = await _judge_side(files, retriever, api, no_vectors)
        verdicts[project.name] = _verdict(rows, files)
        for (path, name), fn in _functions(rows).items():
            stats["functions"] += 1
            if fn["new"] == "godot3":
                stats["flagged"] += 1
                hits.append({"project": project.name, "path": path, "name": name, "why": fn["why"]})
    return {"stats": stats, "hits": hits, "verdicts": verdicts}


def _verdict(rows: dict[str, dict], files: dict[str, str]) -> dict:
    """The product's project verdict (`decide_project`) from the scripts' chunks and project.godot's config_version."""
    configs = sorted((p for p in files if p.rsplit("/", 1)[-1] == "project.godot"), key=lambda p: (p.count("/"), p))
    m = re.search(r"^\s*config_version\s*=\s*(\d+)", files[configs[0]], re.M) if configs else None
    signals = {"config_version": int(m.group(1)), "suggests": "godot4" if int(m.group(1)) >= 5 else "godot3"} if m else {}
    done = [{"chunk_id": cid, "source_file": r["path"], "status": "done", "version_signal": r["new"],
             "start_line": r["lines"][0], "end_line": r["lines"][1],
             "judgment": {"strength": r.get("strength"), "rationale": r.get("why", "")}} for cid, r in rows.items()]
    decided = decide_project(file_versions(done, [{"path": p, "kind": "gdscript"} for p in files if p.endswith(".gd")]),
                             signals)
    return {"label": decided["label"], "basis": decided["basis"], "leftovers": len(decided["leftovers"]),
            "godot3_files": decided["godot3_files"]}


def _share(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else f"{a}/0"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", type=Path, nargs="*", help="folders of <project>/{g3,g4,pairs.json}")
    ap.add_argument("--godot4-only", type=Path, help="a folder of Godot 4 projects by others (<project>/**.gd)")
    ap.add_argument("--kb", type=Path, help="a generated KB dir, loaded without docs or embeddings (see "
                    "bench/detect.py); without it the database as it is, docs included (some verdicts cite only docs)")
    ap.add_argument("--out", type=Path, help="write the misses, hits and false alarms here (JSON)")
    args = ap.parse_args()
    settings = Settings.from_env()
    if args.kb:
        settings = load_kb_without_embeddings(settings, args.kb)
    from agent.retrieve import Retriever
    from agent.storage import make_pool

    with make_pool(settings, min_size=1, max_size=2) as pool:
        retriever = Retriever(settings, pool, embedder=_NoEmbedder() if args.kb else None)
        api = versioned_index(retriever)
        if api is None:
            return 2
        t0 = time.perf_counter()
        res = asyncio.run(run(args.dirs, retriever, api, bool(args.kb)))
        if args.godot4_only:
            res["godot4_only"] = asyncio.run(run_godot4_only(args.godot4_only, retriever, api, bool(args.kb)))
    s = res["stats"]
    print(json.dumps({**s, "seconds": round(time.perf_counter() - t0, 1)}))
    print(f"changed functions flagged:          {_share(s['changed_flagged'], s['changed'])}"
          f"  (baseline {_share(s['changed_old_flagged'], s['changed'])})")
    print(f"converter-missed changed, flagged:  {_share(s['converter_missed_flagged'], s['converter_missed'])}")
    print(f"  against the baseline without index-derived mappings: baseline "
          f"{_share(s['changed_conv_flagged'], s['changed'])}, its misses flagged "
          f"{_share(s['conv_missed_flagged'], s['conv_missed'])}")
    print(f"unchanged Godot 3 functions flagged: {_share(s['unchanged_flagged'], s['unchanged'])}")
    print(f"Godot 4 functions flagged:          {_share(s['godot4_flagged'], s['godot4_functions'])}")
    for h in res["detail"]["godot4_hits"]:
        print(f"godot4 hit: {h['project']}/{h['path']}:{h['name']}: {h['why'][:200]}")
    if "godot4_only" in res:
        g = res["godot4_only"]["stats"]
        print(f"Godot 4 projects by others: {g['projects']}, functions flagged: {_share(g['flagged'], g['functions'])}")
        for h in res["godot4_only"]["hits"]:
            print(f"godot4-only hit: {h['project']}/{h['path']}:{h['name']}: {h['why'][:200]}")
        for name, v in res["godot4_only"]["verdicts"].items():  # scripts only: scenes are not judged here
            print(f"godot4-only verdict: {name}: {v['label']} ({v['basis'] or 'nothing decisive'}), "
                  f"leftovers {v['leftovers']}" + (f", Godot 3 scripts {v['godot3_files'][:3]}" if v["godot3_files"]
                                                    else ""))
    if args.out:
        args.out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
