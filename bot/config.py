"""Bot-only knobs (rate limits, size caps, repo restrictions), read from the environment at start-up.

Infrastructure settings (database, token, LLM) stay in `agent.settings.Settings`; these are the
guard rails that only make sense for a chat front door.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.settings import env_float as _float
from agent.settings import env_int as _int
from agent.settings import env_value as _env


def _rate(name: str, default: tuple[int, float]) -> tuple[int, float]:
    """Parse `COUNT/SECONDS`, e.g. `3/60` = three runs per minute."""
    raw = _env(name)
    if raw is None:
        return default
    count, sep, seconds = raw.partition("/")
    try:
        if not sep:
            raise ValueError
        return int(count), float(seconds)
    except ValueError as exc:
        raise ValueError(f"{name} must look like COUNT/SECONDS (e.g. 3/60), got {raw!r}") from exc


def _ids(name: str) -> frozenset[str]:
    raw = _env(name)
    return frozenset(p.strip() for p in raw.split(",") if p.strip()) if raw else frozenset()


@dataclass(frozen=True, kw_only=True)
class BotConfig:
    """Guard rails of the Discord front door. Every field maps to a `GODOT_RAG_BOT_*` variable."""

    user_rate: tuple[int, float] = (3, 60.0)
    """GODOT_RAG_BOT_USER_RATE: analyses one user may start per window, `COUNT/SECONDS`."""
    guild_rate: tuple[int, float] = (20, 60.0)
    """GODOT_RAG_BOT_GUILD_RATE: analyses one server may start per window, `COUNT/SECONDS`."""
    max_concurrent_runs: int = 2
    """GODOT_RAG_BOT_MAX_CONCURRENT_RUNS: analyses running at once in this bot process."""
    max_attachment_bytes: int = 1_000_000
    """GODOT_RAG_BOT_MAX_ATTACHMENT_BYTES: cap on a .gd/.tscn/project.godot attachment."""
    max_zip_bytes: int = 8_000_000
    """GODOT_RAG_BOT_MAX_ZIP_BYTES: cap on a .zip attachment (compressed size; intake caps the rest)."""
    repo_roles: frozenset[str] = frozenset()
    """GODOT_RAG_BOT_REPO_ROLES: role ids or names allowed to analyze repos (comma list; empty = everyone)."""
    repo_channels: frozenset[str] = frozenset()
    """GODOT_RAG_BOT_REPO_CHANNELS: channel ids where repo analysis is allowed (comma list; empty = all)."""
    progress_interval: float = 1.5
    """GODOT_RAG_BOT_PROGRESS_INTERVAL: minimum seconds between two edits of one progress message."""
    top_items: int = 10
    """GODOT_RAG_BOT_TOP_ITEMS: migration items shown in the result embed (the rest go to the report)."""
    dev_guild_id: int | None = None
    """GODOT_RAG_BOT_GUILD_ID: also sync commands to this server at start-up (instant, for testing)."""
    sync_commands: bool = True
    """GODOT_RAG_BOT_SYNC: 0 to skip syncing slash commands at start-up."""
    resume_on_start: bool = True
    """GODOT_RAG_BOT_RESUME: 0 to skip resuming the bot's interrupted runs at start-up."""

    @classmethod
    def from_env(cls) -> BotConfig:
        """Read the environment now (start-up, never import)."""
        guild = _env("GODOT_RAG_BOT_GUILD_ID")
        return cls(
            user_rate=_rate("GODOT_RAG_BOT_USER_RATE", (3, 60.0)),
            guild_rate=_rate("GODOT_RAG_BOT_GUILD_RATE", (20, 60.0)),
            max_concurrent_runs=_int("GODOT_RAG_BOT_MAX_CONCURRENT_RUNS", 2),
            max_attachment_bytes=_int("GODOT_RAG_BOT_MAX_ATTACHMENT_BYTES", 1_000_000),
            max_zip_bytes=_int("GODOT_RAG_BOT_MAX_ZIP_BYTES", 8_000_000),
            repo_roles=_ids("GODOT_RAG_BOT_REPO_ROLES"),
            repo_channels=_ids("GODOT_RAG_BOT_REPO_CHANNELS"),
            progress_interval=_float("GODOT_RAG_BOT_PROGRESS_INTERVAL", 1.5),
            top_items=_int("GODOT_RAG_BOT_TOP_ITEMS", 10),
            dev_guild_id=int(guild) if guild and guild.isdigit() else None,
            sync_commands=_env("GODOT_RAG_BOT_SYNC") not in ("0", "false", "no"),
            resume_on_start=_env("GODOT_RAG_BOT_RESUME") not in ("0", "false", "no"),
        )

    def with_(self, **changes: object) -> BotConfig:
        """A copy with some fields changed (tests, CLI flags)."""
        return replace(self, **changes)
