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
from agent.settings import DEFAULT_MAX_CHUNKS, Settings


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
        f"(GODOT_RAG_MAX_CHUNKS). {larger_project_offer(settings, what, total)}"
    )


def larger_project_offer(settings: Settings, what: str, chunks: int) -> str:
    """What a user over a front door's cap can do: a smaller part, or the CLI where it takes the whole project."""
    cli_cap = DEFAULT_MAX_CHUNKS["cli"] if settings.max_chunks is None else settings.max_chunks
    smaller = "Analyse a smaller part (one folder or fewer files)"
    if settings.front_door == "cli" or chunks > cli_cap:
        return smaller + "."
    target = what if what.startswith("https://github.com/") else "<your project folder or .zip>"
    return (f"{smaller}, or run the whole project from the command line, which takes up to {cli_cap:,} chunks: "
            f"`godot-rag analyze {target}`.")


def expected_time(chunks: int, rate: tuple[float, int] | None) -> str:
    """What a user is told at intake: the chunk count and, from the measured rate, about how long it takes."""
    if rate is None:
        return f"{chunks:,} chunks to judge (no run measured on this machine yet, so no time estimate)"
    per_second, runs = rate
    seconds = chunks / per_second if per_second > 0 else 0.0
    if seconds < 90:
        about = f"about {max(1, round(seconds))} s"
    elif seconds < 5400:
        about = f"about {round(seconds / 60)} minutes"
    else:
        about = f"about {seconds / 3600:.1f} hours"
    return (f"{chunks:,} chunks to judge: {about} at the measured {per_second:.0f} chunks/s "
            f"(last {runs} run{'s' if runs != 1 else ''} on this machine)")
