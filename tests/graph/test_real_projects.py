"""Whole projects as others write them, through the real intake, parser, retriever, judge and aggregate.

The patterns come from Godot 4 projects by others (bench/projects.py lists the dev sources): a
`.gitignore` naming `*.translation`, C# next to GDScript, CI files, data files, scenes nobody re-saved
since Godot 3, and converter renames on receivers nobody resolved (`colors.green`, `event.control`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.intake import intake_directory

pytestmark = pytest.mark.asyncio(loop_scope="session")

PROJECT_4 = 'config_version=5\n\n[application]\n\nconfig/name="Real"\nconfig/features=PackedStringArray("4.3")\n'
PLAYER_4 = """extends CharacterBody2D

@export var speed := 200.0


func _physics_process(delta: float) -> void:
\tvelocity = Input.get_vector("left", "right", "up", "down") * speed
\tmove_and_slide()
"""
PAINT_4 = """extends Node2D

var colors := {"green": Color(0, 1, 0), "group": 2}
var method


func paint(item) -> void:
\tmodulate = colors.green
\tvar g = colors.group
\tprint(method.meta.name)


func _unhandled_input(event: InputEvent) -> void:
\tif event is InputEventKey and event.control:
\t\tpass
"""
STALE_SCENE = """[gd_scene load_steps=2 format=2]

[ext_resource path="res://player.gd" type="Script" id=1]

