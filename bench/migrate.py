"""The migration engine on the official ports and on projects by others: this tree, an earlier commit and a
converter-like text baseline, side by side in one run.

Reads the folder bench/ports.py reads (bench/portsdata.py builds it: DIR/<project>/g3, g4, pairs.json) and folders
of projects by others. Every project's Godot 3 side (a whole project by others) is migrated three ways:

- `now`: this tree's `agent.migrate.migrate_files` (scripts, scenes, resources, project.godot; validated, with the
  Godot 4 checker and gdtoolkit 4 as the gate);
- `baseline`: the same function at `--baseline REV` (default b15cf6b, the last commit before the gate). REV is
  checked out into a temporary git worktree (bench/portsdata.py `baseline`) and bench/migrate_baseline.py
  migrates the same inputs there, in a subprocess with that tree first on sys.path, before this tree's run (so
  the two never share the CPU); `--baseline ''` leaves it out;
- `converter`: Godot's converter imitated: its rename tables (renames_3_to_4.json: classes, functions,
  properties, signals, constants, built-in types) and its simple syntax rules (`export`, `onready`, `tool`,
  `yield(a, "s")` -> `await a.s`) applied as plain text, comments and strings included.

All three outputs are measured by the same code, in this process (this tree's judge, API index and gdtoolkit).
Per project and in total, for each:

- `flagged` / `complete`: functions and declarations with Godot 3 code, and those written whole with no TODO
  (engines only);
- `gdtoolkit`: the migrated side's .gd files that gdtoolkit 4's Godot 4 grammar rejects
  (`agent.gdscript.grammar.godot4_grammar_error`), each as `path:line: message | the line`, `(unchanged)` when
  the migration left the file as it was; `gdtoolkit_before` (per project): the same over the project as it came;
- `renames`: certain-rename leftovers, lines of migrated scripts that still use a member name M as `.M` (member
  access or call) or as `"M"` in has_method/call/call_deferred/set/get, outside `# TODO(godot-rag)` lines,
  `# godot3:` lines and TODO hunks (the FileMigration's hunks of status `todo`, `new_start_line`..`new_end_line`),
  where M is the `old` of enabled rows of agent/data/changes/member_renames.json that all give one successor, no
  4.x class defines M, and no script of the project (as it came or migrated) declares M; comments and strings
  other than those arguments do not count;
- `leftovers`: Godot 3 findings the judge, run again on the migrated project's model, finds outside TODOs;
  `unparsable`: changed files with more tree-sitter errors than before;
- over the ports' *changed* functions (a paired function whose code, comments and blank lines left out, differs
  between the two sides; a function's names are its identifiers in code; a function the migration no longer has
  counts as its Godot 3 code): `validated`, those whose migrated code the judge finds no Godot 3 code in (a
  function under a TODO does not pass); `removed`, of the Godot 3 API names (3.x defines them) the maintainers
  removed from a function, the share the migration removed too, and the same share over only the names no 4.x
  class or global defines (a name Godot 4 still has, `emit_signal` or `clamp`, is the maintainers' choice, not a
  change the port needs); `introduced`, of the Godot 4 API names the
  maintainers introduced (4.x defines them, 3.x does not, the Godot 3 function did not hold them), the share the
  migration introduced too; `spurious`, API names (of either index) the migration introduced that neither the
  Godot 3 function nor the maintainers' Godot 4 function holds (per function; the names are tallied);
- `todos` (TODO comments), `scripts_changed` / `other_files_changed` (in Godot 4 projects, the negative control:
  none should change), `failures` (rewrites that fell back on validation), `errors` (the engine raised: the
  traceback), `idempotent` (a second migration changes nothing; `now` only);
- seconds per 1,000 lines of script, and for `now` the gate's share of the migration's wall time: this process
  wraps `Checker.check`/`check_text` and every `godot4_grammar_error` the engine calls with timers (a call inside
  another is counted once; gdtoolkit's cache is cleared before each project, so none starts warm);
- `why`: the reasons of the TODO hunks (`MigrationHunk.why`), counted: the next pattern to teach the engine is
  the one that leaves the most functions behind.

The converter is measured without the judge on projects by others (no `leftovers` there).

    GODOT_RAG_HOME=.godot_rag_home .venv/bin/python bench/migrate.py /work/ports [--only NAME ...]
        [--godot3-only DIR ...] [--godot4-only DIR ...] [--baseline REV] [--out F.json]

`--only NAME ...` limits the run to those projects (ports and by others). The run names this tree first (HEAD and
the files under agent/ that differ from it), then every dev source (a ports folder's SOURCES.tsv, the sources.tsv
of a folder of projects by others). The knowledge base is the one of
GODOT_RAG_HOME (its API index and mapping rows; no embeddings are loaded), for both trees.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.migrate_baseline import migrate_at  # noqa: E402
from bench.ports import _normalised, _side  # noqa: E402
from bench.portsdata import dev_sources  # noqa: E402
from agent.apiindex import V3, V4  # noqa: E402
from agent.gdscript.checker import Checker  # noqa: E402
from agent.gdscript.grammar import godot4_grammar_error  # noqa: E402
from agent.gdscript.model import ScriptModel  # noqa: E402
from agent.judge.lexer import identifiers, lex  # noqa: E402
from agent.judge.project import knowledge_context  # noqa: E402
from agent.migrate import TODO_TAG, migrate_files, migration_context  # noqa: E402
from agent.migrate.safe_edits import COMMENTED  # noqa: E402
from agent.migrate.script import judge_chunk, marked, needs_migration, parse_errors, script_chunks  # noqa: E402
from agent.settings import Settings, default_renames_file  # noqa: E402
from agent.storage.db import make_pool  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MEMBER_RENAMES = ROOT / "agent" / "data" / "changes" / "member_renames.json"
LABELS = ("now", "baseline", "converter")
_TABLES = ("class_renames", "builtin_types_renames", "gdscript_function_renames", "gdscript_properties_renames",
           "gdscript_signals_renames", "enum_renames")
_MEMBER = re.compile(r"\.[ \t]*([A-Za-z_]\w*)")
_BY_NAME = re.compile(r'\b(?:has_method|call|call_deferred|set|get)\s*\(\s*"(\w+)"')


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


# --- the gate's clock -----------------------------------------------------------------------------------------

class GateClock:
    """Seconds the engine spends in the Godot 4 gate (the checker, gdtoolkit 4) while `on`; a call made inside
    another timed call is counted once, in `gate` and in its own name."""

    def __init__(self) -> None:
        self.on = False
        self.seconds: Counter[str] = Counter()
        self._depth: Counter[str] = Counter()

    def wrap(self, name: str, fn):
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            if not self.on:
                return fn(*args, **kwargs)
            self._depth[name] += 1
            self._depth["gate"] += 1
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                dt = time.perf_counter() - t0
                for k in (name, "gate"):
                    self._depth[k] -= 1
                    if not self._depth[k]:
                        self.seconds[k] += dt
        return timed

    def install(self) -> None:
        """Wrap `Checker.check`/`check_text` and every `agent` module's `godot4_grammar_error` (this process only:
        this module keeps the plain function for its own measures)."""
        for attr in ("check", "check_text"):
            setattr(Checker, attr, self.wrap("checker", getattr(Checker, attr)))
        timed = self.wrap("gdtoolkit", godot4_grammar_error)
        for name, module in list(sys.modules.items()):
            if name.startswith("agent") and getattr(module, "godot4_grammar_error", None) is godot4_grammar_error:
                module.godot4_grammar_error = timed


# --- the three migrations: {"files": the migrated side, "record": ProjectMigration as JSON or None, "seconds",
# "errors": tracebacks, and for `now` "gate" and "idempotent"} -----------------------------------------------------

def _applied(files: dict[str, str], record: dict) -> dict[str, str]:
    return {**files, **{f["path"]: f["migrated"] for f in record["files"] if f["migrated"] is not None}}


def migrate_now(files: dict[str, str], kb, clock: GateClock) -> dict:
    """This tree's migration, timed with its gate, then migrated again (idempotence)."""
    godot4_grammar_error.cache_clear()
    clock.seconds.clear()
    clock.on = True
    t0 = time.perf_counter()
    try:
        migration = migrate_files(files, kb)
    except Exception:  # noqa: BLE001 - a crash is a result: its traceback is reported
        return {"files": files, "record": None, "seconds": time.perf_counter() - t0,
                "errors": [traceback.format_exc()], "idempotent": False}
    finally:
        clock.on = False
    seconds = time.perf_counter() - t0
    record = migration.model_dump(mode="json")
    out = _applied(files, record)
    result = {"files": out, "record": record, "seconds": seconds, "gate": dict(clock.seconds), "errors": [],
              "idempotent": True}
    if out != files:  # else a second migration has the same input: the same result
        try:
            again = migrate_files(out, kb)
        except Exception:  # noqa: BLE001
            result["errors"].append("the second migration: " + traceback.format_exc())
            result["idempotent"] = False
        else:
            result["idempotent"] = not any(f.migrated is not None for f in again.files)
    return result


