"""The report: the CLI `--format json` object, built from the score DB, and its text form.

Required keys follow the issue's fixed contract; extra keys (migration_items,
project_signals, direct_answer, prompt, intent, ...) are additions that scripts may ignore.
"""

from __future__ import annotations

from typing import Any

from agent.graph.verdict import compute_verdict, direct_answer, migration_items
from agent.models import RetrievalHit
from agent.runs import RunStore
from agent.runs.store import jsonable

# Stored chunk status -> the CLI's done|pending|failed.
_CLI_STATUS = {"done": "done", "failed": "failed"}


def evidence_view(hit: RetrievalHit) -> dict[str, Any]:
    """One evidence entry as in the CLI JSON (docs fields and api_mapping fields side by side)."""
    md = hit.metadata or {}
    return {
        "table": hit.table,
        "record_id": hit.record_id,
        "title": hit.title,
        "score": round(float(hit.score), 6),
        "symbol": md.get("symbol"),
        "source_url": md.get("source_url"),
        "source_api": md.get("source_api"),
        "target_api": md.get("target_api"),
        "match": list(hit.match),
    }


def judgment_view(judgment: dict[str, Any] | None) -> dict[str, Any] | None:
    """The judgment with the contract keys first; suggestions kept as extra keys."""
    if not judgment:
        return None
    keys = ("version_signal", "label", "migration_required", "confidence", "rationale", "evidence_ids")
    out = {k: judgment.get(k) for k in keys}
    out["suggested_changes"] = judgment.get("suggested_changes") or []
    out["suggested_code"] = judgment.get("suggested_code")
    return out


def run_status(run: dict[str, Any], live: bool) -> str:
    """completed | interrupted | failed | running (running only while a process holds the run)."""
    status = run["status"]
    if status == "running" and not live:
        return "interrupted"
    return status


def chunk_view(row: dict[str, Any], run_state: str) -> dict[str, Any]:
    """One chunk of the report."""
    raw = row["status"]
    if raw == "processing" and run_state == "interrupted":
        raw = "stopped"
    return {
        "chunk_id": row["chunk_id"],
        "chunk_order": row["chunk_order"],
        "source_file": row["source_file"],
        "chunk_kind": row["chunk_kind"],
        "start_line": row["start_line"],
        "end_line": row["end_line"],
        "status": _CLI_STATUS.get(raw, "pending"),
        "attempts": row["attempts"],
        "completed_at": jsonable(row["completed_at"]),
        "query_terms": list(row.get("query_terms") or []),
        "evidence": row.get("evidence") or [],
        "judgment": judgment_view(row.get("judgment")),
        # extras
        "state": raw,
        "name": row.get("name"),
        "error": row.get("error"),
        "judge_kind": row.get("judge_kind"),
        "model": row.get("model"),
        "fallback_reason": row.get("fallback_reason"),
        "validation_failures": row.get("validation_failures") or [],
    }


async def build_report(store: RunStore, run_id: str, *, live: bool | None = None) -> dict[str, Any]:
    """The report of a run from the DB; raises KeyError for an unknown run."""
    run = await store.get_run(run_id)
    if run is None:
        raise KeyError(run_id)
    if live is None:
        live = await store.is_live(run_id) if run["status"] == "running" else False
    files = await store.files(run_id)
    rows = await store.chunk_rows(run_id)
    state = run_status(run, live)
    signals = run.get("project_signals") or {}
    # a completed run keeps the verdict it stored; any other run shows where it stands now
    verdict = run.get("verdict") if state == "completed" and run.get("verdict") else None
    verdict = verdict or compute_verdict(rows, files, signals)
    report: dict[str, Any] = {
        "run_id": run_id,
        "project_id": run["project_id"],
        "status": state,
        "verdict": {
            "label": verdict["label"],
            "migration_required": verdict["migration_required"],
            "counts": verdict["counts"],
            "summary": verdict["summary"],
            "complete": verdict.get("complete", False),
            "missing": verdict.get("missing", []),
        },
        "files": [
            {"path": f["path"], "kind": f["kind"], "sha256": f["sha256"], "chunks": int(f["chunks"])}
            for f in files
            if f["included"]
        ],
        "excluded_files": [{"path": f["path"], "reason": f["reason"]} for f in files if not f["included"]],
        "chunks": [chunk_view(r, state) for r in rows],
        # extras
        "status_detail": run.get("status_detail") or "",
        "owner": run.get("owner"),
        "source": (run.get("source") or {}).get("source_file"),
        "source_origin": run.get("source_origin"),
        "judge": run.get("judge_kind"),
        "created_at": jsonable(run.get("created_at")),
        "finished_at": jsonable(run.get("finished_at")),
        "prompt": run.get("prompt") or "",
        "intent": run.get("intent"),
        "project_signals": signals,
        "migration_items": [
            {k: it[k] for k in ("source_file", "start_line", "end_line", "old", "new", "docs_url", "evidence_id")}
            for it in migration_items(rows)
        ],
        "progress": {
            "done": sum(1 for r in rows if r["status"] == "done"),
            "failed": sum(1 for r in rows if r["status"] == "failed"),
            "total": len(rows),
        },
    }
    if (run.get("verdict") or {}).get("answer"):  # written by the answer node (agent.answer)
        report["answer"] = run["verdict"]["answer"]
    if run.get("source_origin") == "pasted_snippet":
        text = await store.file_text(run_id)
        report["direct_answer"] = direct_answer(text or "", rows, verdict)
    return report


def render_text(report: dict[str, Any]) -> str:
    """A human-readable report for `--format text`."""
    v = report["verdict"]
    lines = [
        f"run {report['run_id']}  project {report['project_id']}  status {report['status']}",
        f"verdict: {v['label']}  migration required: {'yes' if v['migration_required'] else 'no'}  "
        f"counts: godot3={v['counts']['godot3']} godot4={v['counts']['godot4']} neutral={v['counts']['neutral']}",
        "",
        v["summary"],
    ]
    if report.get("direct_answer"):
        da = report["direct_answer"]
        lines += ["", f"answer: {da['answer']}"]
        if da.get("suggested_code"):
            lines += ["suggested code:", da["suggested_code"]]
    lines += ["", "chunks:"]
    for c in report["chunks"]:
        j = c.get("judgment") or {}
        where = f"{c['source_file']}:{c['start_line']}-{c['end_line']}"
        verdict = f"{j.get('version_signal')} {j.get('label')}" if j else (c.get("error") or "")
        lines.append(f"  [{c['state']:<10}] {where:<40} {c['chunk_kind']:<18} {verdict}")
    return "\n".join(lines)
