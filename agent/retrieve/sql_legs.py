"""The retrieval SQL: one statement, one round-trip, every leg index-backed.

Every leg reads `godot_rag.dynamic_retrieval_view`; a leg is restricted to one table by a
constant `table_name`, which the planner folds away so each branch keeps its own index
(HNSW for vectors, GIN for tsvector/trigram/arrays, btree for exact names). Why plain
psycopg rather than langchain-postgres' PGVector: PGVector owns its own collection
tables and runs one similarity query per call, while here one query fuses five legs
over three existing tables through a view; its vector store cannot express that.
"""

from __future__ import annotations

from psycopg import sql

# Inlined (not a CTE) so the planner folds it to a constant and can use the GIN index.
_TSQ = sql.SQL("(websearch_to_tsquery('simple', %(idents)s) || websearch_to_tsquery('english', %(words)s))")
TABLES = ("docs_chunks", "api_mapping", "label_prototypes")
_COLS = sql.SQL("v.table_name, v.id, v.title, v.content, v.metadata, NULL::boolean AS documented")
# An old name that Godot 4 still *defines* (Viewport, Texture: a class or a member of that kind in the
# 4.x API index) is no Godot 3 signal; a mention in passing does not count (`Spatial` is mentioned by
# five 4.x chunks and defined by none). Without an index (a knowledge base from before sql/040) the
# old test stands: a 4.x class-reference chunk names it.
_KINDS = sql.SQL(
    "CASE v.metadata->'provenance'->>'kind' WHEN 'method' THEN ARRAY['method']"
    " WHEN 'property' THEN ARRAY['property'] WHEN 'signal' THEN ARRAY['signal']"
    " WHEN 'enum' THEN ARRAY['constant', 'enum'] WHEN 'constant' THEN ARRAY['constant', 'enum']"
    " WHEN 'class' THEN ARRAY['class'] WHEN 'builtin-type' THEN ARRAY['class'] ELSE NULL END")
_SRC = sql.SQL("(v.metadata->>'source_api')")
DOCUMENTED_COLUMNS = sql.SQL(
    "v.table_name, v.id, v.title, v.content, v.metadata, CASE WHEN EXISTS (SELECT 1 FROM godot_rag.api_index)"
    " THEN (strpos({src}, '.') > 0 AND EXISTS (SELECT 1 FROM godot_rag.api_index a WHERE a.version = '4.x'"
    "   AND a.class_name = split_part({src}, '.', 1) AND a.member = split_part({src}, '.', 2)"
    "   AND ({kinds} IS NULL OR a.kind = ANY({kinds}))))"
    " OR (strpos({src}, '.') = 0 AND ({kinds} IS NULL OR {kinds} = ARRAY['class']) AND EXISTS (SELECT 1"
    "   FROM godot_rag.api_index a WHERE a.version = '4.x' AND a.class_name = {src} AND a.member = ''))"
    " OR (strpos({src}, '.') = 0 AND ({kinds} IS NULL OR {kinds} <> ARRAY['class']) AND EXISTS (SELECT 1"
    "   FROM godot_rag.api_index a WHERE a.member = {src} AND a.version = '4.x'"
    "   AND ({kinds} IS NULL OR a.kind = ANY({kinds}))))"
    " ELSE EXISTS (SELECT 1 FROM godot_rag.docs_chunks d"
    " WHERE d.doc_type = 'class_reference' AND (d.symbol = {src}"
    " OR d.api_symbols @> ARRAY[{src}])) END AS documented").format(kinds=_KINDS, src=_SRC)
# Chunks of the Godot 3.4 reference come in only as definitions (their exact symbol) and as the
# evidence of a mapping; the fuzzy legs stay on the 4.x docs, which back Godot 4 verdicts.
_NOT_34 = sql.SQL(" AND c.id NOT LIKE 'godot-3.4:%%'")


VECTOR_POOL = 100
"""HNSW candidates per table that the vector leg re-ranks exactly (well above any leg's n)."""


def _rows_by_ids(leg: str, table: str, ids: sql.Composed, cols: sql.Composable = _COLS) -> sql.Composed:
    """An unranked leg (score 1): the view's rows of `table` whose ids `ids` picks on a base table's index.

    Rows come back in the order `ids` lists them (which orders by stable keys): the fusion ranks a
    leg's rows by arrival, and a scan's order depends on how the knowledge base was built.
    """
    return sql.SQL(
        "(SELECT {leg} AS leg, {cols}, 1.0::float8 AS score FROM unnest(ARRAY({ids})) WITH ORDINALITY u(id, ord)"
        " JOIN godot_rag.dynamic_retrieval_view v ON v.table_name = {t} AND v.id = u.id ORDER BY u.ord)"
    ).format(leg=sql.Literal(leg), cols=cols, t=sql.Literal(table), ids=ids)