def baseline_output(path: Path, files: dict[str, str]) -> dict:
    """What bench/migrate_baseline.py wrote for one input."""
    if not path.is_file():
        return {"files": files, "record": None, "seconds": 0.0, "errors": ["the baseline wrote no output"]}
    r = json.loads(path.read_text(encoding="utf-8"))
    if "error" in r:
        return {"files": files, "record": None, "seconds": r["seconds"], "errors": [r["error"]]}
    return {"files": _applied(files, r["migration"]), "record": r["migration"], "seconds": r["seconds"],
            "errors": []}


def converter_output(files: dict[str, str], renames: dict) -> dict:
    t0 = time.perf_counter()
    out = converter_like(files, renames)
    return {"files": out, "record": None, "seconds": time.perf_counter() - t0, "errors": []}


# --- measures -------------------------------------------------------------------------------------------------

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


def _ids(code: str) -> set[str]:
    return set(identifiers(lex(code).masked))


def _api(api, version: str, name: str) -> bool:
    return api.has_class(version, name) or api.defined_anywhere(version, name)


def certain_renames(api) -> set[str]:
    """Old member names whose enabled rename rows give one successor, and that no 4.x class defines."""
    news: dict[str, set[str]] = {}
    for row in json.loads(MEMBER_RENAMES.read_text(encoding="utf-8"))["members"]:
        if row["enabled"]:
            news.setdefault(row["old"], set()).add(row["new"])
    return {old for old, new in news.items() if len(new) == 1 and not api.defined_anywhere(V4, old)}


