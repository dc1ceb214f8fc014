"""Bot fixtures: a real bot (cogs loaded, never connected) over the real service and a fresh KB database."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest_asyncio

from agent.botstore import BotStore
from agent.graph.service import AnalysisService
from bot.client import GodotRagBot
from bot.config import BotConfig

TEST_CONFIG = BotConfig(
    sync_commands=False,
    resume_on_start=False,
    progress_interval=0.3,
    user_rate=(100, 60),
    guild_rate=(100, 60),
    max_concurrent_runs=4,
)


@dataclass
class BotHandle:
    bot: GodotRagBot
    service: AnalysisService
    store: BotStore

    closed: bool = False

    async def close(self) -> None:
        """Stop like a dying process would: runs cancelled, pools closed (idempotent)."""
        if self.closed:
            return
        self.closed = True
        await self.bot.coordinator.shutdown()
        await self.store.close()
        await self.service.close()

    def cog(self, name: str) -> Any:
        return self.bot.get_cog(name)

    async def wait_runs(self) -> None:
        import asyncio

        tasks = list(self.bot.coordinator.tasks.values())
        await asyncio.gather(*tasks)


async def wait_done(service: AnalysisService, run_id: str, at_least: int, timeout: float = 60.0) -> dict:
    """Poll the score DB until a run has `at_least` done chunks (the run may not exist yet)."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            progress = await service.store.progress(run_id)
        except KeyError:
            progress = {"done": 0}
        if progress["done"] >= at_least:
            return progress
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run_id} did not reach {at_least} done chunks")


@pytest_asyncio.fixture(loop_scope="session")
async def make_bot(embedder):
    """Factory of bots over the real service (call it with settings and a config); closed at teardown."""
    made: list[BotHandle] = []

    async def make(settings, config: BotConfig = TEST_CONFIG) -> BotHandle:
        service = await AnalysisService.create(settings, embedder=embedder)
        store = await BotStore.open(settings)
        bot = GodotRagBot(service=service, store=store, config=config, settings=settings)
        await bot.setup_hook()  # loads the cogs; no login, no gateway
        handle = BotHandle(bot, service, store)
        made.append(handle)
        return handle

    yield make
    for h in made:
        await h.close()
