-- Reason: cache LLM judgments by (prompt, chunk sha, evidence ids, model, prompt version), so a
-- re-run or resume never pays for the same LLM call twice. Only validated judgments are stored.
CREATE TABLE IF NOT EXISTS godot_rag.llm_judgment_cache (
    cache_key       text PRIMARY KEY,
    model           text NOT NULL,
    prompt_version  text NOT NULL,
    judgment        jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
