"""Upsert validated records into Postgres: COPY into temp staging tables, then one INSERT ... SELECT.

docs_chunks are replaced page by page (only pages whose sha256 changed); api_mapping and
label_prototypes are upserted by id, only where the record changed, and a reviewer's
decision (reviewed_by set) is never overwritten or deleted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from agent.ingest.chunks import chunk_prefix
from agent.ingest.symbols import identifier_variants
from agent.ingest.windows import embedding_text

HNSW_REBUILD_MIN_ROWS = 2000
"""Above this many new chunks (and more than half the table) the HNSW index is rebuilt after loading."""


@dataclass(frozen=True)
class PageState:
    """What docs_pages remembers about an ingested page."""

    sha256: str
    converter_version: str
    chunk_count: int


def page_states(conn: psycopg.Connection) -> dict[str, PageState]:
    rows = conn.execute(
        "SELECT source_file, source_sha256, converter_version, chunk_count FROM godot_rag.docs_pages"
    ).fetchall()
    return {r["source_file"]: PageState(r["source_sha256"], r["converter_version"], r["chunk_count"]) for r in rows}


def chunk_embedding_text(rec: dict) -> str:
    return embedding_text(chunk_prefix(rec["section_path"]), rec["content"])


def mapping_embedding_text(rec: dict) -> str:
    target = rec.get("target_api") or "(removed)"
    return f"{rec['change_type']}: {rec['source_api']} -> {target}. {rec.get('notes', '')}".strip()


def prototype_embedding_text(rec: dict) -> str:
    return f"{rec['label']}: {rec['input_pattern']}\n{rec['expected_finding']}\n{rec['recommended_action']}"


def record_sha(rec: dict) -> str:
    """Hash of a record's content (bookkeeping fields excluded), to skip unchanged upserts."""
    body = {k: v for k, v in rec.items() if not k.startswith("_")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _chunk_identifiers(rec: dict) -> str:
    return identifier_variants([*( [rec["symbol"]] if rec.get("symbol") else []), *rec.get("api_symbols", [])])


_CHUNK_COLS = (
    "chunk_id", "doc_version", "source_url", "source_file", "source_sha256", "doc_type", "symbol",
    "section_path", "heading", "content", "code_blocks", "api_symbols", "metadata", "search_text",
    "embedding", "identifiers",
)


def replace_pages(
    conn: psycopg.Connection,
    records: list[dict],
    embeddings: np.ndarray | None,
    *,
    pages: dict[str, tuple[str, str, str]],
    removed: list[str],
    converter_version: str,
    dim: int = 0,
) -> None:
    """Swap the chunks of changed pages (and delete removed pages) in one transaction.

    `pages` maps source_file -> (url, sha256, converter_version) for every page being replaced.
    `embeddings` None stores the chunks without vectors (`dim` sizes the staging column then).
    """
    if embeddings is None:
        embeddings = [None] * len(records)
    else:
        dim = embeddings.shape[1] if len(embeddings) else 0
    with conn.transaction():
        gone = list(pages) + removed
        if gone:
            conn.execute("DELETE FROM godot_rag.docs_chunks WHERE source_file = ANY(%s)", (gone,))
            conn.execute("DELETE FROM godot_rag.docs_pages WHERE source_file = ANY(%s)", (gone,))
        if records:
            total = conn.execute("SELECT count(*) AS n FROM godot_rag.docs_chunks").fetchone()["n"]
            rebuild = len(records) >= HNSW_REBUILD_MIN_ROWS and len(records) > total
            if rebuild:
                conn.execute("DROP INDEX IF EXISTS godot_rag.docs_chunks_embedding_hnsw")
            conn.execute(
                "CREATE TEMP TABLE stage_chunks ("
                " chunk_id text, doc_version text, source_url text, source_file text, source_sha256 text,"
                " doc_type text, symbol text, section_path jsonb, heading text, content text, code_blocks jsonb,"
                f" api_symbols text[], metadata jsonb, search_text text, embedding vector({dim}), identifiers text"
                ") ON COMMIT DROP"
            )
            with conn.cursor() as cur:
                with cur.copy(f"COPY stage_chunks ({', '.join(_CHUNK_COLS)}) FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types(["text"] * 7 + ["jsonb", "text", "text", "jsonb", "text[]", "jsonb", "text", "vector", "text"])
                    for rec, vec in zip(records, embeddings, strict=True):
                        meta = dict(rec.get("metadata", {}))
                        meta.update(
                            language_tags=rec.get("language_tags", []),
                            godot_version_tags=rec.get("godot_version_tags", []),
                            token_count=rec.get("token_count"),
                        )
                        copy.write_row((
                            rec["chunk_id"], rec["doc_version"], rec["source_url"], rec["source_file"],
                            rec["source_sha256"], rec["doc_type"], rec.get("symbol"), Jsonb(rec["section_path"]),
                            rec.get("heading"), rec["content"], Jsonb(rec["code_blocks"]), rec["api_symbols"],
                            Jsonb(meta), rec.get("search_text", ""), vec, _chunk_identifiers(rec),
                        ))
            conn.execute(
                "INSERT INTO godot_rag.docs_chunks (chunk_id, doc_version, source_url, source_file, source_sha256,"
                " doc_type, symbol, section_path, heading, content, code_blocks, api_symbols, metadata, search_text,"
                " embedding, search_tsv)"
                " SELECT chunk_id, doc_version, source_url, source_file, source_sha256, doc_type, symbol, section_path,"
                " heading, content, code_blocks, api_symbols, metadata, search_text, embedding,"
                " godot_rag.build_tsv(identifiers, coalesce(heading, '') || ' ' || (section_path ->> 0), content)"
                " FROM stage_chunks"
                " ON CONFLICT (chunk_id) DO UPDATE SET content = EXCLUDED.content, embedding = EXCLUDED.embedding,"
                " search_tsv = EXCLUDED.search_tsv, metadata = EXCLUDED.metadata, source_sha256 = EXCLUDED.source_sha256"
            )
            if rebuild:
                conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
                conn.execute(
                    "CREATE INDEX IF NOT EXISTS docs_chunks_embedding_hnsw ON godot_rag.docs_chunks"
                    " USING hnsw (embedding vector_cosine_ops)"
                )
        counts: dict[str, int] = {}
        for rec in records:
            counts[rec["source_file"]] = counts.get(rec["source_file"], 0) + 1
        for file, (url, sha, conv) in pages.items():
            conn.execute(
                "INSERT INTO godot_rag.docs_pages (source_file, source_url, source_sha256, converter_version, chunk_count)"
                " VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT (source_file) DO UPDATE SET source_url = EXCLUDED.source_url,"
                " source_sha256 = EXCLUDED.source_sha256, converter_version = EXCLUDED.converter_version,"
                " chunk_count = EXCLUDED.chunk_count, ingested_at = now()",
                (file, url, sha, conv or converter_version, counts.get(file, 0)),
            )


@dataclass(frozen=True)
class StoredRow:
    """Hashes kept in a row's provenance, to skip unchanged upserts and embeddings."""

    record_sha: str | None
    embed_sha: str | None
    has_vector: bool


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def existing_shas(conn: psycopg.Connection, table: str, id_col: str) -> dict[str, StoredRow]:
    """id -> stored hashes for api_mapping or label_prototypes (table names are our constants)."""
    rows = conn.execute(
        f"SELECT {id_col} AS id, provenance ->> 'record_sha' AS rsha, provenance ->> 'embed_sha' AS esha,"
        f" embedding IS NOT NULL AS has_vec FROM godot_rag.{table}"
    ).fetchall()
    return {r["id"]: StoredRow(r["rsha"], r["esha"], r["has_vec"]) for r in rows}


def upsert_mappings(conn: psycopg.Connection, records: list[dict], vectors: dict[str, np.ndarray]) -> int:
    """Upsert changed mapping rows; keep reviewer decisions; drop stale unreviewed rows. Returns rows written."""
    with conn.transaction():
        if records:
            dim = len(next(iter(vectors.values()))) if vectors else 1
            conn.execute(
                "CREATE TEMP TABLE stage_mapping (mapping_id text, source_api text, target_api text, change_type text,"
                " godot_from text, godot_to text, confidence text, status text, evidence_chunk_ids text[],"
                " match_terms text[], notes text, negative_patterns jsonb, provenance jsonb, search_text text,"
                f" embedding vector({dim}), identifiers text) ON COMMIT DROP"
            )
            with conn.cursor() as cur:
                with cur.copy("COPY stage_mapping FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types(["text"] * 8 + ["text[]", "text[]", "text", "jsonb", "jsonb", "text", "vector", "text"])
                    for r in records:
                        copy.write_row((
                            r["mapping_id"], r["source_api"], r.get("target_api"), r["change_type"],
                            r.get("godot_from", "3.x"), r.get("godot_to", "4.x"), r["confidence"], r["status"],
                            r["evidence_chunk_ids"], r["match_terms"], r.get("notes", ""), Jsonb(r["negative_patterns"]),
                            Jsonb({**r.get("provenance", {}), "record_sha": record_sha(r), "embed_sha": r.get("_embed_sha")}), r.get("search_text", ""),
                            vectors.get(r["mapping_id"]),
                            identifier_variants([r["source_api"], r.get("target_api") or "", *r["match_terms"]]),
                        ))
            conn.execute(
                "INSERT INTO godot_rag.api_mapping AS m (mapping_id, source_api, target_api, change_type, godot_from,"
                " godot_to, confidence, status, evidence_chunk_ids, match_terms, notes, negative_patterns, provenance,"
                " search_text, embedding, search_tsv)"
                " SELECT mapping_id, source_api, target_api, change_type, godot_from, godot_to, confidence, status,"
                " evidence_chunk_ids, match_terms, notes, negative_patterns, provenance, search_text, embedding,"
                " godot_rag.build_tsv(identifiers, source_api || ' ' || coalesce(target_api, ''), change_type || ' ' || notes)"
                " FROM stage_mapping"
                " ON CONFLICT (mapping_id) DO UPDATE SET source_api = EXCLUDED.source_api, target_api = EXCLUDED.target_api,"
                " change_type = EXCLUDED.change_type, godot_from = EXCLUDED.godot_from, godot_to = EXCLUDED.godot_to,"
                " confidence = EXCLUDED.confidence,"
                " status = CASE WHEN m.reviewed_by IS NOT NULL THEN m.status ELSE EXCLUDED.status END,"
                " evidence_chunk_ids = EXCLUDED.evidence_chunk_ids, match_terms = EXCLUDED.match_terms,"
                " notes = EXCLUDED.notes, negative_patterns = EXCLUDED.negative_patterns, provenance = EXCLUDED.provenance,"
                " search_text = EXCLUDED.search_text, embedding = coalesce(EXCLUDED.embedding, m.embedding),"
                " search_tsv = EXCLUDED.search_tsv, updated_at = now()"
            )
    return len(records)


def clear_vectors(conn: psycopg.Connection, table: str, id_col: str, ids: list[str]) -> None:
    """Drop the vectors of rows whose embedding text changed (table and column are our constants)."""
    if ids:
        conn.execute(f"UPDATE godot_rag.{table} SET embedding = NULL WHERE {id_col} = ANY(%s)", (ids,))


def delete_stale(conn: psycopg.Connection, table: str, id_col: str, keep: list[str]) -> int:
    """Remove generated rows no longer produced; reviewed mapping rows always stay."""
    reviewed = " AND reviewed_by IS NULL" if table == "api_mapping" else ""
    cur = conn.execute(f"DELETE FROM godot_rag.{table} WHERE NOT ({id_col} = ANY(%s)){reviewed}", (keep,))
    return cur.rowcount


def upsert_prototypes(conn: psycopg.Connection, records: list[dict], vectors: dict[str, np.ndarray]) -> int:
    """Upsert changed label prototypes."""
    with conn.transaction():
        if records:
            dim = len(next(iter(vectors.values()))) if vectors else 1
            conn.execute(
                "CREATE TEMP TABLE stage_proto (prototype_id text, label text, task_type text, input_pattern text,"
                " expected_finding text, recommended_action text, evidence_mapping_ids text[], evidence_chunk_ids text[],"
                f" severity text, validator_rules jsonb, provenance jsonb, search_text text, embedding vector({dim}),"
                " identifiers text) ON COMMIT DROP"
            )
            with conn.cursor() as cur:
                with cur.copy("COPY stage_proto FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types(["text"] * 6 + ["text[]", "text[]", "text", "jsonb", "jsonb", "text", "vector", "text"])
                    for r in records:
                        copy.write_row((
                            r["prototype_id"], r["label"], r["task_type"], r["input_pattern"], r["expected_finding"],
                            r["recommended_action"], r["evidence_mapping_ids"], r["evidence_chunk_ids"], r["severity"],
                            Jsonb(r["validator_rules"]), Jsonb({**r.get("provenance", {}), "record_sha": record_sha(r), "embed_sha": r.get("_embed_sha")}),
                            r.get("search_text", ""), vectors.get(r["prototype_id"]), r.get("identifiers", ""),
                        ))
            conn.execute(
                "INSERT INTO godot_rag.label_prototypes AS p (prototype_id, label, task_type, input_pattern,"
                " expected_finding, recommended_action, evidence_mapping_ids, evidence_chunk_ids, severity,"
                " validator_rules, provenance, search_text, embedding, search_tsv)"
                " SELECT prototype_id, label, task_type, input_pattern, expected_finding, recommended_action,"
                " evidence_mapping_ids, evidence_chunk_ids, severity, validator_rules, provenance, search_text, embedding,"
                " godot_rag.build_tsv(identifiers, label || ' ' || task_type,"
                "   input_pattern || ' ' || expected_finding || ' ' || recommended_action)"
                " FROM stage_proto"
                " ON CONFLICT (prototype_id) DO UPDATE SET label = EXCLUDED.label, task_type = EXCLUDED.task_type,"
                " input_pattern = EXCLUDED.input_pattern, expected_finding = EXCLUDED.expected_finding,"
                " recommended_action = EXCLUDED.recommended_action, evidence_mapping_ids = EXCLUDED.evidence_mapping_ids,"
                " evidence_chunk_ids = EXCLUDED.evidence_chunk_ids, severity = EXCLUDED.severity,"
                " validator_rules = EXCLUDED.validator_rules, provenance = EXCLUDED.provenance,"
                " search_text = EXCLUDED.search_text, embedding = coalesce(EXCLUDED.embedding, p.embedding),"
                " search_tsv = EXCLUDED.search_tsv"
            )
    return len(records)
