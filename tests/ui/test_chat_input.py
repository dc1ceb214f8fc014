"""Splitting a chat message into prompt, code and link (fast)."""

from __future__ import annotations

from agent.chat_input import split_link, split_prompt_and_code


def test_question_then_bare_code():
    prompt, code = split_prompt_and_code("Is this Godot 3 or 4?\nextends Node\n\nfunc _ready():\n\tpass\n")
    assert prompt == "Is this Godot 3 or 4?"
    assert code.startswith("extends Node") and "func _ready" in code


def test_fenced_code_with_korean_question():
    prompt, code = split_prompt_and_code("이거 Godot 4로 변환해야 해?\n```gdscript\nextends KinematicBody2D\n```\n")
    assert prompt == "이거 Godot 4로 변환해야 해?"
    assert code.startswith("```gdscript") and "KinematicBody2D" in code


def test_plain_prose_is_analysed_as_is():
    assert split_prompt_and_code("what a lovely day for a walk") == ("", "what a lovely day for a walk")


def test_links_outside_code_only():
    assert split_link("please check https://github.com/o/r/tree/main/game.") == (
        "https://github.com/o/r/tree/main/game", "please check")
    assert split_link("https://gitlab.com/o/r")[0] == "https://gitlab.com/o/r"
    assert split_link("extends Node # docs at https://docs.godotengine.org")[0] is None


def test_prose_without_code_is_a_question_not_code():
    from agent.chat_input import has_code

    assert not has_code("hello, can you help me port my game?")
    assert not has_code("이거 Godot 4로 옮길 수 있어?")
    assert has_code("extends Node\nfunc _ready():\n\tpass")
    assert has_code("can you check\n```\nprint(1)\n```")
    assert has_code("Can you check this?\nfunction add(a, b) { return a + b; }")
