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


def test_a_failed_fetch_says_what_to_check_never_gits_stderr():
    from ui.chat import refusal_text

    raw = "Could not fetch https://github.com/o/r: fatal: unable to access 'https://github.com/o/r/': Could not resolve host"
    text = refusal_text(raw)
    assert text.startswith("Could not fetch https://github.com/o/r.") and "public" in text
    assert "fatal" not in text and "resolve host" not in text
    ours = "Could not fetch https://github.com/o/r: timed out after 10 s (unreachable or too slow)."
    assert refusal_text(ours) == ours
    assert refusal_text("The file a.gd is over the file size limit") == "The file a.gd is over the file size limit"


def test_resume_is_offered_only_when_something_is_left():
    from ui.chat import resumable

    assert resumable({"status": "interrupted", "progress": {"done": 3, "total": 9}})
    assert resumable({"status": "failed", "progress": {"done": 0, "total": 2}})
    assert not resumable({"status": "interrupted", "progress": {"done": 0, "total": 0}})
    assert not resumable({"status": "completed", "progress": {"done": 9, "total": 9}})
    assert not resumable({"status": "running", "progress": {"done": 1, "total": 9}})
