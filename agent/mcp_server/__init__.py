"""`godot-rag mcp`: the analysis as MCP tools and resources for coding agents (Claude Code, Cursor, ...).

A front door like the web chat (`ui/`), the Discord bot (`bot/`) and the CLI (`agent/graph/cli.py`): a thin
adapter over `agent`, with no analysis and no SQL of its own. `server.py` declares the tools and resources,
`runtime.py` holds the service and the transport, `access.py` says who is calling, `errors.py` turns every
failure into a redacted tool error, `models.py` types what the tools return, `transport.py` sets the HTTP
Host/Origin checks, and `cli.py` registers the command. The package is not named `mcp`: that would shadow
the SDK.
"""
