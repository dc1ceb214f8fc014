"""`godot-rag export corpus`: a batch's results as a classified corpus on disk.

Layout: `DIR/<verdict>/<project>/...` holds the analysed files of each completed run (the text
the judge read, as stored with the run), `DIR/chunks.jsonl` one line per judged chunk
(`schemas/corpus_chunk.schema.json`), `DIR/manifest.json` the counts, KB versions, and the
commands that wrote it. Incremental: a project folder carries its run id in `.godot-rag-run`; a
run already exported is skipped, and a folder that belongs to another run (or to nobody) is
never written over, only reported.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from agent.batch.store import BatchStore
from agent.batch.targets import request_identity

SCHEMA_PATH = Path(__file__).parent / "schemas" / "corpus_chunk.schema.json"
MARKER = ".godot-rag-run"


@dataclass
class CorpusExport:
    """What one export added, skipped and refused to touch."""

    out: str
    projects_added: int = 0
    chunks_added: int = 0
    already_exported: int = 0
    below_confidence: int = 0
    conflicts: list[str] = field(default_factory=list)
    not_finished: int = 0


async def export_corpus(
    service: Any, batch_id: str, out: Path, *, min_confidence: float = 0.0, command: str = ""
) -> CorpusExport:
    """Add the batch's completed runs to the corpus at `out` (KeyError for an unknown batch)."""
    store = BatchStore(service.pool)
    batch = await store.get_batch(batch_id)
    if batch is None:
        raise KeyError(batch_id)
    out.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(out)
    result = CorpusExport(out=str(out))
    seen: set[str] = set()
    for item in await store.items(batch_id):
        if not item.run_id or item.run_id in seen:
            continue
        seen.add(item.run_id)
        run = await service.store.get_run(item.run_id)
        if run is None or run["status"] != "completed":
            result.not_finished += 1
            continue
        if item.run_id in manifest["runs"]:
            result.already_exported += 1
            continue
        request = await service.store.load_request(item.run_id)
        project = request_identity(request).name
        verdict = (run["verdict"] or {}).get("label") or "ambiguous"
        folder = out / verdict / project
        if folder.exists():
            owner = (folder / MARKER).read_text().strip() if (folder / MARKER).is_file() else None
            if owner == item.run_id:
                result.already_exported += 1  # written, but the manifest was not: count it, add nothing
                continue
            result.conflicts.append(f"{folder} holds {'run ' + owner if owner else 'files of no run'}: left as it is")
            continue
        lines, low = await _chunk_lines(service, item.run_id, project, verdict, batch["kb_version"], min_confidence)
        await _write_project(service, item.run_id, folder)
        with open(out / "chunks.jsonl", "a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines)
        (folder / MARKER).write_text(item.run_id + "\n")
        manifest["runs"][item.run_id] = {"project": project, "verdict": verdict, "folder": f"{verdict}/{project}",
                                         "chunks": len(lines), "batch_id": batch_id}
        result.projects_added += 1
        result.chunks_added += len(lines)
        result.below_confidence += low
        _write_manifest(out, manifest, batch=batch, command=command, min_confidence=min_confidence)
    if not result.projects_added:
        _write_manifest(out, manifest, batch=batch, command=command, min_confidence=min_confidence)
    return result


async def _chunk_lines(
    service: Any, run_id: str, project: str, verdict: str, kb_version: str, min_confidence: float
) -> tuple[list[dict[str, Any]], int]:
    """The run's judged chunks as corpus lines, and how many fell below `min_confidence`."""
    lines, low = [], 0
    for r in await service.store.chunk_rows(run_id):
        judgment = r["judgment"]
        if r["status"] != "done" or not judgment:
            continue
        confidence = float(judgment.get("confidence", 0.0))
        if confidence < min_confidence:
            low += 1
            continue
        evidence = r["evidence"] or []
        lines.append({
            "project": project, "run_id": run_id, "project_verdict": verdict, "file": r["source_file"],
            "span": {"start_line": r["start_line"], "end_line": r["end_line"]}, "chunk_kind": r["chunk_kind"],
            "sha256": r["sha256"], "text": r["code_text"] or "", "label": r["label"],
            "version_signal": r["version_signal"], "confidence": confidence,
            "evidence_ids": list(judgment.get("evidence_ids") or []),
            "evidence_urls": sorted({e["source_url"] for e in evidence if isinstance(e, dict) and e.get("source_url")}),
            "godot4_code": judgment.get("suggested_code"), "judge": r["judge_kind"], "model": r["model"],
            "kb_version": kb_version,
        })
    return lines, low


async def _write_project(service: Any, run_id: str, folder: Path) -> None:
    """The run's analysed files, as stored with it, under `folder` (paths stay inside it)."""
    expansion = await service.store.load_expansion(run_id)
    folder.mkdir(parents=True)
    root = folder.resolve()
    for f in expansion.files:
        if not f.included or f.text is None:
            continue
        rel = PurePosixPath(f.path)
        target = (folder / rel).resolve()
        if rel.is_absolute() or ".." in rel.parts or not target.is_relative_to(root):
            continue  # intake never stores such paths; a corpus never writes outside its folder
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f.text, encoding="utf-8")


def _read_manifest(out: Path) -> dict[str, Any]:
    path = out / "manifest.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        data.setdefault("runs", {})
        return data
    return {"runs": {}}


def _write_manifest(out: Path, manifest: dict[str, Any], *, batch: dict[str, Any], command: str,
                    min_confidence: float) -> None:
    """Counts recomputed from the runs listed; commands and KB versions accumulate (atomic replace)."""
    runs = manifest["runs"]
    verdicts: dict[str, int] = {}
    for entry in runs.values():
        verdicts[entry["verdict"]] = verdicts.get(entry["verdict"], 0) + 1
    manifest["counts"] = {"projects": len(runs), "chunks": sum(e["chunks"] for e in runs.values()),
                          "by_verdict": dict(sorted(verdicts.items()))}
    kb = set(manifest.get("kb_versions", [])) | {batch["kb_version"]}
    manifest["kb_versions"] = sorted(kb)
    commands = manifest.setdefault("commands", [])
    entry = {"command": command, "batch_id": batch["batch_id"], "min_confidence": min_confidence}
    if not commands or commands[-1] != entry:
        commands.append(entry)
    manifest["schema"] = "chunks.jsonl: agent/batch/schemas/corpus_chunk.schema.json"
    fd, tmp = tempfile.mkstemp(prefix=".manifest.", dir=out)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
    os.replace(tmp, out / "manifest.json")
