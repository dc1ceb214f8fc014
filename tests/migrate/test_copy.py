"""A migrated copy that opens in Godot 4: every input file, shaders in Godot 4's language, scenes and scripts
from the same facts, instanced nodes renamed, and a patch that gives exactly the copy."""

from __future__ import annotations

import json
import subprocess
import zipfile

from tests.cli.helpers import cli_env, run_cli

PNG = b"\x89PNG\r\n\x1a\n\x00binary\x00"
SHADER = ("shader_type canvas_item;\nuniform vec4 tint : hint_color;\nvoid fragment() {\n"
          "\tCOLOR = texture(SCREEN_TEXTURE, SCREEN_UV) * tint; // WORLD_MATRIX in a comment stays\n}")


def _project(root):
    files = {
        "project.godot": 'config_version=4\n\n[application]\nconfig/name="P"\n',
        "main.gd": 'extends Label\n\nfunc _ready():\n\tpercent_visible = 0.5\n\tvar s = preload("res://fx/glow.shader")\n',
        "main.tscn": ('[gd_scene load_steps=3 format=2]\n\n[ext_resource path="res://fx/glow.shader" type="Shader" id=1]\n'
                      '[ext_resource path="res://dialog.tscn" type="PackedScene" id=2]\n\n'
                      '[sub_resource type="ShaderMaterial" id=1]\nshader = ExtResource( 1 )\n\n'
                      '[node name="Root" type="Label"]\npercent_visible = 0.5\nmaterial = SubResource( 1 )\n\n'
                      '[node name="Exit" parent="." instance=ExtResource( 2 )]\nmargin_left = 10.0\n'),
        "dialog.tscn": '[gd_scene format=2]\n\n[node name="Dialog" type="Panel"]\nmargin_right = 5.0\n',
        "fx/glow.shader": SHADER,
        "README.md": "# P\n",
        ".gitignore": ".import/\n",
        "screenshots/.gdignore": "",
        "screenshots/shot.png": PNG,
        "art/icon.png": PNG,
        ".import/icon.png-abc.stex": b"cache",
    }
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data if isinstance(data, bytes) else data.encode())
    return files


def test_the_copy_holds_every_file_and_godot4_shaders_scenes_and_scripts(kb_settings, tmp_path):
    src = tmp_path / "game"
    files = _project(src)
    done = run_cli("migrate", str(src), "--out", str(tmp_path / "out"), "--format", "json", env=cli_env(kb_settings))
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "out"
    result = json.loads(done.stdout)
    actions = {c["path"]: c for c in result["manifest"]}
    for path, data in files.items():
        if path.startswith(".import/"):
            assert not (out / path).exists() and actions[".import/"]["action"] == "left_out"
            continue
        assert path in actions, path
        if actions[path]["action"] == "copied":
            assert (out / path).read_bytes() == (data if isinstance(data, bytes) else data.encode()), path
    assert not (out / "fx/glow.shader").exists() and actions["fx/glow.shader"]["new_path"] == "fx/glow.gdshader"
    shader = (out / "fx/glow.gdshader").read_text()
    assert "uniform vec4 tint : source_color;" in shader and "texture(screen_texture, SCREEN_UV)" in shader
    assert "uniform sampler2D screen_texture : hint_screen_texture" in shader and "// WORLD_MATRIX in a comment" in shader
    scene = (out / "main.tscn").read_text()
    assert 'path="res://fx/glow.gdshader"' in scene and "visible_ratio = 0.5" in scene
    assert "offset_left = 10.0" in scene  # an instanced Panel's margins: its root type's renames
    script = (out / "main.gd").read_text()
    assert "\tvisible_ratio = 0.5\n" in script and 'preload("res://fx/glow.gdshader")' in script
    assert "copy:" in run_cli("migrate", str(src), "--out", str(tmp_path / "o2"), env=cli_env(kb_settings)).stdout


def test_the_patch_applies_and_gives_the_copy(kb_settings, tmp_path):
    src = tmp_path / "game"
    _project(src)
    env = cli_env(kb_settings)
    assert run_cli("migrate", str(src), "--out", str(tmp_path / "out"), env=env).returncode == 0
    assert run_cli("migrate", str(src), "--patch", str(tmp_path / "p.diff"), env=env).returncode == 0
    patch = (tmp_path / "p.diff").read_bytes()
    for tool in (["git", "apply"], ["patch", "-p1", "--quiet"]):
        tree = tmp_path / f"tree-{tool[0]}"
        subprocess.run(["cp", "-r", str(src), str(tree)], check=True)
        if tool[0] == "git":
            subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
            subprocess.run(["git", "apply", "--check"], cwd=tree, input=patch, check=True)
        subprocess.run(tool, cwd=tree, input=patch, check=True)
        got = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*")
               if p.is_file() and not p.relative_to(tree).parts[0] in (".git", ".import")}
        want = {p.relative_to(tmp_path / "out").as_posix(): p.read_bytes() for p in (tmp_path / "out").rglob("*")
                if p.is_file()}
        assert got == want, tool


def test_a_zip_gives_the_same_copy(kb_settings, tmp_path):
    src = tmp_path / "game"
    files = _project(src)
    with zipfile.ZipFile(tmp_path / "game.zip", "w") as z:
        for path in files:
            z.write(src / path, f"game/{path}")
    done = run_cli("migrate", str(tmp_path / "game.zip"), "--out", str(tmp_path / "out"), env=cli_env(kb_settings))
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "out/art/icon.png").read_bytes() == PNG and (tmp_path / "out/fx/glow.gdshader").is_file()
    assert (tmp_path / "out/screenshots/.gdignore").is_file() and not (tmp_path / "out/.import").exists()


def test_without_a_knowledge_base_migrate_warns_and_says_the_result_is_partial(empty_db, tmp_path):
    src = tmp_path / "game"
    _project(src)
    done = run_cli("migrate", str(src), "--out", str(tmp_path / "out"), env=cli_env(empty_db))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "knowledge base is empty" in done.stderr and "partial:" in done.stdout
