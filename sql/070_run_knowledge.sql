-- Reason: a run made while the embedding fill was still going (`godot-rag ingest --vectors-only`)
-- had partial evidence; its report says so. NULL for runs made before this column existed.
ALTER TABLE godot_rag.runs ADD COLUMN IF NOT EXISTS knowledge jsonb;
