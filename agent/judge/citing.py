"""Pick which retrieved hits back a finding, and the docs URL for a suggested change."""

from __future__ import annotations

from agent.models import EvidenceBundle, RetrievalHit


def hits_mentioning(evidence: EvidenceBundle, cues: tuple[str, ...] | list[str], *, limit: int = 2,
                    tables: tuple[str, ...] = ("label_prototypes", "docs_chunks", "api_mapping")) -> list[RetrievalHit]:
    """Retrieved hits whose title/content/symbol mention a cue, label prototypes first."""
    found: list[RetrievalHit] = []
    for table in tables:
        for hit in evidence.all_hits():
            if hit.table != table or hit in found:
                continue
            hay = f"{hit.title}\n{hit.content}\n{hit.metadata.get('symbol') or ''}"
            if any(c and c in hay for c in cues):
                found.append(hit)
                if len(found) >= limit:
                    return found
    return found


def docs_url_for(mapping: RetrievalHit, evidence: EvidenceBundle) -> tuple[str | None, str | None]:
    """(docs chunk id, source_url) backing an api_mapping hit, if such a docs hit was retrieved."""
    docs = evidence.doc_evidence
    wanted = set(mapping.metadata.get("evidence_chunk_ids") or [])
    for hit in docs:
        if hit.record_id in wanted:
            return hit.record_id, hit.metadata.get("source_url")
    target = str(mapping.metadata.get("target_api") or "")
    names = {target, target.split(".")[0]} - {""}
    for hit in docs:
        if hit.metadata.get("symbol") in names or names & set(hit.metadata.get("api_symbols") or []):
            return hit.record_id, hit.metadata.get("source_url")
    return None, None


def docs_url_of(hit: RetrievalHit, evidence: EvidenceBundle) -> str | None:
    """A URL for any hit: its own source_url, or that of a docs hit it points to."""
    url = hit.metadata.get("source_url")
    if url:
        return url
    wanted = set(hit.metadata.get("evidence_chunk_ids") or [])
    for doc in evidence.doc_evidence:
        if doc.record_id in wanted:
            return doc.metadata.get("source_url")
    return None


def labels_for_mapping(mapping: RetrievalHit, evidence: EvidenceBundle) -> list[RetrievalHit]:
    """Label prototypes that point at this mapping or name its old API."""
    source = str(mapping.metadata.get("source_api") or "")
    return [h for h in evidence.label_evidence
            if mapping.record_id in (h.metadata.get("evidence_mapping_ids") or []) or (source and source in h.content)]
