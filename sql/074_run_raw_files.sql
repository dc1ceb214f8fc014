-- Reason: a migrated copy of an uploaded zip holds every file of the project (images, audio, shaders,
-- READMEs, .gdignore), byte for byte, not only the analysed texts; left_out names a file the copy
-- leaves out (Godot 3's .import/ cache, an entry over the limit) with its reason, and data is then null.

CREATE TABLE IF NOT EXISTS godot_rag.run_raw_files (
    run_id    text NOT NULL REFERENCES godot_rag.runs (run_id) ON DELETE CASCADE,
    path      text NOT NULL,
    data      bytea,
    left_out  text,
    PRIMARY KEY (run_id, path)
);
