-- Reason: the score DB, part 2: every file of a run's expanded project, included or excluded
-- with its reason, and the decoded text so resume never re-fetches the source.

CREATE TABLE IF NOT EXISTS godot_rag.run_files (
    run_id      text NOT NULL REFERENCES godot_rag.runs (run_id) ON DELETE CASCADE,
    path        text NOT NULL,
    file_order  integer NOT NULL,
    kind        text NOT NULL,
    sha256      text,
    size        bigint NOT NULL DEFAULT 0,
    included    boolean NOT NULL,
    reason      text NOT NULL DEFAULT '',
    text        text,
    PRIMARY KEY (run_id, path)
);
