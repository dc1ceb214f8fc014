"""The migration engine on real ports: each Godot 3 side migrated whole, checked against the maintainers' port.

Reads the folder bench/ports.py reads (bench/portsdata.py builds it: DIR/<project>/g3, g4, pairs.json). In one
run, for every project, two migrations of the Godot 3 side are compared:

- `engine`: `agent.migrate.migrate_files` (scripts, scenes, resources, project.godot; validated);
- `converter`: a converter-like baseline, the converter's rename tables (renames_3_to_4.json: classes,
  functions, properties, signals, constants, built-in types) and its simple syntax rules (`export`, `onready`,
  `tool`, `yield(a, "s")` -> `await a.s`) applied as plain text, as Godot's converter does (comments and
  strings included).

Over the *changed* functions (a paired function whose code, comments and blank lines left out, differs
between the two sides) and over every file, it reports for each:
- `flagged` / `complete`: functions with Godot 3 code, and those written whole with no TODO (engine only);
- `validated`: changed functions whose migrated code the judge, run again on the migrated project's model,
  finds no Godot 3 code in (a function under a TODO does not pass);
- `leftovers`: Godot 3 findings left outside TODOs in the whole migrated side;
- `introduced`: of the Godot 4 API names the maintainers' port introduced into a changed function (names
  the 4.x API index defines and the Godot 3 function did not hold), the share the migration introduced too;
- `todos`, `unparsable` (files with more tree-sitter errors than before), `idempotent` (a second migration
  changes nothing; engine only) and seconds per 1,000 lines;
- `why`: the reasons the flagged functions left with a TODO carry (`MigrationHunk.why`), counted, so the next
  pattern to teach the engine is the one that leaves the most functions behind.

    GODOT_RAG_HOME=.godot_rag_home .venv/bin/python bench/migrate.py /work/ports [--only NAME ...]
        [--godot3-only DIR ...] [--godot4-only DIR ...] [--out F.json]

`--godot3-only DIR ...`: Godot 3 projects by others, each migrated whole (flagged and complete, TODOs, leftovers,
files that no longer parse, idempotence); `--godot4-only DIR ...`: Godot 4 projects by others, the negative control
(the files the migration would change: none should be).

The knowledge base is the one of GODOT_RAG_HOME (its API index and mapping rows; no embeddings are loaded).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ports import _normalised, _side  # noqa: E402
from bench.portsdata import dev_sources  # noqa: E402
from agent.apiindex import V3, V4  # noqa: E402
from agent.judge.lexer import identifiers, lex  # noqa: E402
from agent.judge.project import knowledge_context  # noqa: E402
from agent.migrate import TODO_TAG, migrate_files, migration_context  # noqa: E402
from agent.migrate.script import judge_chunk, marked, needs_migration, parse_errors, script_chunks  # noqa: E402
from agent.settings import Settings, default_renames_file  # noqa: E402
from agent.storage.db import make_pool  # noqa: E402

_TABLES = ("class_renames", "builtin_types_renames", "gdscript_function_renames", "gdscript_properties_renames",
           "gdscript_signals_renames", "enum_renames")


def converter_like(files: dict[str, str], renames: dict) -> dict[str, str]:
    """The rename tables and simple syntax rules applied as plain text (what Godot's converter does)."""
    pairs = [(r["old"], r["new"]) for t in _TABLES for r in renames["tables"].get(t, []) if r.get("enabled")]
    one = {old: new for old, new in pairs if re.fullmatch(r"\w+", old) and re.fullmatch(r"[\w.]+", new)}
    words = re.compile(r"\b(" + "|".join(map(re.escape, sorted(one, key=len, reverse=True))) + r")\b")
    out = {}
    for path, text in files.items():
        if not path.endswith(".gd"):
            out[path] = text
            continue
        text = re.sub(r"^(\s*)export(\([^)\n]*\))?\s+var\b", r"\1@export var", text, flags=re.M)
        text = re.sub(r"^(\s*)onready\s+var\b", r"\1@onready var", text, flags=re.M)
        text = re.sub(r"^tool\s*$", "@tool", text, flags=re.M)
        text = re.sub(r"\byield\(\s*([^,()]+(?:\([^()]*\))?)\s*,\s*\"(\w+)\"\s*\)", r"await \1.\2", text)
        out[path] = words.sub(lambda m: one[m.group(1)], text)
    return out


def _functions(path: str, text: str) -> dict[str, str]:
    return {c.name: c.code_text for c in script_chunks(path, text) if c.chunk_kind == "function" and c.name}


def _judge_side(files: dict[str, str], kb) -> dict[tuple[str, str], tuple[int, bool]]:
    """(path, function or chunk id) -> (Godot 3 findings, under a TODO) for every chunk of every script."""
    ctx = migration_context(files, kb)
    out = {}
    for path, text in files.items():
        if path.endswith(".gd"):
            for c in script_chunks(path, text):
                _, facts = judge_chunk(c, ctx)
                n = len(facts.godot3_syntax) + len(facts.godot3_strong) if needs_migration(facts) else 0
                out[(path, c.name if c.chunk_kind == "function" and c.name else c.chunk_id)] = (n, marked(text, c))
    return out


def _godot4_names(api, text: str) -> set[str]:
    return {n for n in identifiers(lex(text).masked) if api.has_class(V4, n) or api.defined_anywhere(V4, n)}


def _migrated_twice(files: dict[str, str], kb):
    """(lines of script, the migration, its seconds, the migrated files, the migration of those)."""
    lines = sum(t.count("\n") + 1 for p, t in files.items() if p.endswith(".gd"))
    t0 = time.perf_counter()
    migration = migrate_files(files, kb)
    seconds = time.perf_counter() - t0
    out = {**files, **{f.path: f.migrated for f in migration.files if f.migrated is not None}}
    return lines, migration, seconds, out, migrate_files(out, kb)


def _why(migration) -> dict[str, int]:
    """Why flagged functions were left with a TODO: the hunks' reasons, counted."""
    return dict(Counter(h.why or "?" for f in migration.files for h in f.hunks if h.status == "todo"))


def _print_why(results: dict, label: str, top: int = 12) -> None:
    why = sum((Counter(r["why"]) for r in results.values()), Counter())
    print(f"{label} why functions kept a TODO (top {top} of {len(why)} reasons, {sum(why.values())} functions):")
    for reason, n in why.most_common(top):
        print(f"  {n:5d}  {reason[:110]}")


def run_project(project: Path, kb, renames: dict) -> dict:
    g3, g4 = _side(project / "g3"), _side(project / "g4")
    pairs = json.loads((project / "pairs.json").read_text()) if (project / "pairs.json").is_file() else []
    lines, migration, engine_s, engine, again = _migrated_twice(g3, kb)
    t0 = time.perf_counter()
    conv = converter_like(g3, renames)
    conv_s = time.perf_counter() - t0
    api = kb.api
    res = {"lines": lines, "engine_s": engine_s, "converter_s": conv_s,
           "flagged": migration.summary.flagged, "complete": migration.summary.complete, "why": _why(migration),
           "idempotent": not any(f.migrated is not None for f in again.files),
           "failures": [x for f in migration.files for x in f.failures]}
    for name, side in (("engine", engine), ("converter", conv)):
        judged = _judge_side(side, kb)
        res[f"{name}_leftovers"] = sum(n for n, todo in judged.values() if not todo)
        res[f"{name}_todos"] = sum(t.count(f"# {TODO_TAG}") for p, t in side.items() if p.endswith(".gd"))
        res[f"{name}_unparsable"] = sorted(p for p, t in side.items() if p.endswith(".gd")
                                           and len(parse_errors(t)) > len(parse_errors(g3[p])))
        changed = validated = wanted = got = 0
        for pair in pairs:
            old_f, new_f = _functions(pair["g3"], g3.get(pair["g3"], "")), _functions(pair["g4"], g4.get(pair["g4"], ""))
            mig_f = _functions(pair["g3"], side.get(pair["g3"], ""))
            for fn, code in old_f.items():
                if fn not in new_f or _normalised(code) == _normalised(new_f[fn]):
                    continue
                changed += 1
                n, todo = judged.get((pair["g3"], fn), (1, True))
                validated += n == 0 and not todo
                introduced = _godot4_names(api, new_f[fn]) - set(identifiers(lex(code).masked))
                introduced = {x for x in introduced if not api.defined_anywhere(V3, x) and not api.has_class(V3, x)}
                wanted += len(introduced)
                got += len(introduced & set(identifiers(lex(mig_f.get(fn, "")).masked)))
        res.update({f"{name}_changed": changed, f"{name}_validated": validated, f"{name}_introduced_wanted": wanted,
                    f"{name}_introduced_got": got})
    return res


def run_other(project: Path, kb) -> dict:
    """A project by others, migrated whole: what was written, what was left, and, for a Godot 4 project (the
    negative control), how many files the migration would touch (none should be)."""
    files = _side(project)
    lines, migration, seconds, out, again = _migrated_twice(files, kb)
    judged = _judge_side(out, kb)
    return {"lines": lines, "engine_s": seconds, "flagged": migration.summary.flagged,
            "complete": migration.summary.complete, "todos": migration.summary.todos, "why": _why(migration),
            "scripts_changed": sum(1 for f in migration.files if f.kind == "gdscript" and f.migrated is not None),
            "other_files_changed": sum(1 for f in migration.files if f.kind != "gdscript" and f.migrated is not None),
            "leftovers": sum(n for n, todo in judged.values() if not todo),
            "unparsable": sorted(p for p, t in out.items() if p.endswith(".gd")
                                 and len(parse_errors(t)) > len(parse_errors(files[p]))),
            "idempotent": not any(f.migrated is not None for f in again.files),
            "failures": [x for f in migration.files for x in f.failures]}


def _others(roots: list[Path], kb, label: str) -> dict:
    results = {}
    for project in sorted((p for root in roots for p in root.iterdir() if p.is_dir()), key=lambda p: p.name):
        results[project.name] = r = run_other(project, kb)
        print(f"{label} {project.name:45s} complete {r['complete']}/{r['flagged']}  scripts changed "
              f"{r['scripts_changed']}  other files {r['other_files_changed']}  TODOs {r['todos']}  leftovers "
              f"{r['leftovers']}  unparsable {len(r['unparsable'])}  idempotent {r['idempotent']}  "
              f"{1000 * r['engine_s'] / max(1, r['lines']):.2f} s/1k lines", flush=True)
    if results:
        tot = {k: sum(r[k] for r in results.values()) for k in ("flagged", "complete", "scripts_changed",
                                                                 "other_files_changed", "todos", "leftovers")}
        print(f"{label} total: complete {tot['complete']}/{tot['flagged']}, scripts changed {tot['scripts_changed']}, "
              f"other files changed {tot['other_files_changed']}, TODOs {tot['todos']}, leftovers outside TODOs "
              f"{tot['leftovers']}, unparsable {sum(len(r['unparsable']) for r in results.values())}, idempotent "
              f"{sum(r['idempotent'] for r in results.values())}/{len(results)}")
        if tot["flagged"]:
            print(f"{label} complete share: {100 * tot['complete'] / tot['flagged']:.1f}%")
            _print_why(results, label)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--godot3-only", type=Path, nargs="*", default=[],
                    help="folders of Godot 3 projects by others (DIR/<project>/**)")
    ap.add_argument("--godot4-only", type=Path, nargs="*", default=[],
                    help="folders of Godot 4 projects by others: the migration should change none of their files")
    args = ap.parse_args()
    renames_path = default_renames_file()
    if renames_path is None:
        print("bench/migrate.py needs ../shared/godot-data/renames_3_to_4.json for the converter-like baseline")
        return 2
    renames = json.loads(renames_path.read_text())
    settings = Settings.from_env()
    pool = make_pool(settings, min_size=1, max_size=2)
    kb = knowledge_context(SimpleNamespace(settings=settings, pool=pool))
    if kb is None:
        print("the knowledge base has no API index: run `godot-rag ingest` first")
        return 2
    print("dev sources:")
    for s in dev_sources(args.dirs, [*args.godot3_only, *args.godot4_only]):
        print("  " + "  ".join(f"{k}={v}" for k, v in s.items()))
    others = {"godot3": _others(args.godot3_only, kb, "g3-by-others"),
              "godot4": _others(args.godot4_only, kb, "g4-by-others")}
    results = {}
    for d in args.dirs:
        for project in sorted(p for p in d.iterdir() if (p / "g3").is_dir()):
            if args.only and project.name not in args.only:
                continue
            results[project.name] = r = run_project(project, kb, renames)
            print(f"{project.name:45s} complete {r['complete']}/{r['flagged']}  validated {r['engine_validated']}/"
                  f"{r['engine_changed']} vs {r['converter_validated']}/{r['converter_changed']}  leftovers "
                  f"{r['engine_leftovers']} vs {r['converter_leftovers']}", flush=True)
    if not results:  # projects by others only
        if args.out:
            args.out.write_text(json.dumps({"ports": {}, "others": others}, indent=1))
        return 0
    tot = {k: sum(r[k] for r in results.values()) for k in next(iter(results.values()))
           if isinstance(next(iter(results.values()))[k], (int, float)) and not isinstance(
               next(iter(results.values()))[k], bool)}

    def share(a, b):
        return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "0/0"
    print("\n== totals over", len(results), "projects ==")
    print(f"flagged functions/chunks written whole, no TODO (engine): {share(tot['complete'], tot['flagged'])}")
    for name in ("engine", "converter"):
        print(f"{name:9s}: changed functions validated {share(tot[f'{name}_validated'], tot[f'{name}_changed'])}; "
              f"Godot 3 findings left outside TODOs {tot[f'{name}_leftovers']}; Godot 4 API names introduced "
              f"{share(tot[f'{name}_introduced_got'], tot[f'{name}_introduced_wanted'])}; TODOs {tot[f'{name}_todos']}; "
              f"files that no longer parse {sum(len(r[f'{name}_unparsable']) for r in results.values())}")
    print(f"engine: {1000 * tot['engine_s'] / max(1, tot['lines']):.2f} s per 1,000 lines ({tot['lines']} lines); "
          f"converter-like {1000 * tot['converter_s'] / max(1, tot['lines']):.3f} s; idempotent "
          f"{sum(r['idempotent'] for r in results.values())}/{len(results)} projects; fallbacks "
          f"{sum(len(r['failures']) for r in results.values())}")
    _print_why(results, "ports")
    if args.out:
        args.out.write_text(json.dumps({"ports": results, "others": others}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
