"""Aggregation rules: chunk signals -> file versions -> project verdict, migration items, project.godot signal.

Pure functions over score-DB rows, so they are unit-testable and the same rules serve the
graph's aggregate node and reports of unfinished runs. File names never decide anything: the
judged chunk signals, weighed by their strength (`agent.judge.strength`), decide each file, and the
files decide the project (`decide_project`); project.godot's config_version counts where present.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from agent.models import Expansion
from agent.present import replacement_words

_CONFIG_VERSION = re.compile(r"^\s*config_version\s*=\s*(\d+)", re.MULTILINE)
_FEATURES = re.compile(r"^\s*config/features\s*=\s*PackedStringArray\((.*)\)", re.MULTILINE)
_QUOTED = re.compile(r'"([^"]*)"')
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def project_signals(expansion: Expansion) -> dict[str, Any]:
    """config_version / features of the project's project.godot (shallowest one), or {}."""
    configs = [f for f in expansion.included if f.path.rsplit("/", 1)[-1] == "project.godot" and f.text]
    if not configs:
        return {}
    f = min(configs, key=lambda x: (x.path.count("/"), x.path))
    text = f.text or ""
    out: dict[str, Any] = {"file": f.path, "config_version": None, "features": [], "suggests": "unknown"}
    m = _CONFIG_VERSION.search(text)
    if m:
        version = int(m.group(1))
        out["config_version"] = version
        # Godot 4.x writes config_version=5; Godot 3.x writes 4 (older versions less).
        out["suggests"] = "godot4" if version >= 5 else "godot3"
    feats = _FEATURES.search(text)
    if feats:
        out["features"] = _QUOTED.findall(feats.group(1))
        if any(x[:2] == "4." for x in out["features"]):
            out["suggests"] = "godot4"
    out["note"] = "project.godot's config_version counts as strong evidence; the scripts decide first"
    return out


def signal_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """godot3 / godot4 / neutral counts over done chunks."""
    counts = {"godot3": 0, "godot4": 0, "neutral": 0}
    for r in rows:
        if r.get("status") == "done" and r.get("version_signal") in counts:
            counts[r["version_signal"]] += 1
    return counts


def decide_label(code_counts: Mapping[str, int]) -> str:
    """godot3 | godot4 | mixed | ambiguous from chunk signals alone (the fallback when nothing is decisive)."""
    g3, g4 = code_counts.get("godot3", 0), code_counts.get("godot4", 0)
    if g3 == 0 and g4 == 0:
        return "ambiguous"
    if g4 == 0:
        return "godot3"
    if g3 == 0:
        return "godot4"
    return "mixed"


_CODE_KINDS = {"gdscript"}
STALE_FORMAT_NOTE = "not re-saved since Godot 3 (format=2); Godot 4 converts it when it loads"


def _strength(row: Mapping[str, Any]) -> str:
    """A done chunk's signal strength (rows stored before strengths existed count as strong)."""
    return (row.get("judgment") or {}).get("strength") or "strong"


