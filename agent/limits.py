"""The bound on work per run: a project with more chunks than its front door allows is refused at intake.

One chunk costs one retrieval and one judgment, so the chunk count is the run's cost. Every front
door (CLI, web chat, Discord) builds its input through `agent.intake`, which calls `check_chunk_cap`
before returning: the refusal comes before the run exists, before any retrieval, and states the
count and the limit. Chunking here is not wasted: the parse cache (`agent.parse.cache`) hands the
same drafts to the analysis that follows in the same process.
"""

from __future__ import annotations

from agent.intake.errors import IntakeError
from agent.models import Expansion
from agent.settings import Settings


def count_chunks(expansion: Expansion, *, stop_after: int | None = None) -> tuple[int, int]:
    """(chunks, files counted): every included file is chunked, in order, until the count passes `stop_after`."""
    from agent.parse import chunk_file

    total = counted = 0
    for file in expansion.included:
        total += len(chunk_file(file))
        counted += 1
        if stop_after is not None and total > stop_after:
            break
    return total, counted


def check_chunk_cap(expansion: Expansion, settings: Settings, *, what: str) -> int:
    """The project's chunk count, or IntakeError naming the count and the limit when it is over the cap.

    Counting stops at the first file that takes the project past the cap, so a huge paste is refused
    without chunking the rest.
    """
    limit = settings.chunk_limit
    total, counted = count_chunks(expansion, stop_after=limit)
    if total <= limit:
        return total
    files = len(expansion.included)
    count = f"{total:,} chunks" if counted == files else f"at least {total:,} chunks ({counted} of {files} files read)"
    raise IntakeError(
        f"Refused {what}: it makes {count}, over the limit of {limit:,} chunks per run "
        f"(GODOT_RAG_MAX_CHUNKS). Analyse a smaller part (one folder or fewer files)."
    )
