"""One progress message per run, edited as chunks finish, never faster than Discord allows.

While the answer is written (LLM configured), the same message shows it as it streams; the
validated answer then arrives with the result, and the draft is removed from the progress line.

Events arrive far faster than Discord accepts edits (a 300-chunk project finishes chunks every
few milliseconds). The reporter keeps only the latest state and edits at most once per
`interval` seconds: the first event edits at once, later ones within the window are coalesced
into one trailing edit, and `close` writes the final state.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.format import progress_text
from bot.safety import no_mentions

log = logging.getLogger(__name__)


class ProgressReporter:
    """Coalescing, rate-limited editor of one message; `on_event` is the service's callback."""

    def __init__(
        self,
        message: Any,
        *,
        interval: float = 1.5,
        label: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.message = message
        self.interval = interval
        self.label = label
        self._clock = clock
        self._state: dict[str, Any] = {"done": 0, "total": 0, "current": None, "stage": "queued"}
        self._last_edit = float("-inf")
        self._last_text: str | None = None
        self._pending: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.edits = 0

    async def on_event(self, event: Any) -> None:
        """Fold one ProgressEvent into the state, then edit now or schedule one trailing edit."""
        self._fold(event)
        wait = self._last_edit + self.interval - self._clock()
        if wait <= 0 and self._pending is None:
            await self._flush()
        elif self._pending is None:
            self._pending = asyncio.create_task(self._flush_later(max(wait, 0.0)))

    def _fold(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        st = self._state
        if getattr(event, "total", None):
            st["total"] = event.total
        if getattr(event, "done", None) is not None and kind in ("chunk_status", "run_finished", "files"):
            st["done"] = max(st["done"], event.done or 0)
        if kind == "run_started":
            st["stage"] = "started"
        elif kind == "files":
            st["stage"] = "parsed"
        elif kind == "chunk_status":
            st["stage"] = "judging"
            if getattr(event, "status", None) == "processing":
                st["current"] = (event.source_file, event.start_line, event.end_line)
        elif kind == "run_finished":
            st["stage"] = "finished"
            st["current"] = None
        elif kind == "answer_token":  # the answer as it is written, shown under the progress line
            st["stage"] = "answering"
            st["answer"] = st.get("answer", "") + (getattr(event, "message", None) or "")
        elif kind == "answer":  # validated: the result message carries it, so the draft goes
            st.pop("answer", None)
        if getattr(event, "message", None) and kind == "run_finished":
            st["note"] = event.message

    async def _flush_later(self, delay: float) -> None:
        try:
            await asyncio.sleep(delay)
            await self._flush()
        finally:
            self._pending = None

    async def _flush(self) -> None:
        async with self._lock:
            text = progress_text(self._state, self.label)
            if text == self._last_text:
                return
            # Stamp before the await: a slow edit must not let the next one start early.
            self._last_edit = self._clock()
            self._last_text = text
            try:
                await self.message.edit(content=text, allowed_mentions=no_mentions())
                self.edits += 1
            except discord.HTTPException:
                log.warning("progress edit failed (message deleted or rate limited); continuing")

    async def close(self, final_note: str | None = None) -> None:
        """Write the final state once, respecting the interval."""
        if final_note:
            self._state["note"] = final_note
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        wait = self._last_edit + self.interval - self._clock()
        if wait > 0:
            await asyncio.sleep(wait)
        await self._flush()


async def noop_event(_event: Any) -> None:
    """A callback that ignores events (runs nobody watches)."""


ProgressCallback = Callable[[Any], Awaitable[None]]