def _declared(texts) -> set[str]:
    """Every name the scripts declare: members, enum values, inner classes (theirs too)."""
    names: set[str] = set()
    for text in texts:
        models = [ScriptModel.build(text)]
        while models:
            m = models.pop()
            names |= {*m.members, *m.enum_values, *m.inner}
            models.extend(m.inner.values())
    return names


def _rejections(original: dict[str, str], out: dict[str, str]) -> list[str]:
    found = []
    for path in sorted(p for p in out if p.endswith(".gd")):
        if (err := godot4_grammar_error(out[path])) is not None:
            lines = out[path].split("\n")
            text = lines[err.line - 1].strip()[:120] if 0 < err.line <= len(lines) else ""
            found.append(f"{path}:{err.line}: {err.message}" + ("  (unchanged)" if out[path] == original[path] else "")
                         + f"  | {text}")
    return found


def _rename_leftovers(out: dict[str, str], record: dict | None, certain: set[str]) -> list[str]:
    todo = {f["path"]: [(h["new_start_line"], h["new_end_line"]) for h in f["hunks"] if h["status"] == "todo"]
            for f in (record or {}).get("files", [])}
    found = []
    for path in sorted(p for p in out if p.endswith(".gd")):
        text = out[path]
        lexed = lex(text)
        for n, (line, masked, bare) in enumerate(zip(text.split("\n"), lexed.masked.split("\n"),
                                                     lexed.no_comments.split("\n")), 1):
            if (TODO_TAG in line or line.lstrip().startswith(COMMENTED.strip())
                    or any(a <= n <= b for a, b in todo.get(path, ()))):
                continue
            names = {m.group(1) for m in _MEMBER.finditer(masked)}
            names |= {m.group(1) for m in _BY_NAME.finditer(bare) if masked[m.start()] != " "}
            if hit := sorted(names & certain):
                found.append(f"{path}:{n}: [{', '.join(hit)}] {line.strip()[:160]}")
    return found


