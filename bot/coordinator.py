"""The bot's brain, free of discord.py plumbing: start, watch, resume and post analyses.

Command handlers call these methods with the interaction discord.py gives them; tests call
them with small recording fakes of the same shape. The order inside `analyze` is the point:
cheap checks (option values, attachment metadata, rate limits) answer at once; everything
slow (downloads, clones, threads, the database) happens only after the interaction is deferred.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from agent.botstore import BotRun, BotStore
from agent.graph.report import Report
from agent.graph.service import RunBusyError
from agent.runs import new_run_id, owner_of
from bot import format as fmt
from bot.config import BotConfig
from bot.errors import UserError
from bot.inputs import SourceSpec
from bot.progress import ProgressReporter
from bot.ratelimit import Guard
from bot.safety import no_mentions, safe_text
from bot.sources import build_intake

log = logging.getLogger(__name__)

ChannelResolver = Callable[[int], Awaitable[Any | None]]


class Coordinator:
    """Starts analyses for interactions, streams progress to a thread and posts each result once."""

    def __init__(
        self,
        *,
        service: Any,
        store: BotStore,
        config: BotConfig,
        settings: Any,
        resolve_channel: ChannelResolver,
    ) -> None:
        self.service = service
        self.store = store
        self.config = config
        self.settings = settings
        self.resolve_channel = resolve_channel
        self.guard = Guard(config.user_rate, config.guild_rate, config.max_concurrent_runs)
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self._resume_slots = asyncio.Semaphore(max(1, config.max_concurrent_runs))
        self.github_origin_for_tests: str | None = None
        """Tests only: clone this local repo instead of github.com, after the real URL validator ran."""
        self._secrets = (
            getattr(settings, "discord_token", None),
            getattr(settings, "llm_api_key", None),
            getattr(settings, "database_url", None),
        )

    # -- replying -------------------------------------------------------------------------------

    def clean(self, text: str) -> str:
        """User-facing text: secrets masked, mentions broken, within the content limit."""
        return fmt.clip(safe_text(text, self._secrets), fmt.limits.CONTENT)

    async def reply(
        self, interaction: Any, content: str | None = None, *, embed: discord.Embed | None = None
    ) -> None:
        """Answer ephemerally: through the response if unused, else through the followup."""
        kwargs: dict[str, Any] = {"ephemeral": True, "allowed_mentions": no_mentions()}
        if embed is not None:
            kwargs["embed"] = embed
        text = self.clean(content) if content else None
        if text is not None:
            kwargs["content"] = text
        if interaction.response.is_done():
            await interaction.followup.send(**kwargs)
        else:
            await interaction.response.send_message(**kwargs)

    async def defer(self, interaction: Any) -> None:
        """Acknowledge within Discord's 3 s window (ephemeral, 'thinking'); no-op if already answered."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)

    # -- /analyze and the context menu ----------------------------------------------------------

    async def analyze(
        self,
        interaction: Any,
        spec_factory: Callable[[], SourceSpec],
        *,
        question: str | None = None,
        origin_message: Any = None,
    ) -> asyncio.Task[None] | None:
        """Validate, defer, fetch the source, open a thread and start the run in the background.

        Returns the background task (None when refused), so callers and tests can await it.
        """
        user_id, guild_id = interaction.user.id, interaction.guild_id
        try:
            spec = spec_factory()
        except UserError as exc:
            await self.reply(interaction, str(exc))
            return None
        refusal = self.guard.admit(user_id, guild_id)
        if refusal is not None:
            await self.reply(interaction, refusal.message)
            return None
        run_id = new_run_id("dc-")  # the prefix tells runs started from Discord apart
        self.guard.start(run_id)  # reserve the slot before the first await
        try:
            await self.defer(interaction)
            intake = await build_intake(
                spec,
                question or "",
                self.settings,
                max_bytes=self._cap(spec),
                github_origin_for_tests=self.github_origin_for_tests,
            )
            target = await self._open_thread(interaction, spec, origin_message)
            progress = await target.send(
                fmt.progress_text({"stage": "queued"}, spec.label), allowed_mentions=no_mentions()
            )
            await self.store.record(
                run_id=run_id,
                owner=owner_of("discord", user_id),
                user_id=user_id,
                guild_id=guild_id,
                channel_id=interaction.channel_id,
                thread_id=getattr(target, "id", None),
                progress_message_id=getattr(progress, "id", None),
                source_label=spec.label,
                question=question or "",
            )
            where = getattr(target, "mention", None) or "this channel"
            await self.reply(interaction, f"Working on it in {where} (run `{run_id}`).")
        except UserError as exc:
            self.guard.finish(run_id)
            await self.reply(interaction, str(exc))
            return None
        except BaseException:
            self.guard.finish(run_id)
            raise
        return self._spawn(
            run_id,
            self._run_new(run_id, intake, target, progress, owner_of("discord", user_id), spec.label, question),
            target,
        )

    def _cap(self, spec: SourceSpec) -> int | None:
        if spec.kind != "file":
            return None
        is_zip = spec.label.lower().endswith(".zip")
        return self.config.max_zip_bytes if is_zip else self.config.max_attachment_bytes

    async def _open_thread(self, interaction: Any, spec: SourceSpec, origin_message: Any) -> Any:
        """A public thread for the run; the channel itself where threads are impossible."""
        name = fmt.thread_name(spec.label)
        channel = interaction.channel
        try:
            if (
                origin_message is not None
                and hasattr(origin_message, "create_thread")
                and hasattr(channel, "create_thread")
            ):
                return await origin_message.create_thread(name=name, auto_archive_duration=1440)
            if hasattr(channel, "create_thread"):
                return await channel.create_thread(
                    name=name, type=discord.ChannelType.public_thread, auto_archive_duration=1440
                )
        except discord.HTTPException as exc:
            log.warning("could not create a thread (%s); posting in the channel", exc.status)
        return channel

    def _spawn(self, run_id: str, coro: Awaitable[None], target: Any) -> asyncio.Task[None]:
        task = asyncio.ensure_future(self._guarded(run_id, coro, target))
        self.tasks[run_id] = task

        def done(t: asyncio.Task[None]) -> None:
            self.guard.finish(run_id)
            if self.tasks.get(run_id) is t:
                del self.tasks[run_id]
            if not t.cancelled() and t.exception() is not None:
                log.error("run %s crashed", run_id, exc_info=t.exception())

        task.add_done_callback(done)
        return task

    async def _guarded(self, run_id: str, coro: Awaitable[None], target: Any) -> None:
        """Run one background analysis; a crash is logged in full and told to the user briefly."""
        try:
            await coro
        except asyncio.CancelledError:
            raise  # shutting down: the mapping row stays 'running', the next start resumes it
        except RunBusyError:
            log.warning("run %s is being processed by another process; it will post the result", run_id)
        except Exception:
            log.exception("run %s failed", run_id)
            await self.store.abandon(run_id)  # no retry loop at every start; /resume reopens it
            await target.send(
                self.clean(f"Run `{run_id}` stopped on an internal error. Try `/resume {run_id}` later."),
                allowed_mentions=no_mentions(),
            )

    async def _run_new(
        self,
        run_id: str,
        intake: Any,
        target: Any,
        progress: Any,
        owner: str,
        label: str,
        question: str | None,
    ) -> None:
        reporter = ProgressReporter(progress, interval=self.config.progress_interval, label=label)
        report = await self.service.analyze_report(intake, run_id=run_id, owner=owner, on_event=reporter.on_event)
        await reporter.close()
        await self.post_result(run_id, report, target, question=question)

    # -- posting ---------------------------------------------------------------------------------

    async def post_result(
        self, run_id: str, report: Report, target: Any, *, question: str | None
    ) -> bool:
        """Post the result embed (and report files) once; False if another attempt already posted it."""
        if not await self.store.claim_post(run_id):
            log.info("run %s: result already posted", run_id)
            return False
        msg = fmt.result_message(report, top_items=self.config.top_items, question=question)
        if report.migration:
            downloads = await self.service.migration_downloads(run_id)
            patch = fmt.patch_file(run_id, downloads[0]) if downloads is not None else None
            if patch is not None and len(msg.files) < 10:
                msg.files.append(patch)
        try:
            sent = await target.send(**msg.kwargs())
        except BaseException:
            await self.store.release_post(run_id)
            raise
        await self.store.mark_posted(run_id, getattr(sent, "id", None))
        return True

    # -- restart safety --------------------------------------------------------------------------

    async def resume_owned(self) -> list[asyncio.Task[None]]:
        """At start-up: finish every run this bot started but never posted, where it was asked."""
        started: list[asyncio.Task[None]] = []
        for row in await self.store.unposted():
            if row.run_id in self.tasks:
                continue
            if row.state == "posting":  # the process died between claim and send
                await self.store.release_post(row.run_id)
            target = await self._target_for(row)
            if target is None:
                log.warning("run %s: its channel is gone; not resuming", row.run_id)
                await self.store.abandon(row.run_id)
                continue
            self.guard.start(row.run_id)
            started.append(self._spawn(row.run_id, self._finish_owned(row, target), target))
        return started

    async def _target_for(self, row: BotRun) -> Any | None:
        for channel_id in (row.thread_id, row.channel_id):
            if channel_id is None:
                continue
            try:
                channel = await self.resolve_channel(channel_id)
            except (discord.NotFound, discord.Forbidden):
                channel = None
            if channel is not None:
                return channel
        return None

    async def _progress_message(self, row: BotRun, target: Any) -> Any:
        if row.progress_message_id is not None and hasattr(target, "fetch_message"):
            try:
                return await target.fetch_message(row.progress_message_id)
            except discord.HTTPException:
                pass  # deleted: start a fresh progress message below
        return await target.send(
            fmt.progress_text({"stage": "queued"}, row.source_label), allowed_mentions=no_mentions()
        )

    async def _finish_owned(self, row: BotRun, target: Any) -> None:
        """Resume one owned run from its checkpoint (or just post it if it had finished), then post."""
        async with self._resume_slots:  # a restart with many runs owed never exceeds the run cap
            await self._finish_owned_now(row, target)

    async def _finish_owned_now(self, row: BotRun, target: Any) -> None:
        report = await self._report_or_none(row.run_id)
        if report is None:
            await self.store.abandon(row.run_id)
            await target.send(
                self.clean(
                    f"Run `{row.run_id}` was interrupted before it started; please run `/analyze` again."
                ),
                allowed_mentions=no_mentions(),
            )
            return
        if report.status != "completed":
            progress = await self._progress_message(row, target)
            reporter = ProgressReporter(
                progress, interval=self.config.progress_interval, label=row.source_label
            )
            report = await self.service.resume_report(row.run_id, on_event=reporter.on_event)
            await reporter.close()
        await self.post_result(row.run_id, report, target, question=row.question or None)

    async def _report_or_none(self, run_id: str) -> Report | None:
        try:
            return await self.service.stored_report(run_id)
        except (KeyError, LookupError):
            return None

    # -- /status, /resume, /runs -------------------------------------------------------------------

    async def _owned_run(self, interaction: Any, run_id: str) -> tuple[BotRun | None, dict[str, Any]]:
        """The run if it belongs to this user; the same 'not found' otherwise, so ids leak nothing."""
        run_id = run_id.strip()
        owner = owner_of("discord", interaction.user.id)
        row = await self.store.get(run_id)
        mine = row is not None and row.owner == owner
        if not mine and row is None:
            runs = await self.service.list_runs(owner=owner)
            mine = any(str(r.get("run_id")) == run_id for r in runs)
        report = await self._report_or_none(run_id) if mine else None
        if not mine or report is None:
            raise UserError(f"No run `{run_id[:64]}` of yours was found. `/runs` lists your runs.")
        return row, report

    async def status(self, interaction: Any, run_id: str) -> None:
        """/status: where one of the user's runs stands."""
        await self.defer(interaction)
        try:
            _row, report = await self._owned_run(interaction, run_id)
        except UserError as exc:
            await self.reply(interaction, str(exc))
            return
        await self.reply(
            interaction, embed=fmt.status_embed(report, running_here=run_id.strip() in self.tasks)
        )

    async def runs(self, interaction: Any) -> None:
        """/runs: the user's own runs."""
        await self.defer(interaction)
        runs = await self.service.list_runs(owner=owner_of("discord", interaction.user.id))
        await self.reply(interaction, embed=fmt.runs_embed(list(runs)))

    async def resume(self, interaction: Any, run_id: str) -> asyncio.Task[None] | None:
        """Continue one of the user's interrupted runs; the result goes where the run was asked."""
        run_id = run_id.strip()
        if run_id in self.tasks:
            await self.reply(interaction, f"Run `{run_id[:64]}` is already running.")
            return None
        refusal = self.guard.admit(interaction.user.id, interaction.guild_id)
        if refusal is not None:
            await self.reply(interaction, refusal.message)
            return None
        self.guard.start(run_id)
        try:
            await self.defer(interaction)
            row, report = await self._owned_run(interaction, run_id)
            if report.status in ("completed", "running"):
                state = (
                    "already complete" if report.status == "completed" else "running in another process"
                )
                await self.reply(interaction, f"Run `{run_id}` is {state}.", embed=fmt.status_embed(report))
                self.guard.finish(run_id)
                return None
            target = (await self._target_for(row)) if row else None
            target = target or interaction.channel
            progress = await target.send(
                fmt.progress_text({"stage": "queued"}, row.source_label if row else run_id),
                allowed_mentions=no_mentions(),
            )
            await self.store.record(
                run_id=run_id,
                owner=owner_of("discord", interaction.user.id),
                user_id=interaction.user.id,
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                thread_id=getattr(target, "id", None),
                progress_message_id=getattr(progress, "id", None),
                source_label=row.source_label if row else run_id,
                question=row.question if row else "",
            )
            await self.store.reopen(run_id)
            await self.reply(
                interaction, f"Resuming run `{run_id}` in {getattr(target, 'mention', 'this channel')}."
            )
        except UserError as exc:
            self.guard.finish(run_id)
            await self.reply(interaction, str(exc))
            return None
        except BaseException:
            self.guard.finish(run_id)
            raise
        fresh = await self.store.get(run_id)
        assert fresh is not None
        return self._spawn(run_id, self._resume_into(fresh, target, progress), target)

    async def _resume_into(self, row: BotRun, target: Any, progress: Any) -> None:
        reporter = ProgressReporter(progress, interval=self.config.progress_interval, label=row.source_label)
        report = await self.service.resume_report(row.run_id, on_event=reporter.on_event)
        await reporter.close()
        await self.post_result(row.run_id, report, target, question=row.question or None)

    async def shutdown(self) -> None:
        """Cancel runs in flight; their checkpoints and mapping rows let the next start resume them."""
        for task in list(self.tasks.values()):
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
