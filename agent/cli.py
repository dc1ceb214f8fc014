"""`godot-rag` console script. Each feature registers its own subcommands (lazy imports)."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

# Modules exposing `register(subparsers)`; each adds its commands with `set_defaults(func=...)`.
COMMAND_MODULES = (
    "agent.ingest.cli",      # ingest, mapping list/approve/reject
    "agent.graph.cli",       # analyze, resume, runs, show, export
    "agent.crawl.cli",       # crawl
    "ui.cli",                # ui
    "bot.cli",               # bot
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="godot-rag",
        description="Is this Godot 3 or Godot 4 code, and what must change? Evidence from the official docs.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # feature not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
