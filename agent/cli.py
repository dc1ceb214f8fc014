"""`godot-rag` console script. Each feature registers its own subcommands (lazy imports)."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import signal
import sys
from typing import NoReturn

# Modules exposing `register(subparsers)`; each adds its commands with `set_defaults(func=...)`.
COMMAND_MODULES = (
    "agent.ingest.cli",      # ingest, mapping list/approve/reject
    "agent.graph.cli",       # analyze, resume, runs, show, export
    "agent.crawl.cli",       # crawl
    "ui.cli",                # ui
    "bot.cli",               # bot
    "agent.mcp_server.cli",  # mcp (stdio, or --http)
    "agent.batch.cli",       # batch submit/status/report/retry, worker
)


class UsageError(Exception):
    """A malformed command line (argparse's message); exit 2, as argparse itself would."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(f"{parser.prog}: {message}")
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    """argparse, except that a usage error is raised so `main` can also print it as JSON."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


def _wants_json(argv: list[str]) -> bool:
    """Whether the command line asks for `--format json` (also when argparse refuses the rest of it)."""
    return "--format=json" in argv or any(a == "--format" and b == "json" for a, b in zip(argv, argv[1:]))


def _stop_on_sigterm() -> None:
    """SIGTERM stops the CLI the way Ctrl-C does (the analysis commands then leave the run resumable)."""

    def raise_interrupt(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, raise_interrupt)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        exc.parser.print_usage(sys.stderr)
        print(exc, file=sys.stderr)
        if _wants_json(argv):
            from agent.graph.cli import failure_json

            print(json.dumps(failure_json(str(exc), error="usage", code=2)))
        return 2
    _stop_on_sigterm()
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
    except KeyboardInterrupt:  # commands without their own handling (ingest, crawl, ...)
        print("interrupted", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
