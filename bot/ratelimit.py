"""In-memory guard rails: sliding-window rate limits per user and per server, and a run cap.

Kept in memory on purpose: a restart forgetting who asked recently costs nothing, and the
runs themselves (which must survive) live in Postgres.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    """Why a request was refused, phrased for the user."""

    message: str
    retry_after: float = 0.0


class SlidingWindow:
    """At most `count` hits per `seconds` for each key."""

    def __init__(self, count: int, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.count, self.seconds, self._clock = count, seconds, clock
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def retry_after(self, key: str) -> float:
        """Seconds until `key` may hit again (0 when it may now)."""
        now = self._clock()
        hits = self._hits[key]
        while hits and now - hits[0] >= self.seconds:
            hits.popleft()
        if len(hits) < self.count:
            return 0.0
        return self.seconds - (now - hits[0])

    def hit(self, key: str) -> None:
        """Count one request for `key` now."""
        self._hits[key].append(self._clock())


class Guard:
    """Decides whether a new analysis may start, and counts the runs in flight."""

    def __init__(
        self,
        user_rate: tuple[int, float],
        guild_rate: tuple[int, float],
        max_concurrent: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.users = SlidingWindow(*user_rate, clock=clock)
        self.guilds = SlidingWindow(*guild_rate, clock=clock)
        self.max_concurrent = max_concurrent
        self.running: set[str] = set()

    def check(self, user_id: int, guild_id: int | None) -> Refusal | None:
        """A refusal if the user, the server or the bot is at its limit; None to go ahead."""
        wait = self.users.retry_after(str(user_id))
        if wait > 0:
            return Refusal(f"You are starting analyses too fast. Try again in {wait:.0f} s.", wait)
        if guild_id is not None:
            wait = self.guilds.retry_after(str(guild_id))
            if wait > 0:
                return Refusal(f"This server is starting analyses too fast. Try again in {wait:.0f} s.", wait)
        if len(self.running) >= self.max_concurrent:
            return Refusal(f"The bot is busy with {len(self.running)} analyses. Try again in a minute.", 60.0)
        return None

    def admit(self, user_id: int, guild_id: int | None) -> Refusal | None:
        """`check`, and count the request against the windows if it passes."""
        refusal = self.check(user_id, guild_id)
        if refusal is None:
            self.users.hit(str(user_id))
            if guild_id is not None:
                self.guilds.hit(str(guild_id))
        return refusal

    def start(self, run_id: str) -> None:
        """Count a run as in flight."""
        self.running.add(run_id)

    def finish(self, run_id: str) -> None:
        """A run is no longer in flight."""
        self.running.discard(run_id)
