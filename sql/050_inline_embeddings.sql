-- Reason: a 384-d vector (1.5 kB) pushed a row past the 2 kB TOAST target, so Postgres stored every
-- embedding out of line, and each distance the vector leg computed read the TOAST table first
-- (about 3 buffers per row). Storage MAIN keeps the vector in the row, and the row's text and
-- metadata are moved out of line instead; the retrieval SQL took about half the time on the test KB,
-- with the same results. Existing vectors are rewritten once, in place (about 30 s
-- for the full corpus; pg_column_toast_chunk_id needs PostgreSQL 17), and the tables are analysed.

ALTER TABLE godot_rag.docs_chunks ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE godot_rag.api_mapping ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE godot_rag.label_prototypes ALTER COLUMN embedding SET STORAGE MAIN;

UPDATE godot_rag.docs_chunks SET embedding = embedding::real[]::vector
 WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL;
UPDATE godot_rag.api_mapping SET embedding = embedding::real[]::vector
 WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL;
UPDATE godot_rag.label_prototypes SET embedding = embedding::real[]::vector
 WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL;

ANALYZE godot_rag.docs_chunks;
ANALYZE godot_rag.api_mapping;
ANALYZE godot_rag.label_prototypes;
