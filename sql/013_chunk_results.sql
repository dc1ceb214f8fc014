-- Reason: the score DB, part 4: the validated result of each chunk (what was searched, what
-- was found with scores, the judgment and who made it). Upserted by (run_id, chunk_id).

CREATE TABLE IF NOT EXISTS godot_rag.chunk_results (
    run_id              text NOT NULL,
    chunk_id            text NOT NULL,
    query_terms         text[] NOT NULL DEFAULT '{}',
    query               jsonb NOT NULL DEFAULT '{}'::jsonb,
    evidence            jsonb NOT NULL DEFAULT '[]'::jsonb,   -- [{table, record_id, title, score, ...}]
    evidence_ids        text[] NOT NULL DEFAULT '{}',
    retrieval_scores    jsonb NOT NULL DEFAULT '{}'::jsonb,
    judgment            jsonb NOT NULL,
    version_signal      text NOT NULL,
    label               text NOT NULL,
    migration_required  boolean NOT NULL DEFAULT false,
    judge_kind          text NOT NULL,
    model               text,
    prompt_version      text,
    fallback_reason     text,
    validation_failures jsonb NOT NULL DEFAULT '[]'::jsonb,
    llm_attempts        integer NOT NULL DEFAULT 0,
    cached              boolean NOT NULL DEFAULT false,
    retrieval_ms        double precision,
    judge_ms            double precision,
    created_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, chunk_id),
    FOREIGN KEY (run_id, chunk_id) REFERENCES godot_rag.run_chunks (run_id, chunk_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS chunk_results_label ON godot_rag.chunk_results (label);
