"""Process-wide handles for the chat: settings, the analysis service, the follow-up retriever.

Created lazily on first use (never at import), once per process, behind a lock.
"""

from __future__ import annotations

import asyncio
from functools import lru_cache
from typing import Any

from agent.settings import Settings

_lock = asyncio.Lock()
_service: Any = None


@lru_cache(maxsize=1)
def settings() -> Settings:
    """The environment's settings, read once at first use (the web chat's chunk cap applies)."""
    return Settings.from_env().with_(front_door="ui")


async def service() -> Any:
    """The one AnalysisService of this process (async pool, compiled graph, embedder)."""
    global _service
    async with _lock:
        if _service is None:
            from agent.graph.service import AnalysisService

            _service = await AnalysisService.create(settings())
        return _service


def owner_of(identifier: str | None) -> str:
    """Runs are owned by `chainlit:<user>`, so one user never sees another's runs."""
    return f"chainlit:{identifier or 'anonymous'}"
