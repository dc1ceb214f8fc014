"""What the answer is written from: the prompt, intent, verdict, validated chunk judgments and their evidence.

Everything comes from the stored run (the report dict plus the chunk texts), so the graph's
answer node, the web chat and the Discord bot all build the same `AnswerInput`. The evidence
pool holds only what was retrieved during the run: it is the set a citation may point at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent.answer.phrases import answer_language


@dataclass(frozen=True)
class EvidenceRef:
    """One retrieved hit, as the answer may cite it."""

    evidence_id: str
    table: str
    title: str
    url: str | None = None
    symbol: str | None = None
    source_api: str | None = None
    target_api: str | None = None
    content: str = ""
    """The docs text (docs_chunks only, loaded from the knowledge base), used to explain an API."""
    doc_version: str | None = None
    origin: str = "chunk"
    """chunk: retrieved for a chunk during the run; answer: retrieved by the answer step for an API the code calls."""


@dataclass
class AnswerInput:
    """The answer step's input."""

    prompt: str
    task_type: str
    language: str
    verdict: dict[str, Any]
    chunks: list[dict[str, Any]]
    """Report chunks (judgment, evidence views), in chunk order."""
    codes: dict[str, str] = field(default_factory=dict)
    """chunk_id -> the chunk's code text."""
    evidence: dict[str, EvidenceRef] = field(default_factory=dict)
    """record id -> hit, for every hit retrieved during the run."""
    dimension: str = "unknown"
    suggested_code: str | None = None
    """The deterministic Godot 4 version of a pasted snippet (report direct_answer), if any."""
    source_text: str | None = None
    """The pasted snippet itself, when the run is one."""
    history: list[tuple[str, str]] = field(default_factory=list)
    """(role, text) of the conversation so far in this chat thread (user / assistant)."""
    migration: dict[str, Any] | None = None
    """The migration engine's record of the run (report `migration`): what a project's Godot 4 version holds."""


def evidence_pool(chunks: list[Mapping[str, Any]], contents: Mapping[str, str] | None = None) -> dict[str, EvidenceRef]:
    """Every evidence entry of the report's chunks, once, with docs contents where known."""
    contents = contents or {}
    pool: dict[str, EvidenceRef] = {}
    for chunk in chunks:
        for e in chunk.get("evidence") or []:
            rid = e.get("record_id")
            if not rid or rid in pool:
                continue
            pool[rid] = EvidenceRef(
                evidence_id=rid, table=str(e.get("table") or ""), title=str(e.get("title") or rid),
                url=e.get("source_url"), symbol=e.get("symbol"), source_api=e.get("source_api"),
                target_api=e.get("target_api"), content=contents.get(rid, ""), doc_version=e.get("doc_version"),
            )
    for chunk in chunks:  # a mapping has no page of its own: link the docs its change was backed by
        for c in (chunk.get("judgment") or {}).get("suggested_changes") or []:
            ref = pool.get(c.get("evidence_id") or "")
            if ref is not None and ref.url is None and c.get("docs_url"):
                pool[ref.evidence_id] = replace(ref, url=c["docs_url"])
    return pool


def docs_ids(chunks: list[Mapping[str, Any]]) -> list[str]:
    """Ids of the docs_chunks evidence in the report (their text is loaded for explanations)."""
    return list(dict.fromkeys(e["record_id"] for c in chunks for e in c.get("evidence") or []
                              if e.get("table") == "docs_chunks" and e.get("record_id")))


async def load_docs_contents(pool: Any, ids: list[str]) -> dict[str, str]:
    """record id -> docs text for the given docs_chunks ids (an async psycopg pool with dict rows)."""
    if not ids:
        return {}
    async with pool.connection() as conn:
        rows = await (await conn.execute(
            "SELECT chunk_id, content FROM godot_rag.docs_chunks WHERE chunk_id = ANY(%s)", (ids,))).fetchall()
    return {r["chunk_id"]: r["content"] for r in rows}


def _whole_migrated(report: Mapping[str, Any]) -> str | None:
    """A one-script run's Godot 4 code from the migration engine, when it wrote all of it (validated)."""
    scripts = [f for f in (report.get("migration") or {}).get("files") or [] if f.get("kind") == "gdscript"]
    return scripts[0].get("migrated") if len(scripts) == 1 and scripts[0].get("status") == "migrated" else None


def answer_input(report: Mapping[str, Any], *, codes: Mapping[str, str], contents: Mapping[str, str],
                 dimension: str = "unknown", history: list[tuple[str, str]] | None = None,
                 prompt: str | None = None, source_text: str | None = None) -> AnswerInput:
    """The input for a stored run's report; `prompt` overrides the run's own (a follow-up question)."""
    from agent.intent import detect_intent

    question = report.get("prompt") or "" if prompt is None else prompt
    intent = detect_intent(question)
    stored = report.get("intent") or {}
    task = intent.task_type if prompt is not None or not stored.get("task_type") else stored["task_type"]
    language = intent.language if intent.language != "unknown" else stored.get("language", "unknown")
    chunks = list(report.get("chunks") or [])
    direct = report.get("direct_answer") or {}
    return AnswerInput(
        prompt=question, task_type=task, language=answer_language(language), verdict=dict(report.get("verdict") or {}),
        chunks=chunks, codes=dict(codes), evidence=evidence_pool(chunks, contents), dimension=dimension,
        suggested_code=direct.get("suggested_code") or _whole_migrated(report), source_text=source_text, history=list(history or []),
        migration=report.get("migration"),
    )
