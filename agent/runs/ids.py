"""Run ids and owners, made in one place for every front door (CLI, web UI, Discord)."""

from __future__ import annotations

import re
import uuid

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


def new_run_id(prefix: str = "") -> str:
    """A fresh run id, never reused: `prefix` (e.g. `dc-`, `ui-`) tells where a run was started."""
    return check_run_id(f"{prefix}{uuid.uuid4().hex[:16]}")


def check_run_id(run_id: str) -> str:
    """Run ids are short printable tokens (they appear in URLs, Discord messages and file names)."""
    if not _RUN_ID.match(run_id):
        raise ValueError(f"bad run id {run_id!r}: use letters, digits, '_', '.', ':' or '-' (max 128)")
    return run_id


def owner_of(front_door: str, user: object | None) -> str:
    """The owner string of a user of one front door (`discord:<id>`, `chainlit:<name>`): runs are
    listed per owner, so one user never sees another's runs."""
    return f"{front_door}:{user if user not in (None, '') else 'anonymous'}"
