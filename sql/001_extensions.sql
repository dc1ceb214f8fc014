-- Reason: the extensions every later migration relies on, and the project's schema.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE SCHEMA IF NOT EXISTS godot_rag;

-- One tsvector recipe for records and queries alike: identifiers with the `simple` config
-- (no stemming, so `move_and_slide` stays matchable), prose with `english`.
CREATE OR REPLACE FUNCTION godot_rag.build_tsv(identifiers text, title text, body text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('simple', coalesce(identifiers, '')), 'A')
      || setweight(to_tsvector('english', coalesce(title, '')), 'B')
      || setweight(to_tsvector('english', coalesce(body, '')), 'D')
$$;
