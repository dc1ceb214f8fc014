"""label_prototypes records from agent/data/label_prototypes.json, evidence resolved to ids."""

from __future__ import annotations

import json
from pathlib import Path

from agent.ingest.corpus import Issue
from agent.ingest.evidence import EvidenceIndex
from agent.ingest.symbols import identifier_variants
from agent.settings import PROJECT_ROOT

PROTOTYPES_FILE = PROJECT_ROOT / "agent" / "data" / "label_prototypes.json"


def build_prototypes(
    index: EvidenceIndex, mapping_ids: set[str], converter_version: str, issues: list[Issue],
    path: Path = PROTOTYPES_FILE,
) -> list[dict]:
    """One record per prototype; evidence absent from this corpus is dropped with a warning."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: list[dict] = []
    for p in data["prototypes"]:
        pid = f"label:{p['label'].replace('_', '-')}:{p['key']}"
        chunk_ids, missing = index.resolve_all(p.get("evidence", []))
        for spec in missing:
            issues.append(Issue("warning", "label_prototypes", "evidence not in this corpus", record_id=pid, detail=json.dumps(spec)))
        maps = []
        for mid in p.get("evidence_mappings", []):
            if mid in mapping_ids:
                maps.append(mid)
            else:
                issues.append(Issue("warning", "label_prototypes", "evidence mapping not generated", record_id=pid, detail=mid))
        rules = p.get("validator_rules", {})
        out.append({
            "prototype_id": pid,
            "label": p["label"],
            "task_type": p["task_type"],
            "input_pattern": p["input_pattern"],
            "expected_finding": p["expected_finding"],
            "recommended_action": p["recommended_action"],
            "evidence_mapping_ids": maps,
            "evidence_chunk_ids": chunk_ids,
            "severity": p["severity"],
            "validator_rules": {
                "requires_ast_symbol": list(rules.get("requires_ast_symbol", [])),
                "forbidden_answer_terms": list(rules.get("forbidden_answer_terms", [])),
            },
            "provenance": {"source": "agent/data/label_prototypes.json", "key": p["key"], "converter_version": converter_version},
            "search_text": " ".join([p["label"], *rules.get("requires_ast_symbol", [])])[:400],
            "identifiers": identifier_variants(rules.get("requires_ast_symbol", [])),
        })
    return out
