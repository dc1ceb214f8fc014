"""`godot-rag bot`: run the Discord bot until interrupted."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `godot-rag bot` to the CLI."""
    p = subparsers.add_parser(
        "bot",
        help="run the Discord bot (token from DISCORD_TOKEN)",
        description="Run the Discord bot. Needs DISCORD_TOKEN; guard rails come from GODOT_RAG_BOT_* "
        "variables.",
    )
    p.add_argument(
        "--no-sync", action="store_true", help="do not sync slash commands with Discord at start-up"
    )
    p.add_argument("--guild", type=int, default=None, help="also sync commands to this server id (instant)")
    p.add_argument("--no-resume", action="store_true", help="do not resume interrupted runs at start-up")
    p.set_defaults(func=run)


async def _main(args: argparse.Namespace) -> int:
    from agent.botstore import BotStore
    from agent.graph.service import AnalysisService
    from agent.settings import Settings
    from agent.storage import connection, migrate
    from bot.client import GodotRagBot
    from bot.config import BotConfig

    settings = Settings.from_env().with_(front_door="bot")  # the Discord chunk cap applies
    if not settings.discord_token:
        print(
            "DISCORD_TOKEN is not set; create a bot token in the Discord developer portal.", file=sys.stderr
        )
        return 2
    config = BotConfig.from_env()
    changes: dict[str, object] = {}
    if args.no_sync:
        changes["sync_commands"] = False
    if args.guild:
        changes["dev_guild_id"] = args.guild
    if args.no_resume:
        changes["resume_on_start"] = False
    config = config.with_(**changes) if changes else config
    with connection(settings) as conn:
        migrate(conn, settings)
    service = await AnalysisService.create(settings)
    store = await BotStore.open(settings)
    bot = GodotRagBot(service=service, store=store, config=config, settings=settings)
    try:
        async with bot:
            await bot.start(settings.discord_token)
    finally:
        await store.close()
        close = getattr(service, "close", None)
        if close is not None:
            await close()
    return 0


def run(args: argparse.Namespace) -> int:
    """Entry point of `godot-rag bot`."""
    import discord

    try:
        return asyncio.run(_main(args))
    except discord.LoginFailure:
        print("Discord rejected the token in DISCORD_TOKEN.", file=sys.stderr)
        return 2
