"""/status, /resume and /runs: a user's own runs, and only theirs."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import report_error


class RunsCog(commands.Cog):
    """Look at and continue your analyses."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.coordinator = bot.coordinator

    @app_commands.command(name="status")
    @app_commands.describe(run_id="The run id shown when the analysis started (see /runs)")
    async def status(self, interaction: discord.Interaction, run_id: str) -> None:
        """Where one of your analyses stands: chunks done, and the verdict once it is finished."""
        await self.coordinator.status(interaction, run_id)

    @app_commands.command(name="resume")
    @app_commands.describe(run_id="The run id of an interrupted analysis of yours (see /runs)")
    async def resume(self, interaction: discord.Interaction, run_id: str) -> None:
        """Continue an interrupted analysis where it stopped; finished chunks are not redone."""
        await self.coordinator.resume(interaction, run_id)

    @app_commands.command(name="runs")
    async def runs(self, interaction: discord.Interaction) -> None:
        """List your own recent analyses with their status and verdict."""
        await self.coordinator.runs(interaction)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Errors of this cog's commands: refusals briefly, bugs logged and said briefly."""
        await report_error(self.coordinator, interaction, error)


async def setup(bot: Any) -> None:
    """Extension entry point: add the cog."""
    await bot.add_cog(RunsCog(bot))
