"""The MCP server's process-wide handles: settings, the one AnalysisService, the transport and the caller.

The service (pools, compiled graph, embedding model) is opened on the first tool call, never at import or
start-up, so `tools/list` answers at once; every later call shares it. Tests hand in their own service.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.mcp_server.access import LOCAL, Caller, http_caller
from agent.settings import Settings

DETAIL_CHUNKS = 20
"""Chunks (and migration items) a tool result carries in full; the rest is in the run's resource."""


@dataclass
class McpRuntime:
    """What every tool reads: settings, the service, and who may do what on this transport."""

    settings: Settings
    transport: Literal["stdio", "http"] = "stdio"
    access: Any = None
    """The chat's `AccessConfig` (HTTP only)."""
    detail_chunks: int = DETAIL_CHUNKS
    service: Any = None
    """An `AnalysisService`; opened on first use unless one is handed in."""
    _owns_service: bool = field(default=False, init=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)

    @property
    def local_paths(self) -> bool:
        """Local folders and files are read only over stdio, where the caller is the machine's own user."""
        return self.transport == "stdio"

    async def get_service(self) -> Any:
        """The one AnalysisService of this process, opened on first use."""
        async with self._lock:
            if self.service is None:
                from agent.graph.service import AnalysisService

                self.service = await AnalysisService.create(self.settings)
                self._owns_service = True
            return self.service

    def caller(self, headers: Any) -> Caller:
        """The caller of a request: the local user over stdio, the chat user its token proves over HTTP."""
        if self.transport == "stdio":
            return LOCAL
        found = http_caller(self.access, headers or {})
        if found is None:  # the gate refuses these before the session; this is the second lock
            raise PermissionError("this request proves no user")
        return found

    def secrets(self) -> tuple[str | None, ...]:
        """Exact values no message may contain."""
        return (self.settings.database_url, self.settings.llm_api_key, self.settings.discord_token)

    async def close(self) -> None:
        """Close the service if this runtime opened it."""
        if self.service is not None and self._owns_service:
            await self.service.close()
            self.service = None