def _mapping_evidence_docs(where: sql.Composable, k: int) -> sql.Composed:
    """The `linked` leg: the first two docs chunks each matching mapping cites, in (mapping, position) order."""
    return _rows_by_ids("linked", "docs_chunks", sql.SQL(
        "SELECT e.id FROM godot_rag.api_mapping m, unnest(m.evidence_chunk_ids[1:2]) WITH ORDINALITY e(id, o)"
        " WHERE m.status <> 'rejected' AND {where} ORDER BY m.mapping_id, e.o LIMIT {k}"
    ).format(where=where, k=sql.Literal(k)))


def _top_then_rows(leg: str, table: str, n: sql.Literal, scored: sql.Composed) -> sql.Composed:
    """A ranked leg in two steps: the top `n` (id, score) first, then the view's columns for those rows only.

    Ranking one step with all columns makes the planner build `metadata` (a jsonb_build_object)
    and detoast `content` for every matching row before the sort keeps `n` of them; a common
    identifier matches hundreds of docs chunks, so this alone cost several ms per query.
    `scored` selects (id, score, tie): ties of the score (frequent: ranks are coarse) go to the
    higher `tie`, then the id, so the result never depends on the rows' physical order.
    """
    return sql.SQL(
        "(SELECT {leg} AS leg, {cols}, top.score FROM ({scored} ORDER BY 2 DESC, 3 DESC, c.id LIMIT {n}) top"
        " JOIN godot_rag.dynamic_retrieval_view v ON v.table_name = {t} AND v.id = top.id"
        " ORDER BY top.score DESC, top.tie DESC, top.id)"
    ).format(leg=sql.Literal(leg), cols=_COLS, scored=scored, n=n, t=sql.Literal(table))


