"""Who may log in: password users, proxy header, anonymous (fast, no server)."""

from __future__ import annotations

import hashlib

import pytest

from agent.access import ANONYMOUS, AccessConfig


def test_password_users_are_checked_by_digest():
    digest = hashlib.sha256(b"pw2").hexdigest()
    cfg = AccessConfig.from_env({"GODOT_RAG_UI_USERS": f"alice:secret, bob:sha256:{digest}"})
    assert cfg.check_password("alice", "secret")
    assert cfg.check_password("bob", "pw2")
    assert not cfg.check_password("alice", "Secret")
    assert not cfg.check_password("mallory", "secret")
    assert cfg.header_user({}) is None  # no header auth, no anonymous


@pytest.mark.parametrize("entry", ["alice", "alice:", ":pw", "al ice:pw"])
def test_malformed_user_entries_are_errors(entry):
    with pytest.raises(ValueError, match="name:password"):
        AccessConfig.from_env({"GODOT_RAG_UI_USERS": entry})


def test_proxy_header_and_anonymous():
    cfg = AccessConfig.from_env({"GODOT_RAG_UI_HEADER_AUTH": "X-Forwarded-User"})
    assert cfg.header_user({"x-forwarded-user": "carol"}) == "carol"
    assert cfg.header_user({"x-forwarded-user": "bad name!"}) is None
    assert cfg.header_user({}) is None
    anon = AccessConfig.from_env({"GODOT_RAG_UI_ALLOW_ANONYMOUS": "1"})
    assert anon.header_user({}) == ANONYMOUS
    assert not AccessConfig.from_env({}).any_login()
