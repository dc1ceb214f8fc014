-- Reason: the API index of both documented versions (Godot 3.4 and 4.x): which version defines
-- each (class, member, kind), with signatures and each version's inheritance; and doc_version in
-- the retrieval view's metadata, so every docs hit says which version it quotes.

CREATE TABLE IF NOT EXISTS godot_rag.api_index (
    version        text NOT NULL,
    class_name     text NOT NULL,
    member         text NOT NULL DEFAULT '',
    kind           text NOT NULL,
    arg_count      int NOT NULL DEFAULT 0,
    default_count  int NOT NULL DEFAULT 0,
    vararg         boolean NOT NULL DEFAULT false,
    return_type    text NOT NULL DEFAULT '',
    accessor_of    text NOT NULL DEFAULT '',
    signature      text NOT NULL DEFAULT '',
    chunk_id       text NOT NULL DEFAULT '',
    source_url     text NOT NULL DEFAULT '',
    PRIMARY KEY (version, class_name, member, kind)
);
CREATE INDEX IF NOT EXISTS api_index_member ON godot_rag.api_index (member, version);

CREATE TABLE IF NOT EXISTS godot_rag.api_classes (
    version     text NOT NULL,
    class_name  text NOT NULL,
    inherits    text NOT NULL DEFAULT '',
    chunk_id    text NOT NULL DEFAULT '',
    source_url  text NOT NULL DEFAULT '',
    PRIMARY KEY (version, class_name)
);

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
           'section_path', d.section_path, 'api_symbols', to_jsonb(d.api_symbols),
           'doc_version', d.doc_version) AS metadata
  FROM godot_rag.docs_chunks d
UNION ALL
SELECT 'api_mapping',
       m.mapping_id,
       CASE WHEN m.change_type = 'unchanged' THEN m.source_api || ' (unchanged in Godot 4)'
            ELSE m.source_api || ' -> ' || coalesce(m.target_api, '(removed)') END,
       concat_ws(E'\n',
           CASE WHEN m.change_type = 'unchanged' THEN 'unchanged: ' || m.source_api || ' works the same in Godot 4'
                ELSE m.change_type || ': ' || m.source_api || ' -> ' || coalesce(m.target_api, '(removed)') END,
           m.notes),
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

-- chunks of one documented version, for the retriever's per-version legs
CREATE INDEX IF NOT EXISTS docs_chunks_doc_version_symbol ON godot_rag.docs_chunks (doc_version, symbol);