[node name="Player" type="KinematicBody2D"]
script = ExtResource( 1 )
"""
NOT_GODOT = {
    ".gitignore": "*.translation\n.import/\n.godot/\n",
    ".gitattributes": "* text=auto eol=lf\n",
    ".editorconfig": "[*.gd]\nindent_style = tab\n",
    ".github/workflows/ci.yml": "jobs:\n  export:\n    steps:\n      - run: godot --export translation\n",
    "data/items.json": '{"translation": [0, 1], "rect_size": 3}\n',
    "data/table.csv": "keys,en\nHELLO,translation\n",
    "Player.cs": "using Godot;\npublic partial class Player : KinematicBody2D { public override void _Ready() {} }\n",
    "settings.cfg": "[display]\nwindow_title=\"x\"\n",
    "shaders/glow.gdshader": "shader_type canvas_item;\nvoid fragment() { COLOR = texture(TEXTURE, UV); }\n",
    "player.gd.uid": "uid://b1playerscr\n",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


async def test_only_godot_file_types_are_judged(service, kb_settings, tmp_path):
    _write(tmp_path, {"project.godot": PROJECT_4, "player.gd": PLAYER_4, **NOT_GODOT,
                      "addons/tool/plugin.cfg": '[plugin]\nname="Tool"\nscript="plugin.gd"\n',
                      "export_presets.cfg": '[preset.0]\nname="Linux"\nplatform="Linux/X11"\n'})
    report = await service.analyze(intake_directory(tmp_path, settings=kb_settings))
    judged = {c["source_file"] for c in report["chunks"]}
    assert judged == {"project.godot", "player.gd", "addons/tool/plugin.cfg", "export_presets.cfg"}
    excluded = {e["path"]: e["reason"] for e in report["excluded_files"]}
    for path in NOT_GODOT:
        assert "never judged" in excluded[path] or "not judged" in excluded[path], (path, excluded.get(path))
    assert "C#" in excluded["Player.cs"] and "ConfigFile" in excluded["settings.cfg"]
    assert report["verdict"]["label"] == "godot4", report["verdict"]["summary"]
    assert report["verdict"]["leftovers"] == []


async def test_godot4_project_with_stale_scene_and_unresolved_receivers_is_godot4(service, kb_settings, tmp_path):
    _write(tmp_path, {"project.godot": PROJECT_4, "player.gd": PLAYER_4, "paint.gd": PAINT_4,
                      "player.tscn": STALE_SCENE, ".gitignore": "*.translation\n"})
    report = await service.analyze(intake_directory(tmp_path, settings=kb_settings))
    v = report["verdict"]
    assert v["label"] == "godot4", v["summary"]
    assert "config_version=5" in v["basis"] and "player.gd" in v["godot4_files"]
    paint = [c for c in report["chunks"] if c["source_file"] == "paint.gd"]
    assert all(c["judgment"]["version_signal"] != "godot3" for c in paint), [c["judgment"] for c in paint]
    assert v["leftovers"] == []
    assert [n["source_file"] for n in v["notes"]] == ["player.tscn"] and "format=2" in v["notes"][0]["note"]
    assert v["migration_required"] is False


async def test_godot3_script_dropped_into_a_godot4_project_is_mixed(service, kb_settings, tmp_path):
    old = 'extends KinematicBody2D\n\nexport var speed = 200\nonready var sprite = $Sprite\n\n\n' \
          'func _physics_process(delta):\n\tmove_and_slide(Vector2.RIGHT * speed)\n'
    _write(tmp_path, {"project.godot": PROJECT_4, "player.gd": PLAYER_4, "legacy/enemy.gd": old})
    report = await service.analyze(intake_directory(tmp_path, settings=kb_settings))
    v = report["verdict"]
    assert v["label"] == "mixed", v["summary"]
    assert v["godot3_files"] == ["legacy/enemy.gd"]
    decisive = [c["judgment"]["strength"] for c in report["chunks"] if c["source_file"] == "legacy/enemy.gd"
                and c["judgment"]["version_signal"] == "godot3"]
    assert "decisive" in decisive


async def test_the_chunk_rate_is_measured_from_completed_runs(service, kb_settings, tmp_path):
    _write(tmp_path, {"project.godot": PROJECT_4, "player.gd": PLAYER_4})
    await service.analyze(intake_directory(tmp_path, settings=kb_settings))
    rate, runs = await service.store.chunk_rate("evidence", min_chunks=1)
    assert rate > 0 and runs >= 1
    assert await service.store.chunk_rate("no-such-judge") is None


async def test_a_godot4_scripts_own_method_named_like_a_godot3_callback_is_no_finding(service, kb_settings, tmp_path):
    """KoBeWi/Metroidvania-System's editors: `func drop_data(...)` next to `@tool` is their own method."""
    own = "@tool\nextends Control\n\n\nfunc drop_data(at_position: Vector2, data) -> void:\n\tprint(data)\n"
    static = "extends EditorPlugin\n\n\nstatic func get_plugin_name() -> String:\n\treturn \"x\"\n"
    _write(tmp_path, {"project.godot": PROJECT_4, "own.gd": own, "static.gd": static})
    report = await service.analyze(intake_directory(tmp_path, settings=kb_settings))
    signal = {(c["source_file"], c["chunk_kind"]): c["judgment"]["version_signal"] for c in report["chunks"]}
    assert signal[("own.gd", "function")] != "godot3" and signal[("static.gd", "function")] != "godot3"
    assert report["verdict"]["label"] == "godot4" and report["verdict"]["leftovers"] == []


def test_a_gdignore_folder_is_not_part_of_the_project(kb_settings, tmp_path):
    old = "extends Node\n\nexport var speed = 1\n"
    _write(tmp_path, {"project.godot": PROJECT_4, "player.gd": PLAYER_4, "tests/old/.gdignore": "",
                      "tests/old/legacy.gd": old})
    files = {f.path: f for f in intake_directory(tmp_path, settings=kb_settings).expansion.files}
    assert not files["tests/old/legacy.gd"].included
    assert files["tests/old/legacy.gd"].reason.startswith("Godot ignores this folder (.gdignore in tests/old/)")
    assert files["player.gd"].included


def test_a_gdignore_in_the_project_root_hides_nothing(kb_settings, tmp_path):
    """Godot reads the marker in the folders below the root only (LE-dialogue-editor ships one in its root)."""
    _write(tmp_path, {".gdignore": "", "project.godot": PROJECT_4, "player.gd": PLAYER_4, "addons/x/.gdignore": "",
                      "addons/x/old.gd": "extends Node\n"})
    files = {f.path: f for f in intake_directory(tmp_path, settings=kb_settings).expansion.files}
    assert files["player.gd"].included and files["project.godot"].included
    assert not files["addons/x/old.gd"].included