def _changed_functions(api, g3: dict[str, str], g4: dict[str, str], out: dict[str, str], pairs: list[dict],
                       judged: dict | None) -> dict:
    """Validated, removed, introduced and spurious names over the ports' changed functions."""
    res: Counter[str] = Counter()
    spurious: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    missing: Counter[str] = Counter()
    for pair in pairs:
        old_f, new_f = _functions(pair["g3"], g3.get(pair["g3"], "")), _functions(pair["g4"], g4.get(pair["g4"], ""))
        mig_f = _functions(pair["g3"], out.get(pair["g3"], ""))
        for fn, code in old_f.items():
            if fn not in new_f or _normalised(code) == _normalised(new_f[fn]):
                continue
            res["changed"] += 1
            if judged is not None:
                n, todo = judged.get((pair["g3"], fn), (1, True))
                res["validated"] += n == 0 and not todo
            ids3, ids4, mig = _ids(code), _ids(new_f[fn]), _ids(mig_f.get(fn, code))
            removed = {x for x in ids3 - ids4 if _api(api, V3, x)}
            introduced = {x for x in ids4 - ids3 if _api(api, V4, x) and not _api(api, V3, x)}
            extra = {x for x in mig - ids3 - ids4 if _api(api, V4, x) or _api(api, V3, x)}
            lacking = {x for x in removed if not _api(api, V4, x)}  # names Godot 4 lacks: the change is required
            res["lacking_wanted"] += len(lacking)
            res["lacking_got"] += len(lacking - mig)
            res["removed_wanted"] += len(removed)
            res["removed_got"] += len(removed - mig)
            res["introduced_wanted"] += len(introduced)
            res["introduced_got"] += len(introduced & mig)
            res["spurious"] += len(extra)
            spurious.update(extra)
            kept.update(lacking & mig)
            missing.update(introduced - mig)
    return {**res, "spurious_names": dict(spurious.most_common()), "kept_names": dict(kept.most_common()),
            "missing_names": dict(missing.most_common())}


def _why(record: dict) -> dict[str, int]:
    """Why flagged functions were left with a TODO: the hunks' reasons, counted."""
    return dict(Counter(h["why"] or "?" for f in record["files"] for h in f["hunks"] if h["status"] == "todo"))


def measure(original: dict[str, str], output: dict, kb, certain: set[str], *, judge: bool = True,
            g4: dict[str, str] | None = None, pairs: list[dict] | None = None, judged_memo: dict | None = None) -> dict:
    """Every measure of one migration of one project (the same code for `now`, `baseline` and `converter`)."""
    out, record = output["files"], output["record"]
    gd = sorted(p for p in out if p.endswith(".gd"))
    changed = [p for p in gd if out[p] != original[p]]
    declared = _declared([*(original[p] for p in gd), *(out[p] for p in changed)])
    res: dict = {"seconds": output["seconds"], "errors": output["errors"], "scripts_changed": len(changed),
                 "other_files_changed": sum(out[p] != original[p] for p in out if not p.endswith(".gd")),
                 "todos": sum(out[p].count(f"# {TODO_TAG}") for p in gd),
                 "gdtoolkit": _rejections(original, out), "renames": _rename_leftovers(out, record, certain - declared)}
    if record is not None:
        res.update(flagged=record["summary"]["flagged"], complete=record["summary"]["complete"], why=_why(record),
                   failures=[x for f in record["files"] for x in f["failures"]])
    for k in ("gate", "idempotent"):
        if k in output:
            res[k] = output[k]
    judged = None
    if judge:
        key = hash(tuple(sorted(out.items())))  # two engines that write the same side are judged once
        if judged_memo is None or key not in judged_memo:
            judged = _judge_side(out, kb)
            if judged_memo is not None:
                judged_memo[key] = judged
        judged = judged_memo[key] if judged_memo is not None else judged
        res["leftovers"] = sum(n for n, todo in judged.values() if not todo)
        res["unparsable"] = [p for p in changed if len(parse_errors(out[p])) > len(parse_errors(original[p]))]
    if pairs is not None and g4 is not None:
        res.update(_changed_functions(kb.api, original, g4, out, pairs, judged))
    return res


