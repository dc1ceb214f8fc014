"""`godot-rag migrate`: a migrated copy or a patch, never in place; clear errors that lose nothing."""

from __future__ import annotations

import json

from tests.cli.helpers import cli_env, run_cli
from tests.migrate.test_script import PLAYER


def _project(root):
    root.mkdir()
    (root / "player.gd").write_text(PLAYER)
    (root / "project.godot").write_text("config_version=4\n\n[application]\nconfig/name=\"P\"\n")
    return root


def test_migrate_writes_a_copy_and_a_patch_and_leaves_the_project_as_it_was(kb_settings, tmp_path):
    src = _project(tmp_path / "game")
    env = cli_env(kb_settings)
    done = run_cli("migrate", str(src), "--out", str(tmp_path / "out"), "--format", "json", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)["summary"]
    assert summary["files_changed"] == 2 and summary["todos"] == 0
    assert "extends CharacterBody2D" in (tmp_path / "out" / "player.gd").read_text()
    assert "config_version=5" in (tmp_path / "out" / "project.godot").read_text()
    assert (src / "player.gd").read_text() == PLAYER  # never in place
    done = run_cli("migrate", str(src), "--patch", str(tmp_path / "p.diff"), env=env)
    assert done.returncode == 0 and "2 file(s) changed" in done.stdout
    patch = (tmp_path / "p.diff").read_text()
    assert "--- a/player.gd" in patch and "+extends CharacterBody2D" in patch and "# godot-rag: player.gd lines" in patch


def test_migrate_refuses_to_write_over_anything(kb_settings, tmp_path):
    src = _project(tmp_path / "game")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    (tmp_path / "p.diff").write_text("mine")
    env = cli_env(kb_settings)
    for args in (("--out", str(tmp_path / "full")), ("--patch", str(tmp_path / "p.diff"))):
        done = run_cli("migrate", str(src), *args, env=env)
        assert done.returncode == 2 and "nothing is written over" in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine" and (tmp_path / "p.diff").read_text() == "mine"


def test_migrate_needs_a_destination_and_a_real_target(kb_settings, tmp_path):
    env = cli_env(kb_settings)
    assert run_cli("migrate", str(tmp_path), env=env).returncode == 2  # neither --out nor --patch
    done = run_cli("migrate", str(tmp_path / "nope"), "--patch", "-", env=env)
    assert done.returncode == 2 and "nope" in done.stderr and "Traceback" not in done.stderr
