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
HERO = ('# hero.gd\nextends KinematicBody2D\n\nexport var health = 100 setget set_health\n'
        'onready var anim = $AnimationPlayer\n\nfunc set_health(v):\n\thealth = v\n')
"""One line, two rules (`export` and `setget`): the issue's "что делать с setget?" script."""


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


async def test_the_whole_script_is_asked_for_in_any_wording(answer_service):
    report = await analyze_snippet(answer_service, ENEMY, "")
    asks = ("show me the whole thing in Godot 4", "full script please", "entire file in godot 4",
            "all of it in godot 4", "全部转成 Godot 4", "整个文件", "전체 코드 보여줘", "перепиши целиком",
            "полностью под Godot 4", "весь код для Godot 4")
    for question in asks:
        ans = await answer_for_run(answer_service, report["run_id"], question)
        assert "extends CharacterBody2D" in _one_code_block(ans.text), (question, ans.text)


async def test_a_line_is_read_in_its_file_and_an_empty_one_points_to_the_nearest_change(answer_service):
    report = await analyze_snippet(answer_service, MIXED, "")
    run = report["run_id"]
    by_name = {(c["source_file"], c.get("name")): c["chunk_id"] for c in report["chunks"]}
    blank = await answer_for_run(answer_service, run, "第11行怎么改?")  # mob.gd line 11 is empty; hud.gd's is code
    assert blank.text.startswith("`mob.gd` 的第 11 行是空行") and "最近的修改在第 10 行" in blank.text, blank.text
    assert "move_and_slide()" in blank.text and blank.chunk_ids == [by_name["mob.gd", "_physics_process"]]
    ko = await answer_for_run(answer_service, run, "11번째 줄 어떻게 고쳐?")
    assert "빈 줄" in ko.text and "10행" in ko.text, ko.text
    code = await answer_for_run(answer_service, run, "how do I fix line 12?")  # `func hurt():`, no change itself
    assert code.text.startswith("Line 12 of `mob.gd` needs no change") and by_name["mob.gd", "hurt"] in code.chunk_ids
    named = await answer_for_run(answer_service, run, "line 11 of hud.gd")
    assert named.chunk_ids == [by_name["hud.gd", "_on_start_button_pressed"]], named.text
    past = await answer_for_run(answer_service, run, "что со строкой 40?")
    assert "строки 40 нет" in past.text and "await get_tree().create_timer(0.2).timeout" in past.text, past.text


async def test_a_construct_is_answered_once_with_what_to_do_and_why_citing_its_page(answer_service):
    report = await analyze_snippet(answer_service, HERO, "")
    run = report["run_id"]
    ru = await answer_for_run(answer_service, run, "что делать с setget?")
    print("\n" + ru.text)
    assert "@export var health = 100: set = set_health" in _one_code_block(ru.text)
    assert "Почему: `setget` убран" in ru.text and "Ещё в этой строке:" in ru.text
    cited = re.search(r"^\[1\] setget -> set/get — https://\S+#properties-setters-and-getters$", ru.text, re.M)
    assert cited, ru.text
    en = await answer_for_run(answer_service, run, "what do I do with export?")
    assert en.text.count("```gdscript") == 1, en.text
    assert re.search(r"^\[1\] export -> @export", en.text, re.M), en.text
    mixed = await analyze_snippet(answer_service, MIXED, "")
    kb = await answer_for_run(answer_service, mixed["run_id"], "what do I do with setget?")  # not in MIXED
    assert "`setget` does not appear" in kb.text and "Why: `setget` was removed" in kb.text, kb.text
    assert "#properties-setters-and-getters" in kb.text