def file_versions(rows: Iterable[Mapping[str, Any]], files: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each analysed file's own version, from its own chunks: {path: {kind, version, decisive, godot3, godot4}}.

    `version` is godot3 / godot4 / mixed / neutral: decisive signals (code the other version cannot
    load) decide first; without any, a file whose sure signals all point one way takes that way.
    """
    kinds = {f["path"]: f.get("kind") for f in files}
    per: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("status") != "done" or r.get("version_signal") not in ("godot3", "godot4"):
            continue
        f = per.setdefault(r["source_file"], {"kind": kinds.get(r["source_file"], "unknown"),
                                              "godot3": [], "godot4": [], "decisive3": False, "decisive4": False})
        strength = _strength(r)
        if strength == "weak":
            continue
        f[r["version_signal"]].append(r)
        if strength == "decisive":
            f["decisive3" if r["version_signal"] == "godot3" else "decisive4"] = True
    out: dict[str, dict[str, Any]] = {}
    for path, f in per.items():
        d3, d4 = f["decisive3"], f["decisive4"]
        if d3 or d4:
            version = "mixed" if d3 and d4 else ("godot3" if d3 else "godot4")
        else:
            version = decide_label({"godot3": len(f["godot3"]), "godot4": len(f["godot4"])})
            version = "neutral" if version == "ambiguous" else version
        out[path] = {"kind": f["kind"], "version": version, "decisive": d3 or d4,
                     "godot3": len(f["godot3"]), "godot4": len(f["godot4"]), "rows3": f["godot3"]}
    return out


def decide_project(per_file: Mapping[str, Mapping[str, Any]], signals: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the project verdict claims, decided from its files (never from file names or a chunk count).

    - godot4: a Godot 4 project (a script only Godot 4 loads, or project.godot's config_version=5), with
      no script that only Godot 3 loads; Godot 3 uses in its code are listed as *leftovers to check*, and
      scenes or resources it never re-saved as *notes* (Godot 4 converts them when it loads them).
    - godot3: the same, the other way round.
    - mixed: the project really holds files of both versions: a script only Godot 3 loads next to one
      only Godot 4 loads (or against project.godot's config_version), or, with nothing decisive, scripts
      whose sure signals point both ways.
    - ambiguous: nothing tells.
    Without scripts that say anything, project.godot decides, then the scenes and resources.
    """
    config = (signals or {}).get("suggests") if (signals or {}).get("config_version") is not None else None
    code = {p: f for p, f in per_file.items() if f["kind"] in _CODE_KINDS}
    data = {p: f for p, f in per_file.items() if f["kind"] not in _CODE_KINDS and f["kind"] != "project_config"}
    sure3 = sorted(p for p, f in code.items() if f["decisive"] and f["version"] in ("godot3", "mixed"))
    sure4 = sorted(p for p, f in code.items() if f["decisive"] and f["version"] in ("godot4", "mixed"))
    three = bool(sure3) or config == "godot3"
    four = bool(sure4) or config == "godot4"
    if three and four:
        label, basis = "mixed", "scripts only Godot 3 loads next to " + (
            "scripts only Godot 4 loads" if sure3 and sure4 else
            f"project.godot's config_version={signals['config_version']}" if sure3 else "a Godot 3 project.godot")
    elif three or four:
        label = "godot3" if three else "godot4"
        sure = sure3 if three else sure4
        basis = (f"{len(sure)} script(s) only Godot {label[-1]} loads" if sure else "") + (
            (" and " if sure else "") + f"project.godot's config_version={signals['config_version']}"
            if config == label else "")
    else:
        leaning = {v: sorted(p for p, f in code.items() if f["version"] == v) for v in ("godot3", "godot4", "mixed")}
        label = decide_label({"godot3": len(leaning["godot3"]) + len(leaning["mixed"]),
                              "godot4": len(leaning["godot4"]) + len(leaning["mixed"])})
        basis = "API uses in the scripts, none decisive" if label != "ambiguous" else ""
        if label == "ambiguous":
            label = decide_label({"godot3": sum(f["version"] in ("godot3", "mixed") for f in data.values()),
                                  "godot4": sum(f["version"] in ("godot4", "mixed") for f in data.values())})
            basis = "the scenes and resources (no script tells)" if label != "ambiguous" else "nothing tells"
    other = "godot3" if label == "godot4" else "godot4" if label == "godot3" else None
    leftovers, notes = [], []
    if other == "godot3":
        for path in sorted(per_file):
            f = per_file[path]
            if f["kind"] == "project_config" or not f["rows3"]:
                continue
            if f["kind"] in _CODE_KINDS:
                leftovers += [{"source_file": r["source_file"], "start_line": r["start_line"],
                               "end_line": r["end_line"], "chunk_id": r["chunk_id"],
                               "why": (r.get("judgment") or {}).get("rationale", "")[:300]} for r in f["rows3"]]
            else:
                notes.append({"source_file": path, "note": STALE_FORMAT_NOTE})
    return {"label": label, "basis": basis.strip(), "leftovers": leftovers, "notes": notes,
            "godot3_files": sure3, "godot4_files": sure4}


def change_line(row: Mapping[str, Any], old: str | None) -> int:
    """The file's own line where `old` first appears in the chunk (the chunk's first line if nowhere).

    A change names an API, not a line; users read "line N", so N must be where that API is
    written, not where its function starts.
    """
    start = int(row["start_line"])
    code = row.get("code_text")
    if not old or not code:
        return start
    head = old.split("(")[0].strip()
    pattern = re.compile(r"(?<![\w.])" + re.escape(head) + r"(?!\w)") if head else None
    for offset, line in enumerate(code.splitlines()):
        text = line.split("#", 1)[0]
        if pattern is not None and pattern.search(text):
            return start + offset
        if pattern is None and old in text:
            return start + offset
    # a member change like `KinematicBody2D.move_and_slide` is written as `.move_and_slide(`
    tail = head.rsplit(".", 1)[-1] if head else ""
    if tail and tail != head:
        member = re.compile(r"(?<!\w)" + re.escape(tail) + r"(?!\w)")
        for offset, line in enumerate(code.splitlines()):
            if member.search(line.split("#", 1)[0]):
                return start + offset
    return start


_CALL_TAIL = re.compile(r"\(\s*\)$")


def changes_nothing(old: str | None, new: str | None) -> bool:
    """An item whose old and new text mean the same to the code: `is_on_floor()` -> `CharacterBody2D.is_on_floor`
    (the member keeps its name; only the class that documents it changed, and the code does not name the class)."""
    if not old or not new:
        return False
    o, n = (_CALL_TAIL.sub("", " ".join(str(t).split())) for t in (old, new))
    if o == n:
        return True
    if not re.fullmatch(r"[\w.]+", o) or not re.fullmatch(r"[\w.]+", n) or o.rsplit(".", 1)[-1] != n.rsplit(".", 1)[-1]:
        return False
    receiver = o.rsplit(".", 1)[0] if "." in o else ""
    return not receiver[:1].isupper()


def migration_items(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One item per suggested change of a done chunk: file:lines, the line it is on, old -> new, evidence link."""
    items: list[dict[str, Any]] = []
    for r in rows:
        j = r.get("judgment") or {}
        if r.get("status") != "done" or not j.get("migration_required"):
            continue
        changes = j.get("suggested_changes") or []
        if not changes:
            items.append(
                {
                    "source_file": r["source_file"], "start_line": r["start_line"], "end_line": r["end_line"],
                    "line": r["start_line"], "old": None, "new": None, "change_type": j.get("label"), "docs_url": None,
                    "evidence_id": (j.get("evidence_ids") or [None])[0], "chunk_id": r["chunk_id"],
                    "old_docs_url": None,
                }
            )
        for c in changes:
            if changes_nothing(c.get("old"), c.get("new")):
                continue
            items.append(
                {
                    "source_file": r["source_file"], "start_line": r["start_line"], "end_line": r["end_line"],
                    "line": change_line(r, c.get("old")), "old": c.get("old"), "new": c.get("new"), "change_type": c.get("change_type"),
                    "docs_url": c.get("docs_url"), "evidence_id": c.get("evidence_id"), "chunk_id": r["chunk_id"],
                    "old_docs_url": c.get("old_docs_url"),
                }
            )
    return items


def compute_verdict(
    rows: list[Mapping[str, Any]],
    files: list[Mapping[str, Any]],
    signals: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The verdict object of the report; withheld (ambiguous, complete=false) until every chunk is done."""
    counts = signal_counts(rows)
    missing = [r for r in rows if r.get("status") != "done"]
    complete = not missing
    items = migration_items(rows)
    excluded = [{"path": f["path"], "reason": f["reason"]} for f in files if not f.get("included")]
    decided = decide_project(file_versions(rows, files), signals) if complete else {
        "label": "ambiguous", "basis": "", "leftovers": [], "notes": [], "godot3_files": [], "godot4_files": []}
    label = decided["label"]
    # a Godot 4 project migrates only its leftovers in code; never-re-saved scenes are Godot 4's to convert
    migration = complete and (bool(decided["leftovers"]) if label == "godot4" else any(
        (r.get("judgment") or {}).get("migration_required") for r in rows if r.get("status") == "done"))
    summary = _summary(label, counts, items, excluded, signals or {}, missing, complete, decided)
    return {
        "label": label,
        "migration_required": bool(migration),
        "counts": counts,
        "summary": summary,
        "complete": complete,
        "basis": decided["basis"],
        "leftovers": decided["leftovers"],
        "notes": decided["notes"],
        "godot3_files": decided["godot3_files"],
        "godot4_files": decided["godot4_files"],
        "missing": [
            {"chunk_id": r["chunk_id"], "source_file": r["source_file"], "start_line": r["start_line"],
             "end_line": r["end_line"], "status": r.get("status"), "error": r.get("error")}
            for r in missing
        ],
    }


def _lines(item: Mapping[str, Any]) -> str:
    a, b = item["start_line"], item["end_line"]
    return f"{item['source_file']}:{a}" if a == b else f"{item['source_file']}:{a}-{b}"


def _summary(
    label: str,
    counts: Mapping[str, int],
    items: list[dict[str, Any]],
    excluded: list[dict[str, Any]],
    signals: Mapping[str, Any],
    missing: list[Mapping[str, Any]],
    complete: bool,
    decided: Mapping[str, Any],
) -> str:
    parts: list[str] = []
    if complete:
        basis = f" (decided by {decided['basis']})" if decided.get("basis") else ""
        parts.append(
            f"Verdict {label}{basis}: {counts['godot3']} chunk(s) signal Godot 3, {counts['godot4']} Godot 4, "
            f"{counts['neutral']} neutral."
        )
        if label == "mixed" and decided.get("godot3_files"):
            parts.append(f"Scripts only Godot 3 loads ({len(decided['godot3_files'])}):")
            parts += [f"  {p}" for p in decided["godot3_files"][:50]]
        if decided.get("leftovers"):
            parts.append(f"Godot 3 leftovers to check ({len(decided['leftovers'])}):")
            parts += [f"  {_lines(x)}: {x['why']}" for x in decided["leftovers"]]
        if decided.get("notes"):
            parts.append(f"Notes ({len(decided['notes'])}):")
            parts += [f"  {n['source_file']}: {n['note']}" for n in decided["notes"]]
    else:
        failed = [m for m in missing if m.get("status") == "failed"]
        parts.append(
            f"Verdict withheld: {len(missing)} chunk(s) not done ({len(failed)} failed). "
            f"So far {counts['godot3']} Godot 3, {counts['godot4']} Godot 4, {counts['neutral']} neutral."
        )
        for m in failed[:5]:
            parts.append(f"  failed {_lines(m)}: {m.get('error') or 'unknown error'}")
    if items:
        parts.append(f"Migration items ({len(items)}):")
        for it in items:
            change = f"{it['old']} -> {replacement_words(it['new'], it['change_type'])}" if it["old"] else (it["change_type"] or "change")
            link = it["docs_url"] or it["evidence_id"] or ""
            parts.append(f"  {_lines(it)}: {change}" + (f" [{link}]" if link else ""))
    elif complete:
        parts.append("No migration needed.")
    if signals.get("config_version") is not None or signals.get("features"):
        feats = ", ".join(signals.get("features") or []) or "none"
        parts.append(
            f"project.godot (separate signal): config_version={signals.get('config_version')}, "
            f"features: {feats} -> suggests {signals.get('suggests')}."
        )
    if excluded:
        parts.append(f"Excluded files ({len(excluded)}):")
        for e in excluded:
            parts.append(f"  {e['path']}: {e['reason']}")
    return "\n".join(parts)


def suggested_snippet(text: str, rows: list[Mapping[str, Any]]) -> str | None:
    """The snippet with the suggested changes applied (whole-identifier renames, chunk rewrites)."""
    changed = False
    out = text
    for r in rows:
        j = r.get("judgment") or {}
        if r.get("status") != "done" or not j.get("migration_required"):
            continue
        code = r.get("code_text") or ""
        if j.get("suggested_code") and code and code in out:
            out = out.replace(code, j["suggested_code"].rstrip("\n"), 1)
            changed = True
            continue
        for c in j.get("suggested_changes") or []:
            old, new = c.get("old") or "", c.get("new") or ""
            if _IDENT.match(old) and _IDENT.match(new):
                replaced = re.sub(rf"(?<![\w.\"']){re.escape(old)}(?![\w\"'])", new, out)
                changed = changed or replaced != out
                out = replaced
    return out if changed else None


def direct_answer(text: str, rows: list[Mapping[str, Any]], verdict: Mapping[str, Any]) -> dict[str, Any]:
    """A short answer for a single pasted snippet, with suggested code when a migration applies."""
    items = migration_items(rows)
    label = verdict.get("label")
    if not verdict.get("complete", True):
        answer = "The analysis is not complete yet; see the chunk statuses."
    elif label == "godot3":
        answer = "This is Godot 3 code; it needs changes for Godot 4."
    elif label == "godot4":
        answer = "This is valid Godot 4 code." + (" Some changes are suggested." if items else " No migration needed.")
    elif label == "mixed":
        answer = "This mixes Godot 3 and Godot 4 code; the Godot 3 parts need migrating."
    else:
        answer = "There is no clear Godot 3 or Godot 4 signal in this snippet."
    if items:
        answer += " " + "; ".join(
            f"line {it['line']}: {it['old']} -> {replacement_words(it['new'], it['change_type'])}" for it in items if it["old"]
        )
    return {
        "answer": answer.strip(),
        "label": label,
        "migration_required": bool(verdict.get("migration_required")),
        "suggested_code": suggested_snippet(text, rows) if items else None,
        "changes": items,
    }
