"""A token bucket per host in Postgres, shared by every worker process.

Why Postgres: the workers of a batch share nothing else, and one UPDATE that refills and takes
a token under the row lock is all a bucket needs. `rate` tokens a second refill it up to `burst`;
a worker that finds it empty sleeps until the next token is due.
"""

from __future__ import annotations

import asyncio
from typing import Any

_TAKE = (
    "UPDATE godot_rag.rate_buckets SET"
    " tokens = least(%(burst)s, tokens + extract(epoch FROM clock_timestamp() - updated_at) * %(rate)s) - 1,"
    " updated_at = clock_timestamp()"
    " WHERE host = %(host)s"
    " AND least(%(burst)s, tokens + extract(epoch FROM clock_timestamp() - updated_at) * %(rate)s) >= 1"
    " RETURNING tokens"
)
_LEVEL = (
    "SELECT least(%(burst)s, tokens + extract(epoch FROM clock_timestamp() - updated_at) * %(rate)s) AS tokens"
    " FROM godot_rag.rate_buckets WHERE host = %(host)s"
)


async def take(pool: Any, host: str, *, rate: float, burst: int) -> float:
    """Wait for one token of `host`'s bucket; returns the seconds waited."""
    params = {"host": host, "rate": float(rate), "burst": float(max(1, burst))}
    waited = 0.0
    async with pool.connection() as conn:
        await conn.execute(
            "INSERT INTO godot_rag.rate_buckets (host, tokens) VALUES (%(host)s, %(burst)s)"
            " ON CONFLICT (host) DO NOTHING",
            params,
        )
    while True:
        async with pool.connection() as conn:
            if await (await conn.execute(_TAKE, params)).fetchone():
                return waited
            row = await (await conn.execute(_LEVEL, params)).fetchone()
        level = float(row["tokens"]) if row else 0.0
        pause = min(max((1.0 - level) / max(rate, 1e-6), 0.05), 30.0)
        await asyncio.sleep(pause)
        waited += pause
