"""`intake.from_source`: the one async front door, one source at a time."""

from __future__ import annotations

import pytest

from agent.intake import IntakeError, from_source, intake_snippet

SNIPPET = "extends KinematicBody2D\n\nfunc _ready():\n\tpass\n"


async def test_each_kind_matches_its_sync_intake(base_settings, tmp_path):
    pasted = await from_source(text=SNIPPET, prompt="Godot 3?", settings=base_settings)
    assert pasted == intake_snippet(SNIPPET, prompt="Godot 3?", settings=base_settings)
    uploaded = await from_source(files=[("enemy.gd", SNIPPET.encode())], settings=base_settings)
    assert [f.path for f in uploaded.expansion.included] == ["enemy.gd"]
    (tmp_path / "enemy.gd").write_text(SNIPPET)
    local = await from_source(target=str(tmp_path), settings=base_settings)
    assert local.request.source_origin == "local_directory"


async def test_exactly_one_source_and_bad_input_is_a_clear_error(base_settings):
    with pytest.raises(ValueError, match="exactly one"):
        await from_source(text=SNIPPET, url="https://github.com/a/b", settings=base_settings)
    with pytest.raises(ValueError, match="exactly one"):
        await from_source(settings=base_settings)
    with pytest.raises(IntakeError):
        await from_source(url="http://example.com/a/b", settings=base_settings)
    with pytest.raises(IntakeError):
        await from_source(files=[], settings=base_settings)
