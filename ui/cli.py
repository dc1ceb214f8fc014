"""`godot-rag ui [--host H] [--port P]`: open the Chainlit web chat (scripts depend on these flags)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `ui` command to the `godot-rag` CLI."""
    p = subparsers.add_parser(
        "ui",
        help="open the web chat (Chainlit)",
        description="Open the web chat. Users come from GODOT_RAG_UI_USERS (name:password,...), "
        "GODOT_RAG_UI_HEADER_AUTH (trusted proxy header) or GODOT_RAG_UI_ALLOW_ANONYMOUS=1.",
    )
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from agent.settings import Settings
    from ui.launch import launch

    return launch(Settings.from_env(), host=args.host, port=args.port)
