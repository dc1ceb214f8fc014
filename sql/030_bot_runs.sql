-- Reason: the Discord bot must know, after a restart, which runs it started and where it was
-- asked (server, channel, thread, progress message), so it can resume them and post each
-- result exactly once. No foreign key to godot_rag.runs: the bot records the mapping before
-- the service creates the run, so a crash in between still leaves a trace to report.

CREATE TABLE IF NOT EXISTS godot_rag.bot_runs (
    run_id               text PRIMARY KEY,
    owner                text NOT NULL,                 -- discord:<user_id>
    user_id              bigint NOT NULL,
    guild_id             bigint,
    channel_id           bigint NOT NULL,               -- where the command was used
    thread_id            bigint,                        -- where progress and the result go
    progress_message_id  bigint,
    source_label         text NOT NULL DEFAULT '',
    question             text NOT NULL DEFAULT '',
    state                text NOT NULL DEFAULT 'running'
                         CHECK (state IN ('running', 'posting', 'posted', 'abandoned')),
    result_message_id    bigint,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    posted_at            timestamptz
);
CREATE INDEX IF NOT EXISTS bot_runs_unposted ON godot_rag.bot_runs (created_at) WHERE state IN ('running', 'posting');
CREATE INDEX IF NOT EXISTS bot_runs_owner_created ON godot_rag.bot_runs (owner, created_at DESC);