def run_project(files: dict[str, str], outputs: dict[str, dict], kb, certain: set[str], *, judge_converter: bool,
                g4: dict[str, str] | None = None, pairs: list[dict] | None = None) -> dict:
    """One project: its size, gdtoolkit on it as it came, and every output measured."""
    gd = [p for p in files if p.endswith(".gd")]
    res: dict = {"lines": sum(files[p].count("\n") + 1 for p in gd), "scripts": len(gd),
                 "gdtoolkit_before": sum(godot4_grammar_error(files[p]) is not None for p in gd)}
    memo: dict = {}
    for label, output in outputs.items():
        res[label] = measure(files, output, kb, certain, judge=label != "converter" or judge_converter, g4=g4,
                             pairs=pairs, judged_memo=memo)
    return res


# --- printing -------------------------------------------------------------------------------------------------

def _share(a: float, b: float) -> str:
    return f"{a:,}/{b:,} ({100 * a / b:.1f}%)" if b else "0/0"


def _line(name: str, r: dict, labels: list[str]) -> str:
    parts = []
    for label in labels:
        m = r[label]
        done = f"complete {m['complete']}/{m['flagged']} " if "flagged" in m else ""
        parts.append(f"{label}: {done}changed {m['scripts_changed']}+{m['other_files_changed']} gdtoolkit "
                     f"{len(m['gdtoolkit'])} renames {len(m['renames'])} leftovers {m.get('leftovers', '-')}"
                     + (" CRASHED" if m["errors"] else ""))
    return f"{name:44s} " + " | ".join(parts)


def _total(results: dict, label: str) -> dict:
    rows = [r[label] for r in results.values()]
    t: Counter = Counter()
    for r in rows:
        for k, v in r.items():
            if isinstance(v, bool):
                t[k] += int(v)
            elif isinstance(v, (int, float)):
                t[k] += v
            elif isinstance(v, list):
                t[k] += len(v)
            elif k == "gate":
                t.update({f"gate_{g}": s for g, s in v.items()})
    t["has_flagged"] = any("flagged" in r for r in rows)
    t["has_pairs"] = any("changed" in r for r in rows)
    t["has_judge"] = any("leftovers" in r for r in rows)
    t["has_idempotent"] = any("idempotent" in r for r in rows)
    t["has_gate"] = any("gate" in r for r in rows)
    return t


