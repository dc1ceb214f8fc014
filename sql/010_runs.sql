-- Reason: the score DB, part 1: one row per analysis run (who asked what about which source,
-- which judge, where it stands, and the final verdict), keyed by run_id so runs never mix.

CREATE TABLE IF NOT EXISTS godot_rag.runs (
    run_id          text PRIMARY KEY,
    project_id      text NOT NULL,
    owner           text,
    prompt          text NOT NULL DEFAULT '',
    source          jsonb NOT NULL DEFAULT '{}'::jsonb,   -- the AnalysisRequest (source descriptor)
    source_origin   text NOT NULL DEFAULT 'unknown',
    judge_kind      text NOT NULL DEFAULT 'evidence',
    status          text NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
    status_detail   text NOT NULL DEFAULT '',
    intent          jsonb,
    project_signals jsonb NOT NULL DEFAULT '{}'::jsonb,
    verdict         jsonb,
    chunk_total     integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz
);
CREATE INDEX IF NOT EXISTS runs_owner_created ON godot_rag.runs (owner, created_at DESC);
CREATE INDEX IF NOT EXISTS runs_status ON godot_rag.runs (status);
CREATE INDEX IF NOT EXISTS runs_project ON godot_rag.runs (project_id);

-- What resume needs without touching the source again (a GitHub clone is never re-cloned).
CREATE TABLE IF NOT EXISTS godot_rag.run_intake (
    run_id          text PRIMARY KEY REFERENCES godot_rag.runs (run_id) ON DELETE CASCADE,
    request         jsonb NOT NULL,
    expanded_text   text NOT NULL DEFAULT '',
    line_map        jsonb NOT NULL DEFAULT '[]'::jsonb
);
