"""Validate the JSONL artifacts before anything is upserted.

Every line must parse, carry its required fields with the right types, have a unique id,
and point only at evidence that exists. Bad lines become report issues; the rest go in.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent.ingest.corpus import Issue

REQUIRED: dict[str, dict[str, type | tuple[type, ...]]] = {
    "docs_chunks": {
        "chunk_id": str, "doc_version": str, "source_url": str, "source_file": str, "source_sha256": str,
        "doc_type": str, "section_path": list, "content": str, "code_blocks": list, "api_symbols": list,
        "metadata": dict,
    },
    "api_mapping": {
        "mapping_id": str, "source_api": str, "change_type": str, "confidence": str, "status": str,
        "evidence_chunk_ids": list, "match_terms": list, "negative_patterns": list,
    },
    "label_prototypes": {
        "prototype_id": str, "label": str, "task_type": str, "input_pattern": str, "expected_finding": str,
        "recommended_action": str, "evidence_mapping_ids": list, "evidence_chunk_ids": list, "severity": str,
        "validator_rules": dict,
    },
}
ID_FIELD = {"docs_chunks": "chunk_id", "api_mapping": "mapping_id", "label_prototypes": "prototype_id"}
_ENUMS = {
    ("api_mapping", "confidence"): {"verified_from_docs", "candidate"},
    ("api_mapping", "status"): {"candidate", "approved", "rejected"},
    ("label_prototypes", "severity"): {"low", "medium", "high"},
}


def read_jsonl(path: Path, table: str, issues: list[Issue]) -> list[dict]:
    """Parse each line; an unparsable line is reported with its line number and skipped."""
    records = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                issues.append(Issue("error", "validate", "line does not parse", record_id=f"{path.name}:{n}", detail=str(exc)))
                continue
            if not isinstance(rec, dict):
                issues.append(Issue("error", "validate", "line is not a JSON object", record_id=f"{path.name}:{n}"))
                continue
            rec["_line"] = n
            records.append(rec)
    return records


def check_records(table: str, records: list[dict], issues: list[Issue]) -> list[dict]:
    """Required fields, types, allowed values and unique ids; returns the passing records."""
    id_field = ID_FIELD[table]
    seen: set[str] = set()
    ok: list[dict] = []
    for rec in records:
        where = f"{table}.jsonl:{rec.get('_line', '?')}"
        rid = rec.get(id_field)
        problems = []
        for name, typ in REQUIRED[table].items():
            if name not in rec or rec[name] is None:
                problems.append(f"missing {name}")
            elif not isinstance(rec[name], typ):
                problems.append(f"{name} must be {getattr(typ, '__name__', typ)}")
        for (t, name), allowed in _ENUMS.items():
            if t == table and name in rec and rec[name] not in allowed:
                problems.append(f"{name}={rec[name]!r} not in {sorted(allowed)}")
        if table == "docs_chunks" and isinstance(rec.get("content"), str) and not rec["content"].strip():
            problems.append("empty content")
        if isinstance(rid, str) and rid in seen:
            problems.append("duplicate id")
        if problems:
            issues.append(Issue("error", "validate", "; ".join(problems), record_id=str(rid or where), detail=where))
            continue
        seen.add(rid)
        ok.append(rec)
    return ok


def check_evidence(
    table: str, records: list[dict], chunk_ids: set[str], mapping_ids: set[str], issues: list[Issue]
) -> list[dict]:
    """Every evidence id must exist in docs_chunks (and api_mapping for prototypes)."""
    id_field = ID_FIELD[table]
    ok = []
    for rec in records:
        bad = [c for c in rec.get("evidence_chunk_ids", []) if c not in chunk_ids]
        bad += [m for m in rec.get("evidence_mapping_ids", []) if m not in mapping_ids]
        if bad:
            issues.append(Issue("error", "validate", "evidence id does not exist", record_id=rec[id_field],
                                detail=", ".join(bad[:5])))
            continue
        ok.append(rec)
    return ok
