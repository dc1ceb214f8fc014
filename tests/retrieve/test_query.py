"""Trace vs search: the query carries code and cues, never paths or ids; transmission checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.intake import intake_directory, intake_snippet
from agent.intent import detect_intent
from agent.parse import chunk_project
from agent.retrieve.query import TransmissionError, build_retriever_query, check_transmission, split_trace

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "projects"
PROMPT = "Check whether this project is Godot 3 or Godot 4, and give conversion references if needed."


@pytest.fixture
def mini(base_settings):
    r = intake_snippet((FIXTURES / "mini_dodge.txt").read_text(), prompt=PROMPT, settings=base_settings)
    return r, chunk_project(r.expansion, project_id=r.request.project_id)


def test_query_for_process_chunk(mini):
    r, chunks = mini
    process = next(c for c in chunks if c.name == "_process")
    q = build_retriever_query(PROMPT, process)
    for term in (
        "Input.is_action_pressed",
        "Vector2.ZERO",
        "motion.normalized",
        "position.clamp",
        "Godot 3",
        "Godot 4",
        "migration",
    ):
        assert term in q.query_terms, term
    assert q.prompt_terms == ["Godot 3", "Godot 4", "migration"]
    assert q.task_type == "version_check"
    assert q.raw_chunk_text == process.code_text and process.code_text in q.query_text
    trace = split_trace(process, r.request.project_id)
    assert (trace.source_file, trace.start_line, trace.end_line) == ("player.gd", 12, 26)
    blob = q.model_dump_json()
    for leaked in (trace.source_file, trace.chunk_id, trace.source_sha256, trace.project_id):
        assert leaked not in blob


def test_path_token_absent_from_code_never_becomes_a_term(base_settings, tmp_path):
    # a file whose path tokens (folder, file name) also look like identifiers the code could use
    (tmp_path / "secret_folder").mkdir()
    (tmp_path / "secret_folder" / "HeroController.gd").write_text(
        "extends Node\n\nfunc _ready():\n\tvar speed = 3\n\tprint(speed)\n"
    )
    r = intake_directory(tmp_path, settings=base_settings)
    for chunk in chunk_project(r.expansion, project_id=r.request.project_id):
        q = build_retriever_query("explain this", chunk)
        low = [t.lower() for t in q.query_terms]
        for token in (
            "secret_folder",
            "herocontroller",
            "herocontroller.gd",
            "secret_folder/herocontroller.gd",
        ):
            assert token not in low
            assert all(token not in t for t in low)
        assert r.request.project_id not in q.query_text and chunk.chunk_id not in q.query_text
        assert chunk.source_sha256 not in q.query_text


def test_terms_that_name_the_file_are_dropped_unless_in_code(mini):
    _, chunks = mini
    decl = next(c for c in chunks if c.chunk_kind == "declaration_group")
    tainted = decl.model_copy(
        update={
            "symbol_candidates": ["player.gd", "Area2D", decl.chunk_id, decl.source_sha256],
            "reference_candidates": ["res://player.gd"],
        }
    )
    q = build_retriever_query("", tainted)
    assert q.symbol_candidates == ["Area2D"] and q.reference_candidates == []
    # a path literally written in the code is search material (e.g. res:// references)
    tscn = next(c for c in chunks if c.chunk_kind == "ext_resource")
    assert "res://player.gd" in build_retriever_query("", tscn).query_terms


def test_transmission_checks(mini):
    r, chunks = mini
    ids = [c.chunk_id for c in chunks]
    check_transmission(chunks, ids, r.expansion)
    check_transmission(chunks, ids[2:5])
    with pytest.raises(TransmissionError, match="not in the chunk list"):
        check_transmission(chunks, ["player.gd:function:nope"])
    with pytest.raises(TransmissionError, match="out of order"):
        check_transmission(chunks, [ids[3], ids[1]])
    swapped = [chunks[1], chunks[0], *chunks[2:]]
    with pytest.raises(TransmissionError, match="strictly increasing"):
        check_transmission(swapped, ids)
    with pytest.raises(TransmissionError, match="duplicate"):
        check_transmission([chunks[0], chunks[1].model_copy(update={"chunk_id": chunks[0].chunk_id})], [])
    bad_sha = [*chunks[:-1], chunks[-1].model_copy(update={"source_sha256": "0" * 64})]
    with pytest.raises(TransmissionError, match="sha256"):
        check_transmission(bad_sha, [], r.expansion)
    edited = [*chunks[:-1], chunks[-1].model_copy(update={"code_text": "tampered"})]
    with pytest.raises(TransmissionError, match="differ"):
        check_transmission(edited, [], r.expansion)
    ghost = [chunks[0].model_copy(update={"source_file": "ghost.gd"})]
    with pytest.raises(TransmissionError, match="not an included file"):
        check_transmission(ghost, [], r.expansion)


@pytest.mark.parametrize(
    ("prompt", "task", "terms", "lang"),
    [
        (PROMPT, "version_check", ["Godot 3", "Godot 4", "migration"], "en"),
        ("Migrate this to Godot 4 please", "migration", ["Godot 4", "migration"], "en"),
        (
            "Which functions are deprecated or renamed?",
            "migration",
            ["deprecated", "renamed", "migration"],
            "en",
        ),
        ("What does this code do? Explain the usage", "explain", ["description", "usage"], "en"),
        ("이 코드를 Godot 4로 변환해줘", "migration", ["Godot 4", "migration"], "ko"),
        ("이 프로젝트 마이그레이션 방법", "migration", ["migration"], "ko"),
        ("이 함수의 뜻을 설명해줘", "explain", ["description"], "ko"),
        ("这段代码是 Godot 3 还是 Godot 4？", "version_check", ["Godot 3", "Godot 4"], "zh"),
        ("请把这个项目迁移到 Godot 4", "migration", ["Godot 4", "migration"], "zh"),
        ("解释这段代码", "explain", ["description"], "zh"),
        ("Перенеси этот код на Godot 4", "migration", ["Godot 4", "migration"], "ru"),
        ("Объясни, что делает эта функция", "explain", ["description"], "ru"),
        ("Какая версия Godot: 3 или 4?", "version_check", ["Godot 3", "Godot 4"], "ru"),
        ("hello", "general", [], "en"),
        ("", "version_check", [], "unknown"),
    ],
)
def test_intent_cues(prompt, task, terms, lang):
    intent = detect_intent(prompt)
    assert (intent.task_type, intent.language) == (task, lang)
    assert intent.prompt_terms == terms


def test_prompt_is_never_parsed_as_code(base_settings):
    prompt = "func _ready():\n\tyield(get_tree(), 'idle_frame')  # is this Godot 3?"
    r = intake_snippet("extends Node\n", prompt=prompt, settings=base_settings)
    chunks = chunk_project(r.expansion, project_id=r.request.project_id)
    assert [c.chunk_kind for c in chunks] == ["class_extends"]
    q = build_retriever_query(prompt, chunks[0])
    assert "yield" not in q.query_terms and "Godot 3" in q.prompt_terms


def test_the_classes_of_a_chunks_receivers_come_from_the_scripts_member_declarations():
    """`client.poll()` alone names no class; the script's `var client: WebSocketClient` does."""
    from tests.retrieve.helpers import find_chunk, gd_chunks

    code = ("extends Node\n\nvar client: WebSocketClient = WebSocketClient.new()\n@onready var t = Timer.new()\n"
            "var unused := HTTPRequest.new()\n# var other: UDPServer\n\n"
            "func poll():\n\tclient.poll()\n\tt.start()\n\tprint(\"unused.x\")\n")
    q = build_retriever_query(PROMPT, find_chunk(gd_chunks(code), "func poll"))
    assert q.receiver_classes == ["WebSocketClient", "Timer"]  # not the unused one, nor a comment's
    assert "WebSocketClient" not in q.query_text  # looked up exactly only: the search text stays the chunk's
