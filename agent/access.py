"""Who may use the web chat (and the MCP server over HTTP): password users from the environment, a trusted
proxy header, or anonymous.

GODOT_RAG_UI_USERS="alice:secret,bob:sha256:<hex>" lists users; a password is stored and compared
as a sha256 digest in constant time. GODOT_RAG_UI_HEADER_AUTH names a header set by a trusted
reverse proxy (e.g. X-Forwarded-User). Anonymous use needs GODOT_RAG_UI_ALLOW_ANONYMOUS=1.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

ANONYMOUS = "anonymous"
_NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


def _digest(password: str) -> bytes:
    return hashlib.sha256(password.encode("utf-8")).digest()


@dataclass(frozen=True)
class AccessConfig:
    """The login methods in force, read once at start-up."""

    users: dict[str, bytes] = field(default_factory=dict)
    """user name -> sha256 digest of the password"""
    header: str | None = None
    """trusted proxy header that carries the user name"""
    allow_anonymous: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AccessConfig:
        """Parse the GODOT_RAG_UI_* variables; a malformed user entry is an error, not a silent skip."""
        env = os.environ if env is None else env
        users: dict[str, bytes] = {}
        for entry in filter(None, (e.strip() for e in env.get("GODOT_RAG_UI_USERS", "").split(","))):
            name, sep, secret = entry.partition(":")
            if not sep or not _NAME.match(name) or not secret:
                raise ValueError("GODOT_RAG_UI_USERS entries must look like name:password or name:sha256:<hex>")
            if secret.startswith("sha256:"):
                if not re.fullmatch(r"[0-9a-fA-F]{64}", secret.removeprefix("sha256:")):
                    raise ValueError(f"GODOT_RAG_UI_USERS: the sha256 of user {name!r} must be 64 hex digits")
                users[name] = bytes.fromhex(secret.removeprefix("sha256:"))
            else:
                users[name] = _digest(secret)
        return cls(
            users=users,
            header=(env.get("GODOT_RAG_UI_HEADER_AUTH") or "").strip() or None,
            allow_anonymous=env.get("GODOT_RAG_UI_ALLOW_ANONYMOUS", "") in {"1", "true", "yes"},
        )

    def any_login(self) -> bool:
        """True when at least one way in exists."""
        return bool(self.users or self.header or self.allow_anonymous)

    def check_password(self, name: str, password: str) -> bool:
        """Constant-time check; unknown users cost the same as wrong passwords."""
        expected = self.users.get(name, b"\0" * 32)
        ok = hmac.compare_digest(_digest(password), expected)
        return ok and name in self.users

    def header_user(self, headers: Mapping[str, str]) -> str | None:
        """The user a trusted proxy vouches for, else `anonymous` if allowed, else None."""
        if self.header:
            value = (headers.get(self.header.lower()) or headers.get(self.header) or "").strip()
            if value and _NAME.match(value):
                return value
        return ANONYMOUS if self.allow_anonymous else None
