"""/analyze and the "Analyze with godot-rag" message context menu."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import report_error
from bot.inputs import spec_from_message, spec_from_options

log = logging.getLogger(__name__)


class AnalyzeCog(commands.Cog):
    """Start analyses from a slash command or from an existing message."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.coordinator = bot.coordinator
        self.context_menu = app_commands.ContextMenu(name="Analyze with godot-rag", callback=self.analyze_message)
        self.context_menu.error(self._context_menu_error)

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.context_menu)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.context_menu.name, type=self.context_menu.type)

    @app_commands.command(name="analyze")
    @app_commands.describe(
        code="GDScript to check (paste it; ``` fences are fine)",
        file="A .gd, .tscn, .tres, project.godot or a .zip of your project",
        repo="A GitHub link, e.g. https://github.com/owner/repo",
        question="Optional: what you want to know, e.g. 'how do I port this to Godot 4?'",
    )
    async def analyze(
        self,
        interaction: discord.Interaction,
        code: str | None = None,
        file: discord.Attachment | None = None,
        repo: str | None = None,
        question: str | None = None,
    ) -> None:
        """Is this Godot 3 or Godot 4 code, and what must change? Give a snippet, a file or a GitHub repo."""
        await self.coordinator.analyze(
            interaction,
            lambda: spec_from_options(
                code=code, file=file, repo=repo, member=interaction.user,
                channel_id=interaction.channel_id, config=self.coordinator.config,
            ),
            question=question,
        )

    async def analyze_message(self, interaction: discord.Interaction, message: discord.Message) -> None:
        """Analyze the code block or attachment of this message."""
        await self.coordinator.analyze(
            interaction,
            lambda: spec_from_message(message, self.coordinator.config),
            origin_message=message,
        )

    async def _context_menu_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        await report_error(self.coordinator, interaction, error)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Errors of this cog's commands: refusals briefly, bugs logged and said briefly."""
        await report_error(self.coordinator, interaction, error)


async def setup(bot: Any) -> None:
    await bot.add_cog(AnalyzeCog(bot))
