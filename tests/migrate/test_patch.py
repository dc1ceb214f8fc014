"""The patch a migration writes applies with `git apply` and `patch -p1`, and gives exactly the migrated copy."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent.migrate import migrate_files
from agent.migrate.patch import migrated_files, unified_diff


def _tree(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode())


def test_a_patch_of_files_without_a_final_newline_applies_with_git_and_patch(kb, tmp_path):
    originals = {
        "a.gd": "extends Node\n\nfunc compare(v):\n\treturn .compare(v)",  # no newline at the end
        "sub/b.gd": "extends Node\nonready var x = $X\n",
        "c.gd": "extends Node\nfunc f():\n\tyield(get_tree(), \"idle_frame\")\n\tprint(1)",
    }
    migration = migrate_files(originals, kb)
    diff = unified_diff(migration, originals)
    assert "\\ No newline at end of file\n" in diff
    assert not any(line.startswith("-") and "+" in line[1:] and "super" in line for line in diff.split("\n"))
    expected = migrated_files(migration, originals)
    for tool in (["git", "apply", "-p1"], ["patch", "-p1", "--quiet"]):
        root = tmp_path / tool[0]
        root.mkdir()
        _tree(root, originals)
        if tool[0] == "git":
            subprocess.run(["git", "init", "-q"], cwd=root, check=True)
            subprocess.run(["git", "apply", "--check", "-p1"], cwd=root, input=diff.encode(), check=True)
        subprocess.run(tool, cwd=root, input=diff.encode(), check=True)
        got = {p: (root / p).read_bytes().decode() for p in expected}
        assert got == expected, tool


def test_a_line_separator_inside_a_string_is_no_line_break_for_the_patch(kb, tmp_path):
    originals = {"a.gd": 'extends Node\nfunc f():\n\tprint("a\u2028b\rc")\n\tyield(get_tree(), "idle_frame")\n'}
    migration = migrate_files(originals, kb)
    diff = unified_diff(migration, originals)
    root = tmp_path / "t"
    root.mkdir()
    _tree(root, originals)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "apply"], cwd=root, input=diff.encode(), check=True)
    assert (root / "a.gd").read_bytes().decode() == migrated_files(migration, originals)["a.gd"]
