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


class CodeModal(discord.ui.Modal, title="Analyze code with godot-rag"):
    """A paste box: slash-command options are one line, but GDScript needs its newlines and tabs."""

    code: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Code (GDScript, .tscn or project.godot text)",
        style=discord.TextStyle.paragraph,
        max_length=4000,
    )
    question: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Question (optional)", required=False, max_length=300
    )

    def __init__(self, coordinator: Any, question: str | None = None) -> None:
        super().__init__(timeout=900)
        self.coordinator = coordinator
        if question:
            self.question.default = question[:300]

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """The paste box was sent: analyze its text like the `code` option."""
        text, question = self.code.value, self.question.value or None
        await self.coordinator.analyze(
            interaction,
            lambda: spec_from_options(
                code=text,
                file=None,
                repo=None,
                member=interaction.user,
                channel_id=interaction.channel_id,
                config=self.coordinator.config,
            ),
            question=question,
        )

    async def on_error(self, interaction: discord.Interaction, error: Exception) -> None:
        """Same brief answer as the cogs give."""
        await report_error(self.coordinator, interaction, error)


class AnalyzeCog(commands.Cog):
    """Start analyses from a slash command or from an existing message."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.coordinator = bot.coordinator
        self.context_menu = app_commands.ContextMenu(
            name="Analyze with godot-rag", callback=self.analyze_message
        )
        self.context_menu.error(self._context_menu_error)

    async def cog_load(self) -> None:
        """Context menus cannot live in a cog's class body: register it with the tree."""
        self.bot.tree.add_command(self.context_menu)

    async def cog_unload(self) -> None:
        """Remove the context menu again."""
        self.bot.tree.remove_command(self.context_menu.name, type=self.context_menu.type)

    @app_commands.command(name="analyze")
    @app_commands.describe(
        code="A one-line snippet; leave every option empty to get a paste box for multi-line code",
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
        if not (code or file or repo):
            # No source given: open a paste box, which keeps newlines (options do not). This is the response.
            await interaction.response.send_modal(CodeModal(self.coordinator, question))
            return
        await self.coordinator.analyze(
            interaction,
            lambda: spec_from_options(
                code=code,
                file=file,
                repo=repo,
                member=interaction.user,
                channel_id=interaction.channel_id,
                config=self.coordinator.config,
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

    async def _context_menu_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(self.coordinator, interaction, error)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """Errors of this cog's commands: refusals briefly, bugs logged and said briefly."""
        await report_error(self.coordinator, interaction, error)


async def setup(bot: Any) -> None:
    """Extension entry point: add the cog."""
    await bot.add_cog(AnalyzeCog(bot))
