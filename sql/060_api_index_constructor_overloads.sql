-- Reason: a class documents several constructors (3.4's String(from: int), String(from: Vector2), ...;
-- 4.x's String(from: String), String(from: NodePath), ...), and keying the index by (class, member, kind)
-- kept only the first. The signature joins the key, so every overload is stored and a call can be
-- checked against all of them (`String(5)` fits 3.4's String(from: int) and none of 4.x's). The index
-- is rebuilt whole at each ingest; rows stored before keep their (unique) keys.

ALTER TABLE godot_rag.api_index DROP CONSTRAINT IF EXISTS api_index_pkey;
ALTER TABLE godot_rag.api_index ADD PRIMARY KEY (version, class_name, member, kind, signature);
