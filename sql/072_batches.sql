-- Reason: batch analysis (issue 37): a batch is a list of targets, each item one analysis run
-- done by a queue job (procrastinate, sql/071). The item row says where its target stands and why;
-- the run it points at holds the results. A per-host token bucket keeps GitHub fetches polite
-- across every worker process.

CREATE TABLE IF NOT EXISTS godot_rag.batches (
    batch_id    text PRIMARY KEY,
    command     text NOT NULL DEFAULT '',
    prompt      text NOT NULL DEFAULT '',
    judge_kind  text NOT NULL,
    kb_version  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS godot_rag.batch_items (
    batch_id     text NOT NULL REFERENCES godot_rag.batches (batch_id) ON DELETE CASCADE,
    position     integer NOT NULL,
    target       text NOT NULL,
    state        text NOT NULL DEFAULT 'queued'
                 CHECK (state IN ('queued', 'running', 'retrying', 'done', 'already_done', 'refused', 'failed')),
    run_key      text,                 -- the queueing lock: the run id when known at submit
    run_id       text,                 -- the run that holds (or held) this target's results
    job_id       bigint,               -- procrastinate_jobs.id of the latest job
    tries        integer NOT NULL DEFAULT 0,
    reason       text,                 -- why it was refused or failed, or the last transient error
    queued_at    timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz,
    PRIMARY KEY (batch_id, position)
);
CREATE INDEX IF NOT EXISTS batch_items_run ON godot_rag.batch_items (run_id);
CREATE INDEX IF NOT EXISTS batch_items_state ON godot_rag.batch_items (batch_id, state);

CREATE TABLE IF NOT EXISTS godot_rag.rate_buckets (
    host        text PRIMARY KEY,
    tokens      double precision NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