def build_statement(*, n_probes: int, k: dict[str, int], keyword: bool = True, fuzzy_34: bool = False) -> sql.Composed:
    """The fused statement; `k` maps table -> candidates per leg.

    `keyword=False` drops the tsvector legs: with no words left an empty tsquery matches nothing,
    but the GIN index cannot answer it and the scan reads the whole index. `fuzzy_34=True` lets the
    keyword, trigram and vector legs find 3.4 docs too (a user's docs search, never a judgment).
    """
    parts: list[sql.Composable] = []
    # exact: api_mapping old names / match terms, whole identifiers, never rejected rows; the rows of the
    # chunk's candidates first, then of its member uses and calls, then of its bare names
    parts.append(_rows_by_ids("exact", "api_mapping", sql.SQL(
        "SELECT m.mapping_id FROM godot_rag.api_mapping m"
        " WHERE m.status <> 'rejected' AND (m.source_api = ANY(%(terms)s) OR m.match_terms && %(terms)s"
        " OR m.source_api = ANY(%(code_terms)s) OR m.match_terms && %(code_terms)s"
        " OR m.source_api = ANY(%(name_terms)s) OR m.match_terms && %(name_terms)s)"
        " ORDER BY CASE WHEN m.source_api = ANY(%(terms)s) THEN 0 WHEN m.match_terms && %(terms)s THEN 1"
        " WHEN m.source_api = ANY(%(code_terms)s) OR m.match_terms && %(code_terms)s THEN 2 ELSE 3 END,"
        " m.confidence = 'verified_from_docs' DESC, (m.provenance->>'source' = 'api_index') ASC, m.mapping_id"
        " LIMIT {k}").format(k=sql.Literal(k["api_mapping"] * 2)), cols=DOCUMENTED_COLUMNS))
    # linked: docs and prototypes the exact mappings point at (their evidence)
    parts.append(_mapping_evidence_docs(sql.SQL("m.source_api = ANY(%(terms)s)"), k["docs_chunks"]))
    # the 3.4 page (and 4.x page) a mapping derived from the API index cites, found by its member name
    parts.append(_mapping_evidence_docs(
        sql.SQL("m.match_terms && %(code_terms)s AND m.provenance->>'source' = 'api_index'"), k["docs_chunks"]))
    parts.append(_rows_by_ids("linked", "label_prototypes", sql.SQL(
        "SELECT p.prototype_id FROM godot_rag.label_prototypes p WHERE p.evidence_mapping_ids && ARRAY("
        " SELECT m.mapping_id FROM godot_rag.api_mapping m"
        " WHERE m.status <> 'rejected' AND m.source_api = ANY(%(terms)s)) ORDER BY p.prototype_id LIMIT {k}"
    ).format(k=sql.Literal(k["label_prototypes"]))))
    # symbol: class-reference chunks documenting the names (btree on (doc_type, symbol), GIN on api_symbols)
    parts.append(_rows_by_ids("symbol", "docs_chunks", sql.SQL(
        "SELECT d.chunk_id FROM godot_rag.docs_chunks d"
        " WHERE d.doc_type = 'class_reference' AND d.doc_version <> '3.4'"
        " AND (d.symbol = ANY(%(terms)s) OR d.api_symbols && %(dotted)s)"
        " ORDER BY (d.symbol = ANY(%(dotted)s)) DESC, (d.api_symbols && %(dotted)s) DESC, d.chunk_id LIMIT {k}"
    ).format(k=sql.Literal(k["docs_chunks"]))))
    parts.append(_rows_by_ids("symbol", "docs_chunks", sql.SQL(
        "SELECT d.chunk_id FROM godot_rag.docs_chunks d"
        " WHERE d.doc_version = '3.4' AND d.symbol = ANY(%(dotted)s) ORDER BY d.chunk_id LIMIT {k}"
    ).format(k=sql.Literal(k["docs_chunks"]))))
    for table in TABLES:
        t = sql.Literal(table)
        n = sql.Literal(k[table])
        not34 = _NOT_34 if table == "docs_chunks" and not fuzzy_34 else sql.SQL("")
        if keyword:
            parts.append(_top_then_rows("keyword", table, n, sql.SQL(
                "SELECT c.id, ts_rank_cd(c.search_tsv, {tsq})::float8 AS score, 0 AS tie"
                " FROM godot_rag.dynamic_retrieval_view c"
                " WHERE c.table_name = {t} AND c.search_tsv @@ {tsq}{not34}").format(
                    t=t, tsq=_TSQ, not34=not34)))
        if n_probes:
            # one ranked subquery per probe (each computes its own word_similarity once per candidate),
            # then the best score per row: the top n of that equals the top n by GREATEST over all probes.
            # Among equal similarities (a probe found whole in each) the shorter string is the closer
            # match: `velocity` before `get_real_velocity`, as similarity() would rank them, for free.
            per_probe = sql.SQL(" UNION ALL ").join(sql.SQL(
                "(SELECT c.id, word_similarity({p}, c.search_text) AS score, -length(c.search_text) AS tie"
                " FROM godot_rag.dynamic_retrieval_view c WHERE c.table_name = {t} AND {p} <%% c.search_text{not34}"
                " ORDER BY 2 DESC, 3 DESC, c.id LIMIT {n})").format(
                    p=sql.Placeholder(f"p{i}"), t=t, n=n, not34=not34)
                for i in range(n_probes))
            parts.append(_top_then_rows("trigram", table, n, sql.SQL(
                "SELECT c.id, max(c.score)::float8 AS score, max(c.tie) AS tie"
                " FROM ({per_probe}) c GROUP BY c.id"
            ).format(per_probe=per_probe)))
        # Nearest neighbours in two steps. The HNSW index proposes VECTOR_POOL candidates (the session's
        # ef_search is larger, and its iterative scan refills what the 3.4 filter drops); they are then
        # ranked exactly, by score and id. An HNSW scan alone is approximate and its graph differs between
        # two builds of one KB, so its own top n changed between builds; the true top n lies inside both
        # builds' candidate pools, so the exact re-ranking gives the same evidence from the same content.
        # (An exact scan of every row costs ~0.2 s here: the vectors are stored out of line.)
        parts.append(_top_then_rows("vector", table, n, sql.SQL(
            "SELECT c.id, (1 - c.d)::float8 AS score, 0 AS tie FROM ("
            "SELECT c.id, c.embedding <=> %(qv)s AS d FROM godot_rag.dynamic_retrieval_view c"
            " WHERE c.table_name = {t} AND c.embedding IS NOT NULL{not34}"
            " ORDER BY c.embedding <=> %(qv)s LIMIT {pool}) c"
        ).format(t=t, pool=sql.Literal(VECTOR_POOL), not34=not34)))
    return sql.SQL(" UNION ALL ").join(parts)


