"""Follow-ups that answer: why flagged, explain chunk N, the Godot 4 version, in the question's language.

Also the thread's conversation memory (langchain-postgres): per thread, and used to resolve "it".
"""

from __future__ import annotations

import re

import pytest

from agent.answer.memory import ConversationMemory
from agent.followup import answer_for_run
from tests.answer.conftest import FIXTURES, analyze_snippet
from tests.graph.projects import PLAYER_GD_4

pytestmark = pytest.mark.asyncio(loop_scope="session")

MIXED = "".join(f"# {n}\n{(FIXTURES.parent.parent / 'ui' / 'fixtures' / 'mixed_project' / n).read_text()}\n"
                for n in ("mob.gd", "hud.gd"))
ENEMY = (FIXTURES / "enemy_g3.txt").read_text()


def _one_code_block(text: str) -> str:
    blocks = re.findall(r"```gdscript\n(.*?)```", text, re.S)
    assert len(blocks) == 1, text
    return blocks[0]


async def test_why_is_a_file_flagged_gives_reasons_in_plain_words(answer_service):
    report = await analyze_snippet(answer_service, MIXED, "")
    why = await answer_for_run(answer_service, report["run_id"], "why is mob.gd flagged?")
    print("\n" + why.text)
    assert "mob.gd` is flagged because" in why.text and "KinematicBody2D" in why.text
    assert "Sources:" in why.text and re.search(r"\[\d+\] .+ — https://", why.text)
    assert "rationale:" not in why.text and "search cues" not in why.text  # no debug dump
    hud = await answer_for_run(answer_service, report["run_id"], "why is hud.gd flagged?")
    assert "not flagged" in hud.text


async def test_explain_chunk_shows_the_code_and_explains_it(answer_service):
    report = await analyze_snippet(answer_service, PLAYER_GD_4, "")
    n = next(c["chunk_order"] + 1 for c in report["chunks"] if c.get("name") == "_process")
    ans = await answer_for_run(answer_service, report["run_id"], f"explain chunk {n}")
    print("\n" + ans.text)
    assert "func _process(delta):" in _one_code_block(ans.text)
    assert "What the code does" in ans.text and "`Input.is_action_pressed`" in ans.text
    zh = await answer_for_run(answer_service, report["run_id"], f"解释第 {n} 块")
    assert "这段代码做什么" in zh.text


async def test_show_me_the_godot4_version_is_one_validated_code_block(answer_service):
    report = await analyze_snippet(answer_service, ENEMY, "")
    ans = await answer_for_run(answer_service, report["run_id"], "show me the Godot 4 version")
    code = _one_code_block(ans.text)
    print("\n" + ans.text)
    assert "extends CharacterBody2D" in code and "var velocity" not in code and "move_and_slide()" in code
    assert ans.code == code.rstrip("\n") + ("\n" if ans.code.endswith("\n") else "")
    ko = await answer_for_run(answer_service, report["run_id"], "Godot 4 버전 보여줘")
    assert _one_code_block(ko.text) == code


async def test_conversation_memory_is_per_thread_and_resolves_it(answer_service):
    memory = ConversationMemory(answer_service.url)
    await memory.add("web:thread-a", "explain chunk 2", "it does X")
    await memory.add("discord:42", "hello", "hi")
    assert await memory.turns("web:thread-a") == [("user", "explain chunk 2"), ("assistant", "it does X")]
    assert await memory.turns("discord:42") == [("user", "hello"), ("assistant", "hi")]
    assert await memory.turns("web:other") == []

    report = await analyze_snippet(answer_service, MIXED, "")
    mob = next(c for c in report["chunks"] if c["source_file"] == "mob.gd" and c.get("name") == "_physics_process")
    history = [("user", f"explain chunk {mob['chunk_order'] + 1}"), ("assistant", "...")]
    ans = await answer_for_run(answer_service, report["run_id"], "convert it to Godot 4", history=history)
    assert ans.chunk_ids == [mob["chunk_id"]] and "_physics_process" in ans.text
