"""Who an HTTP request is (the chat's users as bearer tokens) and which Hosts and Origins are served."""

from __future__ import annotations

import pytest

from agent.mcp_server.access import LOCAL, Caller, bearer_user, http_caller
from agent.mcp_server.transport import security_settings
from agent.access import AccessConfig

USERS = AccessConfig.from_env({"GODOT_RAG_UI_USERS": "alice:secret,bob:sha256:" + "ab" * 32})


@pytest.mark.parametrize(("headers", "user"), [
    ({"authorization": "Bearer alice:secret"}, "alice"),
    ({"authorization": "bearer alice:secret"}, "alice"),
    ({"authorization": "Bearer alice:wrong"}, None),
    ({"authorization": "Bearer bob:secret"}, None),
    ({"authorization": "Bearer alice"}, None),
    ({"authorization": "Basic YWxpY2U6c2VjcmV0"}, None),
    ({}, None),
])
def test_the_token_is_the_chat_users_name_and_password(headers, user):
    assert bearer_user(USERS, headers) == user


def test_anonymous_and_proxy_users_only_when_configured():
    anonymous = AccessConfig(allow_anonymous=True)
    assert bearer_user(anonymous, {}) == "anonymous"
    assert bearer_user(anonymous, {"authorization": "Bearer alice:secret"}) is None  # a wrong token never falls back
    proxy = AccessConfig(header="X-Forwarded-User")
    assert bearer_user(proxy, {"x-forwarded-user": "carol"}) == "carol"
    assert http_caller(proxy, {}) is None


def test_runs_belong_to_the_chats_owner_and_only_stdio_reads_every_run():
    alice = http_caller(USERS, {"authorization": "Bearer alice:secret"})
    assert alice == Caller(owner="chainlit:alice")
    assert alice.may_read("chainlit:alice") and not alice.may_read("chainlit:bob") and not alice.may_read(None)
    assert LOCAL.may_read("chainlit:bob")


def test_host_and_origin_checks():
    settings = security_settings("0.0.0.0", 8765, {"GODOT_RAG_MCP_ALLOWED_HOSTS": "mcp.example.org",
                                                   "GODOT_RAG_UI_ALLOWED_ORIGINS": "https://chat.example.org"})
    assert settings.enable_dns_rebinding_protection
    assert {"localhost:*", "127.0.0.1:*", "mcp.example.org", "mcp.example.org:*"} <= set(settings.allowed_hosts)
    assert "0.0.0.0:*" not in settings.allowed_hosts
    assert "https://chat.example.org" in settings.allowed_origins and "http://localhost:*" in settings.allowed_origins
    with pytest.raises(ValueError, match="GODOT_RAG_MCP_ALLOWED_HOSTS"):
        security_settings("127.0.0.1", 8765, {"GODOT_RAG_MCP_ALLOWED_HOSTS": "https://x/y"})
