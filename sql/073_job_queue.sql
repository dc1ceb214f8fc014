-- Reason: the durable job queue of batch analysis is procrastinate's (pinned <4 in pyproject.toml).
-- Its tables (procrastinate_*) are its own schema, applied here by the same runner as ours so one
-- migrate step sets up a database; the runner puts the installed package's schema.sql in place of
-- the marker below. A procrastinate upgrade that ships migrations gets a numbered file of its own.
{{PROCRASTINATE_SCHEMA}}
