"""Step 7: representative questions must find an exact api_mapping hit and a docs hit.

This is a smoke test of the loaded knowledge base with plain parameterized SQL; the full
hybrid retriever lives in agent/retrieve.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import psycopg


REPRESENTATIVE_QUESTIONS = ("KinematicBody2D", "move_and_slide", "Input.is_action_pressed", "yield")


@dataclass
class CheckResult:
    """Hits for one question."""

    question: str
    mapping_hits: list[str] = field(default_factory=list)
    docs_hits: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.mapping_hits) and bool(self.docs_hits)

    def as_json(self) -> dict:
        return {"question": self.question, "ok": self.ok, "mapping_hits": self.mapping_hits, "docs_hits": self.docs_hits}


def question_terms(question: str) -> list[str]:
    """Identifiers in a question, whole and split at dots: `Input.is_action_pressed` -> 3 terms."""
    terms: list[str] = []
    for tok in re.findall(r"@?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", question):
        terms.append(tok)
        if "." in tok:
            terms.extend(tok.split("."))
    return list(dict.fromkeys(terms))


def check_question(conn: psycopg.Connection, question: str, k: int = 5) -> CheckResult:
    terms = question_terms(question)
    result = CheckResult(question)
    rows = conn.execute(
        "SELECT mapping_id FROM godot_rag.api_mapping"
        " WHERE status <> 'rejected' AND (source_api = ANY(%s) OR match_terms && %s)"
        " ORDER BY (confidence = 'verified_from_docs') DESC, mapping_id LIMIT %s",
        (terms, terms, k),
    ).fetchall()
    result.mapping_hits = [r["mapping_id"] for r in rows]
    query_text = " ".join(terms)
    rows = conn.execute(
        "SELECT chunk_id FROM godot_rag.docs_chunks"
        " WHERE api_symbols && %s OR symbol = ANY(%s)"
        "    OR search_tsv @@ plainto_tsquery('simple', %s)"
        " ORDER BY ts_rank(search_tsv, plainto_tsquery('simple', %s)) DESC LIMIT %s",
        (terms, terms, query_text, query_text, k),
    ).fetchall()
    result.docs_hits = [r["chunk_id"] for r in rows]
    return result


def retrieval_check(conn: psycopg.Connection, questions: tuple[str, ...] = REPRESENTATIVE_QUESTIONS) -> list[CheckResult]:
    """Exact and keyword hits for each representative question."""
    return [check_question(conn, q) for q in questions]
