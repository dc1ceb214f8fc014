"""Hybrid retriever over `godot_rag.dynamic_retrieval_view`.

One `RetrieverQuery` runs five legs (exact api_mapping names, class-reference symbols,
keyword tsvector, trigram on the short `search_text`, vector) in one SQL statement; the
legs are fused by reciprocal rank plus an exact-match boost into `RetrievalHit`s.
The retriever sees only the query: trace fields (paths, chunk ids) never reach it.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from psycopg import sql

from agent.models import EvidenceBundle, RetrievalHit, RetrieverQuery
from agent.retrieve.sql_legs import TABLES, VECTOR_POOL, build_statement
from agent.retrieve.terms import code_terms, exact_terms, keyword_text, trigram_probes
from agent.settings import Settings

_SESSION_SQL = (
    "SELECT set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true),"
    # Planning the fused statement cost as much as running it (~20 ms): its few shapes are prepared
    # (prepare_threshold=0) and run from one generic plan each. Every leg orders by stable keys, so the
    # plan never changes a result. Parallel workers only add start-up time on queries this small.
    " set_config('plan_cache_mode', 'force_generic_plan', true), set_config('max_parallel_workers_per_gather', '0', true),"
    " set_config('pg_trgm.word_similarity_threshold', %s, true),"
    # the vector leg's candidate pool: a search twice its size, refilled past filtered rows
    f" set_config('hnsw.ef_search', '{2 * VECTOR_POOL}', true), set_config('hnsw.iterative_scan', 'relaxed_order', true)"
)
_BUNDLE_KEY = {"docs_chunks": "doc_evidence", "api_mapping": "api_mapping_evidence",
               "label_prototypes": "label_evidence"}



@dataclass(kw_only=True)
class RetrievalConfig:
    """Tunable retrieval knobs (graph context, not infrastructure settings)."""

    top_k_docs: int = field(default=6, metadata={"description": "docs_chunks hits kept per chunk"})
    top_k_mappings: int = field(default=6, metadata={"description": "api_mapping hits kept per chunk"})
    top_k_labels: int = field(default=3, metadata={"description": "label_prototypes hits kept per chunk"})
    candidates_factor: int = field(default=2, metadata={"description": "each leg fetches top_k x this per table"})
    rrf_k: float = field(default=60.0, metadata={"description": "reciprocal rank fusion constant"})
    weight_exact: float = field(default=1.0, metadata={"description": "RRF weight of the exact api_mapping leg"})
    weight_linked: float = field(default=1.0, metadata={"description": "RRF weight of evidence linked to exact hits"})
    weight_symbol: float = field(default=1.0, metadata={"description": "RRF weight of the class-reference symbol leg"})
    weight_keyword: float = field(default=1.0, metadata={"description": "RRF weight of the tsvector leg"})
    weight_trigram: float = field(default=0.5, metadata={"description": "RRF weight of the trigram leg"})
    weight_vector: float = field(default=1.0, metadata={"description": "RRF weight of the vector leg"})
    exact_boost: float = field(default=1.0, metadata={"description": "added to the fused score of exact hits"})
    trigram_probes: int = field(default=2, metadata={"description": "identifiers probed with trigram similarity"})
    trigram_threshold: float = field(default=0.7, metadata={"description": "pg_trgm word_similarity threshold"})
    fuzzy_34: bool = field(default=False, metadata={
        "description": "keyword, trigram and vector legs search the 3.4 docs too (a docs search; never judging)"})
    common_share: float = field(default=0.02, metadata={
        "description": "names in more than this share of docs chunks stay out of the keyword and trigram legs"})

    def top_k(self, table: str) -> int:
        return {"docs_chunks": self.top_k_docs, "api_mapping": self.top_k_mappings,
                "label_prototypes": self.top_k_labels}[table]

    def weight(self, leg: str) -> float:
        return float(getattr(self, f"weight_{leg}"))


def _embed_text(query: RetrieverQuery) -> str:
    return query.query_text or query.raw_chunk_text


_COMMON_SQL = (
    "SELECT word FROM ts_stat('SELECT search_tsv FROM godot_rag.docs_chunks')"
    " WHERE ndoc > %s * (SELECT count(*) FROM godot_rag.docs_chunks)"
)
_URLS_SQL = "SELECT chunk_id, source_url FROM godot_rag.docs_chunks WHERE chunk_id = ANY(%s) AND source_url IS NOT NULL"


def _evidence_urls(conn, rows: list[dict]) -> dict[str, str]:
    """source_url of every docs chunk a mapping/prototype row cites (one indexed lookup)."""
    ids = sorted({i for r in rows if r["table_name"] != "docs_chunks"
                  for i in (r["metadata"] or {}).get("evidence_chunk_ids") or []})
    if not ids:
        return {}
    return {r["chunk_id"]: r["source_url"] for r in conn.execute(_URLS_SQL, (ids,)).fetchall()}


class Retriever:
    """One `RetrieverQuery` -> one `EvidenceBundle`; sync and thread-safe (pool + locked embedder)."""

    def __init__(self, settings: Settings, pool, *, embedder=None, config: RetrievalConfig | None = None):
        if embedder is None:
            from agent.embeddings import get_embedder

            embedder = get_embedder(settings)
        self.settings = settings
        self.pool = pool
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self.last_timings: dict[str, float] = {}  # of the latest call: read it only where calls run one at a time
        self._common: frozenset[str] | None = None
        self._common_lock = threading.Lock()

    def with_config(self, config: RetrievalConfig) -> Retriever:
        """The same retriever (pool, model, the corpus's common words) with other knobs."""
        other = Retriever(self.settings, self.pool, embedder=self.embedder, config=config)
        other._common = self.common_lexemes()
        return other

    def common_lexemes(self) -> frozenset[str]:
        """Lexemes in more than `common_share` of the docs chunks; read once per retriever (~0.15 s on the full KB)."""
        with self._common_lock:
            if self._common is None:
                with self.pool.connection() as conn:
                    rows = conn.execute(_COMMON_SQL, (self.config.common_share,)).fetchall()
                self._common = frozenset(r["word"] for r in rows)
            return self._common

    def _params(self, query: RetrieverQuery, vector=None) -> tuple[dict[str, Any], int, list[str]]:
        terms = exact_terms(query)
        common = self.common_lexemes()
        idents, words = keyword_text(query, terms, common)
        probes = trigram_probes(terms, self.config.trigram_probes, common)
        uses, names = code_terms(query, terms)
        uses += [c for c in query.receiver_classes if c not in terms and c not in uses]
        terms = terms + [t for t in query.receiver_members if t not in terms]  # exact legs only, not keywords
        params: dict[str, Any] = {
            "terms": terms,
            "code_terms": uses,
            "name_terms": names,
            "dotted": [t for t in terms if "." in t],
            "idents": idents,
            "words": words,
            "qv": vector if vector is not None else self.embedder.embed_query(_embed_text(query)),
        }
        params.update({f"p{i}": p for i, p in enumerate(probes)})
        return params, len(probes), terms

    def statement(self, query: RetrieverQuery, vector=None) -> tuple[sql.Composed, dict[str, Any], list[str]]:
        """(statement, params, exact terms) of one query: what `retrieve` runs and `explain` shows."""
        params, n_probes, terms = self._params(query, vector)
        k = {t: self.config.top_k(t) * self.config.candidates_factor for t in TABLES}
        keyword = bool(params["idents"] or params["words"])
        return build_statement(n_probes=n_probes, k=k, keyword=keyword, fuzzy_34=self.config.fuzzy_34), params, terms

    def _session(self, conn) -> None:
        # Small tables tempt the planner into seq scans that compute word_similarity / distances
        # for every row; the indexes are what keeps p95 flat as the corpus grows.
        conn.execute(_SESSION_SQL, (str(self.config.trigram_threshold),))

    def explain(self, query: RetrieverQuery) -> str:
        """The plan Postgres makes for the statement `retrieve` runs for `query`, under the same session settings.

        EXPLAIN plans it with these values bound; `retrieve` runs the prepared statement's generic plan.
        """
        statement, params, _ = self.statement(query)
        with self.pool.connection() as conn, conn.transaction():
            self._session(conn)
            return "\n".join(r["QUERY PLAN"] for r in conn.execute(sql.SQL("EXPLAIN ") + statement, params))

    def retrieve(self, query: RetrieverQuery, *, vector=None) -> EvidenceBundle:
        """Search all three tables for one chunk's query and fuse the legs.

        `vector` (optional) is the query embedding when the caller embedded a window first (`retrieve_many`).
        """
        t0 = time.perf_counter()
        if vector is None:
            vector = self.embedder.embed_query(_embed_text(query))
        t1 = time.perf_counter()
        statement, params, terms = self.statement(query, vector)
        with self.pool.connection() as conn, conn.transaction():
            self._session(conn)
            rows = conn.execute(statement, params).fetchall()
            urls = _evidence_urls(conn, rows)
        t2 = time.perf_counter()
        bundle = self._fuse(query, rows, terms, urls)
        self.last_timings = {"embed_ms": (t1 - t0) * 1000, "sql_ms": (t2 - t1) * 1000,
                             "total_ms": (time.perf_counter() - t0) * 1000}
        return bundle

    def embed_queries(self, queries: list[RetrieverQuery]):
        """The vectors `retrieve` would embed for these queries, each query alone (`Embedder.embed_queries`)."""
        return self.embedder.embed_queries([_embed_text(q) for q in queries])

    def retrieve_many(self, queries: list[RetrieverQuery]) -> list[EvidenceBundle]:
        """Same as `retrieve` per query, with the window's vectors embedded first in one pass."""
        return [self.retrieve(q, vector=v) for q, v in zip(queries, self.embed_queries(queries))]

    def _fuse(self, query: RetrieverQuery, rows: list[dict], terms: list[str],
              urls: dict[str, str] | None = None) -> EvidenceBundle:
        cfg = self.config
        ranks: dict[tuple[str, str], int] = defaultdict(int)
        fused: dict[tuple[str, str], float] = defaultdict(float)
        legs: dict[tuple[str, str], list[str]] = defaultdict(list)
        exact_rank: dict[tuple[str, str], int] = {}
        rows_by_key: dict[tuple[str, str], dict] = {}
        counts = {"exact_api_hits": 0, "keyword_hits": 0, "vector_hits": 0}
        for row in rows:  # rows of one leg+table arrive in rank order
            key = (row["table_name"], row["id"])
            leg = row["leg"]
            ranks[(leg, row["table_name"])] += 1
            if leg in legs[key]:
                continue
            fused[key] += cfg.weight(leg) / (cfg.rrf_k + ranks[(leg, row["table_name"])])
            if leg == "exact":
                fused[key] += cfg.exact_boost
                exact_rank[key] = ranks[(leg, row["table_name"])]
                counts["exact_api_hits"] += 1
            elif leg == "keyword":
                counts["keyword_hits"] += 1
            elif leg == "vector":
                counts["vector_hits"] += 1
            legs[key].append(leg)
            if key not in rows_by_key or row["documented"] is not None:
                rows_by_key[key] = row
        out: dict[str, list[RetrievalHit]] = {name: [] for name in _BUNDLE_KEY.values()}
        for table in TABLES:
            keys = sorted((k for k in fused if k[0] == table), key=lambda k: (-fused[k], k[1]))
            # exact old-name matches are kept past top_k (up to twice it): a chunk full of Godot 3
            # calls needs the mapping of each one, and these are the most precise evidence there is.
            # They come in the exact leg's order (the chunk's own names first, the index's derived rows
            # last): other legs favour the many per-class rows of one member (PoolByteArray.empty, ...)
            exact = sorted((k for k in keys[cfg.top_k(table) :] if "exact" in legs[k]),
                           key=lambda k: exact_rank[k])[: cfg.top_k(table)]
            if table == "docs_chunks":  # the pages of the members used on typed receivers (first windows)
                exact += _member_pages(keys[cfg.top_k(table) :], rows_by_key, query.receiver_members)
            for key in keys[: cfg.top_k(table)] + exact:
                row = rows_by_key[key]
                metadata = dict(row["metadata"] or {})
                if row["documented"] is not None:
                    metadata["documented_in_godot4"] = bool(row["documented"])
                linked = {i: urls[i] for i in metadata.get("evidence_chunk_ids") or [] if urls and i in urls}
                if table != "docs_chunks" and linked:
                    metadata["evidence_urls"] = linked  # judges link the docs a mapping cites, retrieved or not
                out[_BUNDLE_KEY[table]].append(RetrievalHit(
                    table=table, record_id=row["id"], title=row["title"], content=row["content"],
                    score=round(fused[key], 6), metadata=metadata, match=legs[key]))
        digest = hashlib.sha256(f"{query.task_type}\n{query.query_text}\n{query.raw_chunk_text}".encode()).hexdigest()
        return EvidenceBundle(
            query_id=f"q-{digest[:16]}",
            task_type=query.task_type,
            ast_summary={"symbols": list(query.symbol_candidates), "api_calls": list(query.api_call_candidates),
                         "references": list(query.reference_candidates), "exact_terms": terms,
                         "query_terms": list(query.query_terms)},
            retrieval_scores=counts,
            **out,
        )


MEMBER_PAGES = 4
"""Class-reference pages of typed receivers' members kept past top_k: the judge checks a call's form
(`items.sort_custom(obj, "f")` on an Array) against them, and cites them."""


def _member_pages(rest: list[tuple[str, str]], rows: dict[tuple[str, str], dict], members: list[str]) -> list:
    """The first window of each member page in `rest` (past top_k) that `members` name, in code order."""
    order = {m: i for i, m in enumerate(members)}
    found = [k for k in rest if (rows[k]["metadata"] or {}).get("symbol") in order and k[1].endswith(":0001")]
    return sorted(found, key=lambda k: (order[rows[k]["metadata"]["symbol"]], k[1]))[:MEMBER_PAGES]
