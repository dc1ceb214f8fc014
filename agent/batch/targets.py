"""What a batch target is, and the run id it gets.

A run id is derived, never random: the target's content (a repository at a resolved commit, a
zip's sha256, a folder's manifest hash of paths and file hashes), the knowledge base's content
version, the judge and the prompt. The same work always gets the same id, so a job for work
already done finds the completed run and does nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from agent.intake import IntakeResult, is_remote, parse_github_url
from agent.models import AnalysisRequest

RUN_PREFIX = "b-"
_NAME_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def read_targets(lines: Iterable[str]) -> list[str]:
    """One target per line; blank lines and `#` comments are skipped."""
    out = []
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            out.append(text)
    return out


def is_github(target: str) -> bool:
    """A remote target (GitHub URLs are the only remote kind intake accepts)."""
    return is_remote(target)


@dataclass(frozen=True)
class Identity:
    """What a run analyses: `key` is hashed into the run id, `name` is the corpus folder name."""

    key: str
    name: str


def local_identity(intake: IntakeResult) -> Identity:
    """A folder, zip or file, by the content intake read (zip: archive sha256; folder: manifest hash)."""
    return request_identity(intake.request)


def request_identity(req: AnalysisRequest) -> Identity:
    """The identity of what a stored run analysed (its `AnalysisRequest`): a commit, or a content hash."""
    if req.source_origin == "github":
        target = parse_github_url(req.source)
        if target.ref and _COMMIT.match(target.ref):
            return github_identity(target.owner, target.repo, target.ref, target.subdir)
    stem = PurePosixPath(req.source_file.rstrip("/")).name or "project"
    if req.source_origin == "uploaded_zip":
        stem = stem.removesuffix(".zip")
    return Identity(key=f"{req.source_origin}:{req.source_sha256}", name=f"{_safe(stem)}@{req.source_sha256[:12]}")


def github_identity(owner: str, repo: str, sha: str, subdir: str | None) -> Identity:
    """A repository (and subfolder) at a commit."""
    where = f"{owner}/{repo}" + (f"/{subdir}" if subdir else "")
    name = f"{owner}__{repo}" + (f"__{subdir.replace('/', '__')}" if subdir else "")
    return Identity(key=f"github:{where}@{sha}", name=f"{_safe(name)}@{sha}")


def run_id_for(identity_key: str, *, kb_version: str, judge: str, prompt: str) -> str:
    """The run id of this work: the same target content, KB version, judge and prompt give the same id."""
    return RUN_PREFIX + _digest(identity_key, kb_version, judge, prompt)[:24]


def queue_key(target: str, *, kb_version: str, judge: str, prompt: str) -> str:
    """The queueing lock of a GitHub target, before its commit is known (the normalised URL)."""
    return "q-" + _digest(target.strip().rstrip("/").lower(), kb_version, judge, prompt)[:24]


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def _safe(name: str) -> str:
    return _NAME_SAFE.sub("_", name).strip("._") or "project"


async def kb_version(pool: Any) -> str:
    """The knowledge base's content version: a hash of its pages, mappings and prototypes.

    Reads only the columns that carry content (not ids or timestamps), so re-ingesting the same
    docs keeps the version and a reviewed mapping or a changed page moves it.
    """
    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                "SELECT (SELECT md5(coalesce(string_agg(source_file || ':' || source_sha256 || ':' ||"
                "  converter_version, '|' ORDER BY source_file), '')) FROM godot_rag.docs_pages) AS pages,"
                " (SELECT md5(coalesce(string_agg(mapping_id || ':' || coalesce(target_api, '') || ':' ||"
                "  change_type || ':' || confidence || ':' || status, '|' ORDER BY mapping_id), ''))"
                "  FROM godot_rag.api_mapping) AS mappings,"
                " (SELECT md5(coalesce(string_agg(prototype_id || ':' || label, '|' ORDER BY prototype_id), ''))"
                "  FROM godot_rag.label_prototypes) AS prototypes"
            )
        ).fetchone()
    return "kb-" + _digest(row["pages"], row["mappings"], row["prototypes"])[:12]
