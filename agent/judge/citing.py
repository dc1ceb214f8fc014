"""Pick which retrieved hits back a finding, and the docs URL for a suggested change."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from agent.models import EvidenceBundle, RetrievalHit
from agent.present import anchor_url


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
    wanted = mapping.metadata.get("evidence_chunk_ids") or []
    retrieved = [h for h in docs if h.record_id in set(wanted)]
    for word in _target_words(mapping):  # a retrieved docs chunk about the new API first
        for hit in retrieved:
            if word in hit.record_id.lower():
                return hit.record_id, anchor_url(hit.record_id, hit.metadata.get("source_url"))
    if retrieved:
        return retrieved[0].record_id, anchor_url(retrieved[0].record_id, retrieved[0].metadata.get("source_url"))
    linked = linked_url(mapping)
    if linked:  # the mapping's own docs, looked up at retrieval time: link them (the id is not citable)
        return None, linked
    target = str(mapping.metadata.get("target_api") or "")
    names = {target, target.split(".")[0]} - {""}
    for hit in docs:
        if hit.metadata.get("symbol") in names or names & set(hit.metadata.get("api_symbols") or []):
            return hit.record_id, anchor_url(hit.record_id, hit.metadata.get("source_url"))
    return None, None


def _target_words(hit: RetrievalHit) -> list[str]:
    """`DisplayServer` -> ['displayserver'], `Signal.connect(Callable)` -> ['signal', 'connect', 'callable']."""
    target = str(hit.metadata.get("target_api") or "")
    return [w.lower().replace("_", "-") for w in re.findall(r"[A-Za-z_]\w+", target) if len(w) > 2]


def linked_url(hit: RetrievalHit) -> str | None:
    """URL of a docs chunk the hit cites (`evidence_urls`, filled by the retriever).

    The chunk about the new API (`class_displayserver...`) beats the general upgrading page.
    """
    urls = hit.metadata.get("evidence_urls") or {}
    linked = [c for c in hit.metadata.get("evidence_chunk_ids") or [] if urls.get(c)]
    for word in _target_words(hit):
        for chunk_id in linked:
            if word in chunk_id.lower():
                return anchor_url(chunk_id, urls[chunk_id])
    return anchor_url(linked[0], urls[linked[0]]) if linked else None


def docs_url_of(hit: RetrievalHit, evidence: EvidenceBundle) -> str | None:
    """A URL for any hit: its own source_url, or that of a docs hit it points to."""
    url = hit.metadata.get("source_url")
    if url:
        return anchor_url(hit.record_id, url)
    wanted = set(hit.metadata.get("evidence_chunk_ids") or [])
    for doc in evidence.doc_evidence:
        if doc.record_id in wanted:
            return anchor_url(doc.record_id, doc.metadata.get("source_url"))
    return linked_url(hit)


def _head(api: str) -> str:
    return api.split("(")[0].strip()


def mapping_for(keys: list[str], evidence: EvidenceBundle) -> RetrievalHit | None:
    """The retrieved api_mapping record describing a change, by its old name, glob or match terms.

    `keys` go most specific first (`OS.window_size`, then `window_size`); among the mappings
    of the first key that matches, one with linked docs and verified confidence wins.
    """
    candidates = [h for h in evidence.api_mapping_evidence
                  if h.metadata.get("status") != "rejected" and h.metadata.get("change_type") != "unchanged"]
    for key in keys:
        found = []
        for hit in candidates:
            md = hit.metadata
            source = _head(str(md.get("source_api") or ""))
            terms = {str(t) for t in md.get("match_terms") or []}
            if key == source or key in terms or ("*" in source and fnmatchcase(key, source)):
                found.append(hit)
        if found:
            return max(found, key=lambda h: (bool(h.metadata.get("evidence_urls") or h.metadata.get("evidence_chunk_ids")),
                                             _head(str(h.metadata.get("source_api") or "")) == key,
                                             h.metadata.get("confidence") == "verified_from_docs", h.score))
    return None


def labels_for_mapping(mapping: RetrievalHit, evidence: EvidenceBundle) -> list[RetrievalHit]:
    """Label prototypes that point at this mapping or name its old API."""
    source = str(mapping.metadata.get("source_api") or "")
    return [h for h in evidence.label_evidence
            if mapping.record_id in (h.metadata.get("evidence_mapping_ids") or []) or (source and source in h.content)]
