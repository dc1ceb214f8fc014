"""Human review of api_mapping rows: only a person promotes a rule to `approved`."""

from __future__ import annotations

import psycopg


class ReviewError(ValueError):
    """The review could not be recorded (unknown id, missing reason)."""


def list_mappings(conn: psycopg.Connection, *, status: str | None = None, limit: int = 50) -> list[dict]:
    return conn.execute(
        "SELECT mapping_id, source_api, target_api, change_type, confidence, status, reviewed_by, reviewed_at,"
        " review_note, notes FROM godot_rag.api_mapping"
        " WHERE (%(status)s::text IS NULL OR status = %(status)s)"
        " ORDER BY (confidence = 'verified_from_docs') DESC, mapping_id LIMIT %(limit)s",
        {"status": status, "limit": limit},
    ).fetchall()


def review_mapping(conn: psycopg.Connection, mapping_id: str, *, decision: str, reviewer: str, note: str | None = None) -> dict:
    """Record a decision (approved or rejected) with reviewer and time; re-ingest keeps it."""
    if decision not in ("approved", "rejected"):
        raise ReviewError(f"decision must be approved or rejected, got {decision!r}")
    if decision == "rejected" and not (note and note.strip()):
        raise ReviewError("a rejection needs a reason (--why)")
    if not reviewer.strip():
        raise ReviewError("reviewer name is empty (pass --by or set $USER)")
    row = conn.execute(
        "UPDATE godot_rag.api_mapping SET status = %s, reviewed_by = %s, reviewed_at = now(), review_note = %s,"
        " updated_at = now() WHERE mapping_id = %s"
        " RETURNING mapping_id, source_api, target_api, status, reviewed_by, reviewed_at, review_note",
        (decision, reviewer, note, mapping_id),
    ).fetchone()
    if row is None:
        raise ReviewError(f"no api_mapping row with mapping_id {mapping_id!r}")
    return row
