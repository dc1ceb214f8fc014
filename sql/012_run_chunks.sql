-- Reason: the score DB, part 3: per-chunk work state. Status is visible at any moment;
-- attempts counts every start honestly (a chunk in flight at a crash is started again).

CREATE TABLE IF NOT EXISTS godot_rag.run_chunks (
    run_id        text NOT NULL REFERENCES godot_rag.runs (run_id) ON DELETE CASCADE,
    chunk_id      text NOT NULL,
    chunk_order   integer NOT NULL,
    source_file   text NOT NULL,
    chunk_kind    text NOT NULL,
    start_line    integer NOT NULL,
    end_line      integer NOT NULL,
    sha256        text NOT NULL,
    chunk         jsonb NOT NULL,          -- the whole Chunk record
    status        text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'processing', 'done', 'failed', 'stopped', 'waiting')),
    attempts      integer NOT NULL DEFAULT 0,
    started_at    timestamptz,
    completed_at  timestamptz,
    error         text,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, chunk_id)
);
CREATE INDEX IF NOT EXISTS run_chunks_run_status_order ON godot_rag.run_chunks (run_id, status, chunk_order);
CREATE UNIQUE INDEX IF NOT EXISTS run_chunks_run_order ON godot_rag.run_chunks (run_id, chunk_order);
