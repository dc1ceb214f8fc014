"""Prompt intent: version pairs like "Godot: 3 or 4" name both versions, in every cue language."""

from __future__ import annotations

import pytest

from agent.intent import detect_intent


@pytest.mark.parametrize(
    ("prompt", "lang"),
    [
        ("Какая версия Godot: 3 или 4?", "ru"),
        ("Это Godot 3 или 4?", "ru"),
        ("Is this Godot 3 or 4?", "en"),
        ("which version of godot, 4 or 3?", "en"),
        ("这是Godot 3还是4？", "zh"),
        ("이 코드 Godot 3이야 4야?", "ko"),
    ],
)
def test_version_pair_gives_both_versions(prompt, lang):
    intent = detect_intent(prompt)
    assert intent.task_type == "version_check"
    assert intent.prompt_terms == ["Godot 3", "Godot 4"]
    assert intent.language == lang


def test_pair_keeps_other_cues_in_order():
    intent = detect_intent("Migrate from Godot 3 or 4 code?")
    assert intent.prompt_terms == ["Godot 3", "Godot 4", "migration"]


def test_number_that_is_not_a_version_is_not_a_pair():
    assert detect_intent("godot 3 with 45 enemies or 4 bosses").prompt_terms == ["Godot 3"]
    assert detect_intent("Godot 3 or 45?").prompt_terms == ["Godot 3"]


def test_version_with_colon():
    assert detect_intent("Godot: 4").prompt_terms == ["Godot 4"]