def print_totals(title: str, results: dict, labels: list[str], names: dict[str, str]) -> dict:
    """The side-by-side table of one group of projects; returns the totals."""
    if not results:
        return {}
    lines = sum(r["lines"] for r in results.values())
    scripts = sum(r["scripts"] for r in results.values())
    tots = {label: _total(results, label) for label in labels}

    def row(t):
        return {
            "flagged -> complete, no TODO": _share(t["complete"], t["flagged"]) if t["has_flagged"] else "-",
            "changed functions validated": _share(t["validated"], t["changed"]) if t["has_pairs"] and t["has_judge"]
            else "-",
            "Godot 3 findings outside TODOs (judge)": f"{t['leftovers']:,}" if t["has_judge"] else "-",
            "gdtoolkit 4 rejections (files)": f"{t['gdtoolkit']:,} of {scripts:,}",
            "certain-rename leftovers (lines)": f"{t['renames']:,}",
            "maintainers' removed 3.x names, removed": _share(t["removed_got"], t["removed_wanted"])
            if t["has_pairs"] else "-",
            "  of them names Godot 4 lacks, removed": _share(t["lacking_got"], t["lacking_wanted"])
            if t["has_pairs"] else "-",
            "maintainers' introduced 4.x names, introduced": _share(t["introduced_got"], t["introduced_wanted"])
            if t["has_pairs"] else "-",
            "spurious API names (per function)": f"{t['spurious']:,}" if t["has_pairs"] else "-",
            "TODO comments": f"{t['todos']:,}",
            "scripts / other files changed": f"{t['scripts_changed']:,} / {t['other_files_changed']:,}",
            "changed files tree-sitter no longer parses": f"{t['unparsable']}" if t["has_judge"] else "-",
            "idempotent projects": f"{t['idempotent']}/{len(results)}" if t["has_idempotent"] else "-",
            "fallbacks on validation": f"{t['failures']}" if t["has_flagged"] else "-",
            "crashes": f"{t['errors']}",
            "seconds per 1,000 lines": f"{1000 * t['seconds'] / max(1, lines):.3f}",
            "checker + gdtoolkit share of wall time": (
                f"{100 * t['gate_gate'] / max(t['seconds'], 1e-9):.1f}% (checker {t['gate_checker']:.1f}s, "
                f"gdtoolkit {t['gate_gdtoolkit']:.1f}s of {t['seconds']:.1f}s)") if t["has_gate"] else "-",
        }
    table = {label: row(tots[label]) for label in labels}
    before = sum(r["gdtoolkit_before"] for r in results.values())
    print(f"\n== {title}: {len(results)} projects, {scripts:,} scripts, {lines:,} lines "
          f"(gdtoolkit 4 rejects {before:,} of the scripts as they came) ==")
    heads = [names[label] for label in labels]
    width = [max(len(h), *(len(table[label][k]) for k in table[labels[0]])) for h, label in zip(heads, labels)]
    print(f"{'':46s}" + "  ".join(h.ljust(w) for h, w in zip(heads, width)))
    for k in table[labels[0]]:
        print(f"{k:46s}" + "  ".join(table[label][k].ljust(w) for label, w in zip(labels, width)))
    for key, what in (("kept_names", "removed names Godot 4 lacks, kept"), ("missing_names", "introduced 4.x names missing")):
        if key in next(iter(results.values()))[labels[0]]:
            names_ = sum((Counter(r[labels[0]].get(key, {})) for r in results.values()), Counter())
            print(f"  {labels[0]} {what} (top 40): " + ", ".join(f"{k} {v}" for k, v in names_.most_common(40)))
    if "spurious_names" in next(iter(results.values()))[labels[0]]:
        for label in labels:
            names_ = sum((Counter(r[label].get("spurious_names", {})) for r in results.values()), Counter())
            print(f"  {label} spurious names (top 12): "
                  + ", ".join(f"{n} {c}" for n, c in names_.most_common(12)))
    return {label: {k: v for k, v in tots[label].items() if not k.startswith("has_")} for label in labels}


def print_lists(title: str, results: dict, label: str, top: int) -> None:
    """The label's gdtoolkit rejections and certain-rename leftovers, and its crashes, per project."""
    for key, what in (("gdtoolkit", "gdtoolkit 4 rejections"), ("renames", "certain-rename leftovers")):
        found = [f"{name}/{x}" for name, r in results.items() for x in r[label][key]]
        print(f"{title} {label} {what}: {len(found)}" + (f" (first {top})" if len(found) > top else ""))
        for x in found[:top]:
            print(f"  {x}")
    for name, r in results.items():
        for err in r[label]["errors"]:
            print(f"{title} {label} CRASH in {name}:\n  " + "\n  ".join(err.strip().splitlines()[-12:]))


def print_why(results: dict, label: str, title: str, top: int = 12) -> None:
    why = sum((Counter(r[label].get("why", {})) for r in results.values()), Counter())
    print(f"{title} {label}: why functions kept a TODO (top {top} of {len(why)} reasons, {sum(why.values())}):")
    for reason, n in why.most_common(top):
        print(f"  {n:5d}  {reason[:110]}")


# --- the run --------------------------------------------------------------------------------------------------

