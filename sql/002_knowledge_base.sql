-- Reason: the knowledge base (docs_chunks, api_mapping, label_prototypes) as designed,
-- one flattened view for the retriever, and per-page state for incremental ingest.

CREATE TABLE IF NOT EXISTS godot_rag.docs_chunks (
    id              bigserial PRIMARY KEY,
    chunk_id        text NOT NULL UNIQUE,
    doc_version     text NOT NULL,
    source_url      text NOT NULL,
    source_file     text NOT NULL,
    source_sha256   text NOT NULL,
    doc_type        text NOT NULL,
    symbol          text,
    section_path    jsonb NOT NULL DEFAULT '[]'::jsonb,
    heading         text,
    content         text NOT NULL,
    code_blocks     jsonb NOT NULL DEFAULT '[]'::jsonb,
    api_symbols     text[] NOT NULL DEFAULT '{}',
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- short text only (symbol, heading, API names): trigram over long bodies is too slow
    search_text     text NOT NULL DEFAULT '',
    embedding       vector({{EMBEDDING_DIM}}),
    search_tsv      tsvector,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS docs_chunks_embedding_hnsw ON godot_rag.docs_chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS docs_chunks_search_tsv_gin ON godot_rag.docs_chunks USING gin (search_tsv);
CREATE INDEX IF NOT EXISTS docs_chunks_api_symbols_gin ON godot_rag.docs_chunks USING gin (api_symbols);
CREATE INDEX IF NOT EXISTS docs_chunks_doc_type_symbol ON godot_rag.docs_chunks (doc_type, symbol);
CREATE INDEX IF NOT EXISTS docs_chunks_search_text_trgm ON godot_rag.docs_chunks USING gin (search_text gin_trgm_ops);
CREATE INDEX IF NOT EXISTS docs_chunks_source_file ON godot_rag.docs_chunks (source_file);

CREATE TABLE IF NOT EXISTS godot_rag.api_mapping (
    id                  bigserial PRIMARY KEY,
    mapping_id          text NOT NULL UNIQUE,
    source_api          text NOT NULL,
    target_api          text,
    change_type         text NOT NULL,
    godot_from          text NOT NULL DEFAULT '3.x',
    godot_to            text NOT NULL DEFAULT '4.x',
    confidence          text NOT NULL CHECK (confidence IN ('verified_from_docs', 'candidate')),
    status              text NOT NULL CHECK (status IN ('candidate', 'approved', 'rejected')),
    evidence_chunk_ids  text[] NOT NULL DEFAULT '{}',
    match_terms         text[] NOT NULL DEFAULT '{}',
    notes               text NOT NULL DEFAULT '',
    negative_patterns   jsonb NOT NULL DEFAULT '[]'::jsonb,
    provenance          jsonb NOT NULL DEFAULT '{}'::jsonb,
    reviewed_by         text,
    reviewed_at         timestamptz,
    review_note         text,
    search_text         text NOT NULL DEFAULT '',
    embedding           vector({{EMBEDDING_DIM}}),
    search_tsv          tsvector,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS api_mapping_source_api ON godot_rag.api_mapping (source_api);
CREATE INDEX IF NOT EXISTS api_mapping_target_api ON godot_rag.api_mapping (target_api);
CREATE INDEX IF NOT EXISTS api_mapping_match_terms_gin ON godot_rag.api_mapping USING gin (match_terms);
CREATE INDEX IF NOT EXISTS api_mapping_status_confidence ON godot_rag.api_mapping (status, confidence);
CREATE INDEX IF NOT EXISTS api_mapping_embedding_hnsw ON godot_rag.api_mapping USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS api_mapping_search_tsv_gin ON godot_rag.api_mapping USING gin (search_tsv);
CREATE INDEX IF NOT EXISTS api_mapping_search_text_trgm ON godot_rag.api_mapping USING gin (search_text gin_trgm_ops);

CREATE TABLE IF NOT EXISTS godot_rag.label_prototypes (
    id                    bigserial PRIMARY KEY,
    prototype_id          text NOT NULL UNIQUE,
    label                 text NOT NULL,
    task_type             text NOT NULL,
    input_pattern         text NOT NULL,
    expected_finding      text NOT NULL,
    recommended_action    text NOT NULL,
    evidence_mapping_ids  text[] NOT NULL DEFAULT '{}',
    evidence_chunk_ids    text[] NOT NULL DEFAULT '{}',
    severity              text NOT NULL,
    validator_rules       jsonb NOT NULL DEFAULT '{}'::jsonb,
    provenance            jsonb NOT NULL DEFAULT '{}'::jsonb,
    search_text           text NOT NULL DEFAULT '',
    embedding             vector({{EMBEDDING_DIM}}),
    search_tsv            tsvector,
    created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS label_prototypes_label_task ON godot_rag.label_prototypes (label, task_type);
CREATE INDEX IF NOT EXISTS label_prototypes_embedding_hnsw ON godot_rag.label_prototypes USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS label_prototypes_search_tsv_gin ON godot_rag.label_prototypes USING gin (search_tsv);
CREATE INDEX IF NOT EXISTS label_prototypes_search_text_trgm ON godot_rag.label_prototypes USING gin (search_text gin_trgm_ops);

-- Incremental ingest: a page whose sha256 is unchanged is neither re-chunked nor re-embedded.
CREATE TABLE IF NOT EXISTS godot_rag.docs_pages (
    source_file        text PRIMARY KEY,
    source_url         text NOT NULL UNIQUE,
    source_sha256      text NOT NULL,
    converter_version  text NOT NULL,
    chunk_count        int NOT NULL,
    ingested_at        timestamptz NOT NULL DEFAULT now()
);

-- The three tables flattened to one shape, so a single retriever treats none specially.
-- Source fields (URL, file, hash) live in metadata, never in search_text/search_tsv.
CREATE OR REPLACE VIEW godot_rag.dynamic_retrieval_view AS
SELECT 'docs_chunks'::text AS table_name,
       d.chunk_id AS id,
       coalesce(d.symbol, d.heading, d.chunk_id) AS title,
       d.content,
       d.embedding,
       d.search_text,
       d.search_tsv,
       d.metadata || jsonb_build_object(
           'doc_type', d.doc_type, 'symbol', d.symbol, 'heading', d.heading,
           'source_url', d.source_url, 'source_file', d.source_file,
           'section_path', d.section_path, 'api_symbols', to_jsonb(d.api_symbols)) AS metadata
  FROM godot_rag.docs_chunks d
UNION ALL
SELECT 'api_mapping',
       m.mapping_id,
       m.source_api || ' -> ' || coalesce(m.target_api, '(removed)'),
       concat_ws(E'\n', m.change_type || ': ' || m.source_api || ' -> ' || coalesce(m.target_api, '(removed)'), m.notes),
       m.embedding,
       m.search_text,
       m.search_tsv,
       jsonb_build_object(
           'source_api', m.source_api, 'target_api', m.target_api, 'change_type', m.change_type,
           'confidence', m.confidence, 'status', m.status, 'godot_from', m.godot_from, 'godot_to', m.godot_to,
           'evidence_chunk_ids', to_jsonb(m.evidence_chunk_ids), 'match_terms', to_jsonb(m.match_terms),
           'negative_patterns', m.negative_patterns, 'provenance', m.provenance)
  FROM godot_rag.api_mapping m
UNION ALL
SELECT 'label_prototypes',
       p.prototype_id,
       p.label || ': ' || p.task_type,
       concat_ws(E'\n', p.input_pattern, p.expected_finding, p.recommended_action),
       p.embedding,
       p.search_text,
       p.search_tsv,
       jsonb_build_object(
           'label', p.label, 'task_type', p.task_type, 'severity', p.severity,
           'evidence_mapping_ids', to_jsonb(p.evidence_mapping_ids),
           'evidence_chunk_ids', to_jsonb(p.evidence_chunk_ids),
           'validator_rules', p.validator_rules, 'provenance', p.provenance)
  FROM godot_rag.label_prototypes p;
