"""Direct chunks: project.godot, .tscn/.tres blocks with multi-line values, .import sections."""

from __future__ import annotations

from pathlib import Path

from agent.parse import cache_info, chunk_file
from tests.parse.helpers import assert_coverage, source

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "small_project"


def test_project_godot_sections_and_candidates():
    text = (PROJECT / "project.godot").read_text()
    chunks = chunk_file(source("project.godot", text))
    assert [(c.chunk_kind, c.name) for c in chunks] == [
        ("config_preamble", None),
        ("config_section", "application"),
        ("config_section", "autoload"),
        ("config_section", "input"),
        ("config_section", "rendering"),
    ]
    assert chunks[0].code_text == "config_version=5"  # leading `;` comments are not content
    summary = chunks[0].extra["project"]
    assert summary == {
        "config_version": 5,
        "features": ["4.3", "Forward Plus"],
        "input_actions": ["jump", "dash"],
        "autoloads": {"Score": "res://scripts/score.gd"},
    }
    app, autoload, inputs = chunks[1], chunks[2], chunks[3]
    assert "4.3" in app.symbol_candidates and "res://scenes/main.tscn" in app.reference_candidates
    assert "res://scripts/score.gd" in autoload.reference_candidates
    assert inputs.symbol_candidates == ["jump", "dash"]
    assert inputs.code_text.startswith("[input]") and inputs.code_text.endswith('"events": []\n}')
    assert (inputs.span.start_line, inputs.span.end_line) == (17, 27)  # multi-line dictionaries stay whole
    assert all(c.parse_status == "direct" for c in chunks)
    assert_coverage(text, chunks)


def test_tscn_blocks_keep_multiline_values():
    text = (PROJECT / "scenes" / "coin.tscn").read_text()
    chunks = chunk_file(source("scenes/coin.tscn", text))
    assert [(c.chunk_kind, c.name) for c in chunks] == [
        ("scene_header", None),
        ("ext_resource", "1_cs"),
        ("sub_resource", "SpriteFrames_1"),
        ("node", "Coin"),
        ("node", "Sprite"),
    ]
    frames = chunks[2]
    assert frames.code_text.endswith("}]") and '"name": &"spin",' in frames.code_text
    assert frames.chunk_id == "scenes/coin.tscn:sub_resource:SpriteFrames_1"
    assert chunks[0].extra["header"]["format"] == "3"
    assert chunks[0].reference_candidates == ["uid://c0incoin0001"]
    assert "AnimatedSprite2D" in chunks[-1].symbol_candidates
    assert_coverage(text, chunks)


def test_tscn_bracket_line_inside_array_is_not_a_header():
    text = (
        '[gd_scene format=3]\n\n[node name="A" type="Node"]\npoints = [\n[1, 2]\n]\n\n'
        '[node name="B" type="Node" parent="."]\n'
    )
    chunks = chunk_file(source("x.tscn", text))
    assert [c.name for c in chunks] == [None, "A", "B"]
    assert chunks[1].span.end_line == 6


def test_connection_and_nested_node_names():
    text = (PROJECT / "scenes" / "main.tscn").read_text()
    chunks = chunk_file(source("scenes/main.tscn", text))
    conn = chunks[-1]
    assert conn.chunk_kind == "connection" and conn.name == "coin_taken->_on_player_coin_taken"
    assert conn.api_call_candidates == ["_on_player_coin_taken"]
    refs = {r for c in chunks for r in c.reference_candidates}
    assert {"res://scenes/player.tscn", "uid://c0inplayer01"} <= refs


def test_import_uid_and_ignore_files():
    imp = (PROJECT / "art" / "icon.png.import").read_text()
    chunks = chunk_file(source("art/icon.png.import", imp))
    assert [(c.chunk_kind, c.name) for c in chunks] == [
        ("import_section", "remap"),
        ("import_section", "deps"),
        ("import_section", "params"),
    ]


def test_parse_cache_reused_across_paths_and_prompts(monkeypatch):
    import agent.parse

    text = "extends Node\n\nfunc cached_only_here():\n\tpass\n"
    parsed: list[str] = []  # counted on the parser, not the shared counters other threads move
    real = agent.parse._drafts
    monkeypatch.setattr(agent.parse, "_drafts", lambda f: parsed.append(f.path) or real(f))
    first = chunk_file(source("a/one.gd", text))
    second = chunk_file(source("b/two.gd", text))
    assert parsed == ["a/one.gd"]
    assert cache_info()["size"] >= 1
    assert [c.chunk_id for c in second] == ["b/two.gd:class_extends:1", "b/two.gd:function:cached_only_here"]
    assert [c.code_text for c in first] == [c.code_text for c in second]
    second[1].extra["identifiers"].append("mutated")  # callers may mutate their copy; the cache stays clean
    assert "mutated" not in chunk_file(source("c.gd", text))[1].extra["identifiers"]


def test_same_file_under_another_prompt_is_not_parsed_again(base_settings, monkeypatch):
    import agent.parse
    from agent.intake import intake_snippet
    from agent.parse import chunk_project

    text = "extends Node\n\nfunc prompt_cache_probe():\n\tpass\n"
    first = intake_snippet(text, prompt="is this Godot 4?", settings=base_settings)
    chunk_project(first.expansion, project_id=first.request.project_id)
    # Checked on the parser itself, not the shared hit counters (other threads may parse meanwhile).
    def parsed_again(file):
        raise AssertionError(f"{file.path} parsed again")
    monkeypatch.setattr(agent.parse, "_drafts", parsed_again)
    second = intake_snippet(text, prompt="explain it", settings=base_settings)
    chunks = chunk_project(second.expansion, project_id=second.request.project_id)
    assert chunks[-1].name == "prompt_cache_probe"


def test_tscn_node_header_with_groups_over_several_lines():
    """Godot 3 writes `groups=[` and one group per line: the node is still a block of its own."""
    text = ('[gd_scene load_steps=2 format=2]\n\n[ext_resource path="res://Mob.gd" type="Script" id=1]\n\n'
            '[sub_resource type="CapsuleShape2D" id=2]\nradius = 35.0\n\n'
            '[node name="Mob" type="RigidBody2D" groups=[\n"mobs",\n]]\nscript = ExtResource( 1 )\n\n'
            '[node name="AnimatedSprite" type="AnimatedSprite" parent="."]\n')
    chunks = chunk_file(source("Mob.tscn", text))
    assert [(c.chunk_kind, c.name) for c in chunks][-2:] == [("node", "Mob"), ("node", "AnimatedSprite")]
    mob = chunks[-2]
    assert (mob.span.start_line, mob.span.end_line) == (8, 11) and "RigidBody2D" in mob.symbol_candidates
    assert chunks[-3].span.end_line == 6  # the shape before it ends where it did
    assert_coverage(text, chunks)
