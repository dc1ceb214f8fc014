"""Settings come from the environment, are validated, and never leak secrets."""

from __future__ import annotations

import pytest

from agent.settings import Settings


def test_defaults_and_overrides(monkeypatch, tmp_path):
    for key in ("GODOT_RAG_DATABASE_URL", "GODOT_RAG_JUDGE", "GODOT_RAG_LLM_MAX_CONCURRENCY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("GODOT_RAG_HOME", str(tmp_path))
    monkeypatch.setenv("GODOT_RAG_LLM_MAX_CONCURRENCY", "7")
    s = Settings.from_env()
    assert s.home == tmp_path.resolve()
    assert s.database_url is None and s.judge == "evidence"
    assert s.llm_max_concurrency == 7


def test_bad_number_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("GODOT_RAG_MAX_FILES", "lots")
    with pytest.raises(ValueError, match="GODOT_RAG_MAX_FILES must be an integer"):
        Settings.from_env()


def test_describe_masks_secrets(monkeypatch):
    monkeypatch.setenv("GODOT_RAG_LLM_API_KEY", "sk-very-secret")
    monkeypatch.setenv("DISCORD_TOKEN", "discord-secret")
    monkeypatch.setenv("GODOT_RAG_DATABASE_URL", "postgresql://u:pw@h/db")
    shown = Settings.from_env().describe()
    assert "sk-very-secret" not in str(shown) and "discord-secret" not in str(shown) and "pw@" not in str(shown)
