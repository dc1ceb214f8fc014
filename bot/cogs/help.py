"""/help: what the bot does and how to ask it."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import report_error
from bot.format import help_embed


class HelpCog(commands.Cog):
    """Explain the bot."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.coordinator = bot.coordinator

    @app_commands.command(name="help")
    async def help(self, interaction: discord.Interaction) -> None:
        """How to check whether your code is Godot 3 or Godot 4, and what to change."""
        await self.coordinator.reply(interaction, embed=help_embed())

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Errors of this cog's commands: refusals briefly, bugs logged and said briefly."""
        await report_error(self.coordinator, interaction, error)


async def setup(bot: Any) -> None:
    """Extension entry point: add the cog."""
    await bot.add_cog(HelpCog(bot))
