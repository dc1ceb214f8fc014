"""The Discord client: a `commands.Bot` that is handed the analysis service and the bot store.

It owns no logic of its own: cogs (one per feature, in `bot/cogs/`) turn interactions into
calls on the `Coordinator`, and start-up resumes the runs a previous process left unfinished.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from agent.botstore import BotStore
from bot.config import BotConfig
from bot.coordinator import Coordinator
from bot.errors import UserError
from bot.safety import no_mentions

log = logging.getLogger(__name__)

COGS = ("bot.cogs.analyze", "bot.cogs.runs", "bot.cogs.help", "bot.cogs.ask")


def minimal_intents() -> discord.Intents:
    """guilds and guild_messages, neither privileged: slash commands and context menus need no message
    content, and Discord includes the content of a message that mentions the bot (thread follow-ups)."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    return intents


class GodotRagBot(commands.Bot):
    """godot-rag's Discord front door."""

    def __init__(self, *, service: Any, store: BotStore, config: BotConfig, settings: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=minimal_intents(),
            allowed_mentions=no_mentions(),
            help_command=None,
        )
        self.settings = settings
        self.config = config
        self.coordinator = Coordinator(
            service=service,
            store=store,
            config=config,
            settings=settings,
            resolve_channel=self.resolve_channel,
        )
        self.tree.on_error = self.on_app_command_error  # type: ignore[method-assign]
        self._resume_task: asyncio.Task[Any] | None = None

    async def setup_hook(self) -> None:
        """Load cogs, sync commands if configured, and schedule the start-up resume."""
        for name in COGS:
            await self.load_extension(name)
        if self.config.sync_commands:
            if self.config.dev_guild_id:
                guild = discord.Object(id=self.config.dev_guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
            await self.tree.sync()
        if self.config.resume_on_start:
            self._resume_task = asyncio.create_task(self._resume_when_ready())

    async def _resume_when_ready(self) -> None:
        await self.wait_until_ready()
        tasks = await self.resume_owned_runs()
        if tasks:
            log.warning("resumed %d interrupted run(s)", len(tasks))

    async def resume_owned_runs(self) -> list[asyncio.Task[None]]:
        """Resume every run this bot started but never posted; returns their background tasks."""
        return await self.coordinator.resume_owned()

    async def resolve_channel(self, channel_id: int) -> Any | None:
        """A channel or thread by id, from the cache or else from Discord."""
        return self.get_channel(channel_id) or await self.fetch_channel(channel_id)

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """The global handler: expected refusals briefly, anything else logged in full and said briefly."""
        await report_error(self.coordinator, interaction, error)

    async def close(self) -> None:
        """Stop runs in flight (they resume at next start), then disconnect."""
        if self._resume_task is not None:
            self._resume_task.cancel()
        await self.coordinator.shutdown()
        await super().close()


async def report_error(coordinator: Coordinator, interaction: Any, error: BaseException) -> None:
    """Tell the user what went wrong in one short ephemeral line; never a stack trace.

    discord.py calls the command's, the cog's and the tree's handlers in turn for one error;
    the first one to run marks the error, so the user is answered exactly once.
    """
    if getattr(error, "_godot_rag_reported", False):
        return
    error._godot_rag_reported = True  # type: ignore[attr-defined]
    original = getattr(error, "original", error)
    if isinstance(original, UserError):
        message = str(original)
    elif isinstance(error, app_commands.CommandOnCooldown):
        message = f"Slow down: try again in {error.retry_after:.0f} s."
    elif isinstance(error, app_commands.CheckFailure):
        message = "You cannot use this command here."
    else:
        log.exception("command failed", exc_info=original)
        message = "Something went wrong on our side. The error was logged; please try again later."
    try:
        await coordinator.reply(interaction, message)
    except discord.HTTPException:
        log.warning("could not deliver an error message to the user")
