"""`godot-rag mcp [--http --host H --port P]`: serve the MCP tools over stdio (default) or streamable HTTP."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `godot-rag mcp` to the CLI."""
    p = subparsers.add_parser(
        "mcp",
        help="serve the analysis as MCP tools (stdio by default, or --http)",
        description="Serve check_code, analyze_project, migrate, lookup_api, search_docs and follow_up to MCP "
        "clients (Claude Code, Cursor, ...). Over stdio the caller is the local user; over --http it logs in with "
        "the web chat's users: Authorization: Bearer <user>:<password> (GODOT_RAG_UI_USERS), or anonymously when "
        "GODOT_RAG_UI_ALLOW_ANONYMOUS=1.",
    )
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on with --http (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port to listen on with --http (default 8765)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Entry point of `godot-rag mcp`."""
    from agent.settings import Settings

    try:
        settings = Settings.from_env().with_(front_door="mcp")  # the MCP chunk cap applies
    except ValueError as exc:
        print(f"godot-rag: {exc}", file=sys.stderr)
        return 2
    if args.http:
        return _serve_http(settings, args.host, args.port)
    import anyio

    from agent.mcp_server.runtime import McpRuntime
    from agent.mcp_server.server import build_server

    runtime = McpRuntime(settings=settings, transport="stdio")

    async def serve() -> None:
        try:
            await build_server(runtime).run_stdio_async()
        finally:
            await runtime.close()

    anyio.run(serve)
    return 0


def _serve_http(settings, host: str, port: int) -> int:
    import contextlib
    import os

    import uvicorn

    from agent.mcp_server.access import BearerGate
    from agent.mcp_server.runtime import McpRuntime
    from agent.mcp_server.server import build_server
    from agent.mcp_server.transport import security_settings
    from agent.access import AccessConfig

    try:
        access = AccessConfig.from_env()
        security = security_settings(host, port, os.environ)
    except ValueError as exc:
        print(f"godot-rag: {exc}", file=sys.stderr)
        return 2
    if not access.any_login():
        print("godot-rag: no way in: set GODOT_RAG_UI_USERS (name:password,...), GODOT_RAG_UI_HEADER_AUTH or "
              "GODOT_RAG_UI_ALLOW_ANONYMOUS=1", file=sys.stderr)
        return 2
    runtime = McpRuntime(settings=settings, transport="http", access=access)
    app = build_server(runtime).streamable_http_app(host=host, transport_security=security)

    serve_sessions = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def closing(_app):  # the service's pools close after the MCP sessions end
        async with serve_sessions(_app):
            yield
        await runtime.close()

    app.router.lifespan_context = closing
    uvicorn.run(BearerGate(app, access), host=host, port=port, log_level="warning", lifespan="on")
    return 0
