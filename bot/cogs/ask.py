"""Follow-ups in an analysis thread: `/ask question:` or a message that mentions the bot.

Both are answered from the run stored for that thread (never by re-running it), with the same
per-user and per-server rate limits as /analyze, nobody pinged and user text neutralized. A
message needs no privileged intent: Discord delivers the content of messages that mention the bot.
The reply is one message, edited at most every `progress_interval` seconds while it is written.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import limits
from bot.client import report_error
from bot.format import fit
from bot.ratelimit import SlidingWindow
from bot.safety import no_mentions, safe_text

log = logging.getLogger(__name__)

NOT_A_THREAD = "Ask inside the thread of an analysis (the bot opens one for each /analyze)."
THINKING = "Looking at the stored analysis…"
_MENTION = re.compile(r"<@!?\d+>")


class EditStream:
    """One message, edited with the text so far no more often than every `interval` seconds."""

    def __init__(self, message: Any, interval: float, clean: Callable[[str], str],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.message, self.interval, self.clean, self.clock = message, interval, clean, clock
        self.text = ""
        self._last = clock()
        self._shown = ""
        self._pending: asyncio.Task[None] | None = None

    async def push(self, piece: str) -> None:
        """Add streamed text; edit now if the interval has passed, else once at its end."""
        self.text += piece
        wait = self._last + self.interval - self.clock()
        if wait <= 0 and self._pending is None:
            await self._edit(self.text)
        elif self._pending is None:
            self._pending = asyncio.create_task(self._later(wait))

    async def _later(self, wait: float) -> None:
        await asyncio.sleep(wait)
        self._pending = None
        await self._edit(self.text)

    async def _edit(self, text: str) -> None:
        shown = fit(self.clean(text))
        if shown and shown != self._shown:
            self._last = self.clock()
            self._shown = shown
            await self.message.edit(content=shown, allowed_mentions=no_mentions())

    async def close(self, final: str) -> None:
        """The final text (the validated answer), after waiting out the interval."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        wait = self._last + self.interval - self.clock()
        if wait > 0:
            await asyncio.sleep(wait)
        await self._edit(final)


class AskCog(commands.Cog):
    """Ask about the analysis of this thread."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.coordinator = bot.coordinator
        config = self.coordinator.config
        self.users = SlidingWindow(*config.user_rate)
        self.guilds = SlidingWindow(*config.guild_rate)
        settings = self.coordinator.settings
        self._secrets = tuple(getattr(settings, k, None) for k in ("discord_token", "llm_api_key", "database_url"))

    def clean(self, text: str) -> str:
        """Answer text for Discord: secrets masked, mentions broken (fitting happens at send time)."""
        return safe_text(text, self._secrets)

    def _refusal(self, user_id: int, guild_id: int | None) -> str | None:
        """Same windows as /analyze (a separate count: a follow-up does not use an analysis slot)."""
        wait = self.users.retry_after(str(user_id))
        if wait > 0:
            return f"You are asking too fast. Try again in {wait:.0f} s."
        if guild_id is not None and self.guilds.retry_after(str(guild_id)) > 0:
            return f"This server is asking too fast. Try again in {self.guilds.retry_after(str(guild_id)):.0f} s."
        self.users.hit(str(user_id))
        if guild_id is not None:
            self.guilds.hit(str(guild_id))
        return None

    async def _answer(self, thread_id: int, question: str, stream: EditStream | None) -> str:
        """The follow-up answer's Markdown, from the thread's stored run and its conversation memory."""
        from agent.answer.memory import ConversationMemory
        from agent.followup import answer_for_run

        service = self.coordinator.service
        run = await self.coordinator.store.for_thread(thread_id)
        memory = ConversationMemory(service.url)
        key = f"discord:{thread_id}"
        history = await memory.turns(key)
        answer = await answer_for_run(service, run.run_id, question, history=history,
                                      on_token=stream.push if stream is not None else None)
        await memory.add(key, question, answer.text)
        return answer.text

    @app_commands.command(name="ask")
    @app_commands.describe(question="e.g. 'why is player.gd flagged?', 'explain chunk 2', 'show me the Godot 4 version'")
    async def ask(self, interaction: discord.Interaction, question: app_commands.Range[str, 1, 600]) -> None:
        """Ask about the analysis in this thread: why something is flagged, a chunk explained, the Godot 4 code."""
        thread_id = interaction.channel_id
        if thread_id is None or await self.coordinator.store.for_thread(thread_id) is None:
            await self.coordinator.reply(interaction, NOT_A_THREAD)
            return
        refusal = self._refusal(interaction.user.id, interaction.guild_id)
        if refusal is not None:
            await self.coordinator.reply(interaction, refusal)
            return
        await interaction.response.defer(thinking=True)  # visible in the thread: the answer is for everyone there
        text = await self._answer(thread_id, question, None)
        await interaction.followup.send(content=fit(self.clean(text)), allowed_mentions=no_mentions())

    @commands.Cog.listener()
    async def on_message(self, message: Any) -> None:
        """A message in an analysis thread that mentions the bot is a follow-up question."""
        me = self.bot.user
        if message.author.bot or me is None or not any(u.id == me.id for u in message.mentions):
            return
        thread_id = message.channel.id
        if await self.coordinator.store.for_thread(thread_id) is None:
            return  # not an analysis thread: stay quiet
        question = " ".join(_MENTION.sub(" ", message.content or "").split())
        guild_id = message.guild.id if message.guild is not None else None
        refusal = self._refusal(message.author.id, guild_id)
        if refusal is not None:
            await message.channel.send(refusal, allowed_mentions=no_mentions())
            return
        if not question:
            await message.channel.send("Ask me about this analysis, e.g. 'explain chunk 2'.",
                                       allowed_mentions=no_mentions())
            return
        reply = await message.channel.send(THINKING, allowed_mentions=no_mentions())
        stream = EditStream(reply, self.coordinator.config.progress_interval, self.clean)
        try:
            text = await self._answer(thread_id, question, stream)
        except Exception:  # a listener has no interaction to report through: log, say it briefly
            log.exception("follow-up in thread %s failed", thread_id)
            text = "Something went wrong on our side. The error was logged; please try again later."
        await stream.close(text)

    async def cog_app_command_error(self, interaction: discord.Interaction,
                                    error: app_commands.AppCommandError) -> None:
        """Errors of /ask: refusals briefly, bugs logged and said briefly."""
        await report_error(self.coordinator, interaction, error)


async def setup(bot: Any) -> None:
    """Extension entry point: add the cog."""
    await bot.add_cog(AskCog(bot))
