"""Advisory lock keys that more than one storage module takes.

A module of its own so that the modules sharing a key import it from here and not from each
other: `migrate` imports `db`, which imports `embedded`, so `embedded` importing `migrate` for
the key was an import circle (issue 46).
"""

from __future__ import annotations

MIGRATION_LOCK_KEY = 0x60D07A6  # arbitrary, fixed: "godot rag"
"""Held while the schema migrations run, and by the embedded server's pgvector self-check, whose
CREATE EXTENSION would otherwise race another process starting on the same fresh home."""