def _tree_state() -> str:
    """HEAD, and the files under agent/ that differ from it (others may be editing this tree during a run)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "agent"], capture_output=True,
                           text=True).stdout.split("\n")
    dirty = [line[3:] for line in dirty if line.strip()]
    return head + (f" + uncommitted: {', '.join(dirty)}" if dirty else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--only", nargs="*", default=None, help="project folder names to run (ports and by others)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--write", type=Path, default=None,
                    help="also write this tree's migrated scripts under DIR/<project>/ (for reading hunks by hand)")
    ap.add_argument("--godot3-only", type=Path, nargs="*", default=[],
                    help="folders of Godot 3 projects by others (DIR/<project>/**)")
    ap.add_argument("--godot4-only", type=Path, nargs="*", default=[],
                    help="folders of Godot 4 projects by others: the migration should change none of their files")
    ap.add_argument("--baseline", default="b15cf6b",
                    help="the git revision whose engine migrates the same inputs in the same run ('' for none)")
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
    tree = _tree_state()
    print(f"this tree: {tree}")
    sources = dev_sources(args.dirs, [*args.godot3_only, *args.godot4_only])
    print("dev sources:")
    for s in sources:
        print("  " + "  ".join(f"{k}={v}" for k, v in s.items()))

    # every input, read once: (group, project folder) -> the files the engines migrate
    wanted = set(args.only) if args.only else None
    projects = [("godot3", p) for root in args.godot3_only for p in sorted(root.iterdir()) if p.is_dir()]
    projects += [("godot4", p) for root in args.godot4_only for p in sorted(root.iterdir()) if p.is_dir()]
    projects += [("ports", p) for d in args.dirs for p in sorted(d.iterdir()) if (p / "g3").is_dir()]
    projects = [(g, p) for g, p in projects if wanted is None or p.name in wanted]
    inputs = {f"{g}__{p.parent.name}__{p.name}": _side(p / "g3" if g == "ports" else p) for g, p in projects}

    labels = ["now", "converter"]
    names = {"now": "now", "converter": "converter"}
    keep = tempfile.TemporaryDirectory(prefix="godot-rag-migrate-bench-")
    base_dir = None
    if args.baseline:
        print(f"\nbaseline {args.baseline}: migrating {len(inputs)} projects in a worktree", flush=True)
        t0 = time.perf_counter()
        base_dir = migrate_at(args.baseline, inputs, Path(keep.name))
        print(f"baseline done in {time.perf_counter() - t0:.0f}s\n", flush=True)
        labels.insert(1, "baseline")
        names["baseline"] = f"baseline {args.baseline}"

    clock = GateClock()
    clock.install()
    certain = certain_renames(kb.api)
    results: dict[str, dict] = {"ports": {}, "godot3": {}, "godot4": {}}
    for (group, project), (key, files) in zip(projects, inputs.items()):
        outputs = {"now": migrate_now(files, kb, clock)}
        if args.write:
            for path, text in outputs["now"]["files"].items():
                if text != files.get(path):
                    target = args.write / key / path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text)
        if base_dir is not None:
            outputs["baseline"] = baseline_output(base_dir / f"{key}.json", files)
        outputs["converter"] = converter_output(files, renames)
        outputs = {label: outputs[label] for label in labels}
        if group == "ports":
            g4 = _side(project / "g4")
            pairs = json.loads((project / "pairs.json").read_text()) if (project / "pairs.json").is_file() else []
            r = run_project(files, outputs, kb, certain, judge_converter=True, g4=g4, pairs=pairs)
        else:
            r = run_project(files, outputs, kb, certain, judge_converter=False)
        results[group][project.name] = r
        print(_line(f"{group} {project.name}", r, labels), flush=True)
        for label in labels:
            for err in r[label]["errors"]:
                print(f"  {label} CRASHED: " + " | ".join(err.strip().splitlines()[-3:]), flush=True)
    keep.cleanup()

    totals = {}
    for group, title in (("ports", "ports"), ("godot3", "Godot 3 projects by others"),
                         ("godot4", "Godot 4 projects by others (negative control)")):
        totals[group] = print_totals(title, results[group], labels, names)
    for group in ("ports", "godot3", "godot4"):
        if results[group]:
            print()
            print_lists(group, results[group], "now", 50)
            for label in labels[1:]:
                for err in (e for r in results[group].values() for e in r[label]["errors"]):
                    print(f"{group} {label} CRASH:\n  " + "\n  ".join(err.strip().splitlines()[-12:]))
            if group != "godot4":
                print_why(results[group], "now", group)
    if args.out:
        args.out.write_text(json.dumps({"tree": tree, "baseline": args.baseline, "sources": sources, "totals": totals,
                                        **results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
