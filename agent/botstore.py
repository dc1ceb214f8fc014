"""The Discord bot's own table: which run it started, where, and whether its result was posted.

The bot layer holds no SQL; it calls this store. Posting is claimed atomically
(`running` -> `posting`) before the message is sent, so two bot processes, or a restart
racing a late finish, never post one result twice; a failed send releases the claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent.settings import Settings
from agent.storage.db import make_async_pool


@dataclass(frozen=True)
class BotRun:
    """One row of godot_rag.bot_runs."""

    run_id: str
    owner: str
    user_id: int
    guild_id: int | None
    channel_id: int
    thread_id: int | None
    progress_message_id: int | None
    source_label: str
    question: str
    state: str
    result_message_id: int | None
    created_at: datetime
    posted_at: datetime | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> BotRun:
        """Build from a dict row of godot_rag.bot_runs."""
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


_COLUMNS = ", ".join(BotRun.__dataclass_fields__)


class BotStore:
    """Async access to godot_rag.bot_runs over a small pool of its own."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, settings: Settings) -> BotStore:
        """Open a 1-2 connection pool on the project's database (migrations already applied)."""
        return cls(await make_async_pool(settings, min_size=1, max_size=2))

    async def close(self) -> None:
        """Close the pool."""
        await self._pool.close()

    async def _one(self, query: str, params: tuple[Any, ...]) -> dict[str, Any] | None:
        async with self._pool.connection() as conn:
            cur = await conn.execute(query, params)
            return await cur.fetchone()

    async def _all(self, query: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        async with self._pool.connection() as conn:
            cur = await conn.execute(query, params)
            return await cur.fetchall()

    async def record(
        self,
        *,
        run_id: str,
        owner: str,
        user_id: int,
        guild_id: int | None,
        channel_id: int,
        thread_id: int | None,
        progress_message_id: int | None,
        source_label: str,
        question: str = "",
    ) -> None:
        """Remember a run the bot is about to start (idempotent on run_id)."""
        await self._one(
            "INSERT INTO godot_rag.bot_runs (run_id, owner, user_id, guild_id, channel_id, thread_id,"
            " progress_message_id, source_label, question) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (run_id) DO UPDATE SET thread_id = EXCLUDED.thread_id,"
            " progress_message_id = EXCLUDED.progress_message_id, updated_at = now()"
            " RETURNING run_id",
            (
                run_id,
                owner,
                user_id,
                guild_id,
                channel_id,
                thread_id,
                progress_message_id,
                source_label,
                question,
            ),
        )

    async def get(self, run_id: str) -> BotRun | None:
        """The mapping of one run, or None."""
        row = await self._one(f"SELECT {_COLUMNS} FROM godot_rag.bot_runs WHERE run_id = %s", (run_id,))
        return BotRun.from_row(row) if row else None

    async def for_thread(self, thread_id: int) -> BotRun | None:
        """The newest run whose progress and result went to this Discord thread (for follow-ups), or None."""
        row = await self._one(
            f"SELECT {_COLUMNS} FROM godot_rag.bot_runs WHERE thread_id = %s ORDER BY created_at DESC LIMIT 1",
            (thread_id,),
        )
        return BotRun.from_row(row) if row else None

    async def unposted(self) -> list[BotRun]:
        """Runs whose result was never posted (oldest first): what a restart must finish."""
        rows = await self._all(
            f"SELECT {_COLUMNS} FROM godot_rag.bot_runs WHERE state IN ('running', 'posting')"
            " ORDER BY created_at, run_id",
            (),
        )
        return [BotRun.from_row(r) for r in rows]

    async def for_owner(self, owner: str, limit: int = 50) -> list[BotRun]:
        """One user's runs, newest first."""
        rows = await self._all(
            f"SELECT {_COLUMNS} FROM godot_rag.bot_runs WHERE owner = %s ORDER BY created_at DESC LIMIT %s",
            (owner, limit),
        )
        return [BotRun.from_row(r) for r in rows]

    async def claim_post(self, run_id: str) -> bool:
        """Take the right to post this run's result; False if it was posted or is being posted."""
        row = await self._one(
            "UPDATE godot_rag.bot_runs SET state = 'posting', updated_at = now()"
            " WHERE run_id = %s AND state = 'running' RETURNING run_id",
            (run_id,),
        )
        return row is not None

    async def release_post(self, run_id: str) -> None:
        """Give the claim back after a failed send, so a later attempt can post."""
        await self._one(
            "UPDATE godot_rag.bot_runs SET state = 'running', updated_at = now()"
            " WHERE run_id = %s AND state = 'posting' RETURNING run_id",
            (run_id,),
        )

    async def mark_posted(self, run_id: str, result_message_id: int | None) -> None:
        """Record that the result was sent, and as which message."""
        await self._one(
            "UPDATE godot_rag.bot_runs SET state = 'posted', posted_at = now(), result_message_id = %s,"
            " updated_at = now() WHERE run_id = %s RETURNING run_id",
            (result_message_id, run_id),
        )

    async def reopen(self, run_id: str) -> None:
        """A user resumed a run whose (partial) result was posted: its final result is owed again."""
        await self._one(
            "UPDATE godot_rag.bot_runs SET state = 'running', posted_at = NULL, updated_at = now()"
            " WHERE run_id = %s RETURNING run_id",
            (run_id,),
        )

    async def abandon(self, run_id: str) -> None:
        """Stop trying to finish a run (its source is gone, or its channel is)."""
        await self._one(
            "UPDATE godot_rag.bot_runs SET state = 'abandoned', updated_at = now()"
            " WHERE run_id = %s RETURNING run_id",
            (run_id,),
        )
