-- Reason: api_mapping rows of change_type 'unchanged' read as "X -> X" in traces; title them
-- "X (unchanged in Godot 4)". Same columns and types as 002's view, so dependants are unaffected.

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
