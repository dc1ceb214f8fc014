-- Reason: one place to read a run's progress (done/total per status) for the CLI, UI and bot.

CREATE OR REPLACE VIEW godot_rag.run_progress AS
SELECT r.run_id,
       r.chunk_total,
       count(c.chunk_id) FILTER (WHERE c.status = 'done')        AS done,
       count(c.chunk_id) FILTER (WHERE c.status = 'failed')      AS failed,
       count(c.chunk_id) FILTER (WHERE c.status = 'processing')  AS processing,
       count(c.chunk_id) FILTER (WHERE c.status IN ('pending', 'waiting', 'stopped')) AS pending
FROM godot_rag.runs r
LEFT JOIN godot_rag.run_chunks c ON c.run_id = r.run_id
GROUP BY r.run_id, r.chunk_total;
