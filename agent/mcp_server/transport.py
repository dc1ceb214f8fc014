"""The Host and Origin checks of the HTTP transport, in the SDK's own terms (`TransportSecuritySettings`).

DNS-rebinding protection is always on: a request must name this server in its Host header (the bound
host, localhost, or a name listed in GODOT_RAG_MCP_ALLOWED_HOSTS), and a browser's Origin, when sent,
must be a local one or one the web chat also allows (GODOT_RAG_UI_ALLOWED_ORIGINS; its `*` is not carried
over: the SDK checks named origins only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mcp.server.transport_security import TransportSecuritySettings

from agent.origins import allowed_origins

ALLOWED_HOSTS_ENV = "GODOT_RAG_MCP_ALLOWED_HOSTS"
_LOCAL = ("127.0.0.1", "localhost", "[::1]")
_PORT = re.compile(r":\d+$")


def security_settings(host: str, port: int, env: Mapping[str, str]) -> TransportSecuritySettings:
    """The checks for a server bound to `host:port`; a malformed variable is a ValueError naming it."""
    names = [h.strip() for h in env.get(ALLOWED_HOSTS_ENV, "").split(",") if h.strip()]
    for name in names:
        if "/" in name or "@" in name or " " in name:
            raise ValueError(f"{ALLOWED_HOSTS_ENV} entries must be host or host:port names; got {name!r}")
    hosts = [*_LOCAL, *([host] if host not in ("0.0.0.0", "::") else []), *names]
    allowed_hosts = [h for name in dict.fromkeys(hosts)
                     for h in ((name,) if _PORT.search(name) else (name, f"{name}:*"))]
    origins = [f"http://{h}:*" for h in _LOCAL] + [f"http://{h}" for h in _LOCAL]
    extra = [o for o in allowed_origins(env) if o != "*"]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=allowed_hosts,
                                     allowed_origins=[*origins, *extra])
