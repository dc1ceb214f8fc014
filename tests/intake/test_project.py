"""Projects from a folder, uploads and zips: decisions with reasons, limits, and hostile input."""

from __future__ import annotations

import io
import os
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from agent.intake import IntakeError, intake_directory, intake_target, intake_uploads, intake_zip
from agent.parse import chunk_project

PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "small_project"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The fixture project plus editor caches (not committed: the fixture's .gitignore hides them)."""
    dest = tmp_path / "coin_chase"
    shutil.copytree(PROJECT, dest)
    (dest / ".godot" / "imported").mkdir(parents=True)
    (dest / ".godot" / "imported" / "icon.png-abc.ctex").write_bytes(b"GST2\x00\x01")
    (dest / ".import").mkdir()
    (dest / ".import" / "old.stex").write_bytes(b"\x00")
    return dest


def _zip(files: dict[str, bytes], *, symlinks: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return buf.getvalue()


def test_small_project_directory(base_settings, project):
    r = intake_directory(project, prompt="check", settings=base_settings)
    files = {f.path: f for f in r.expansion.files}
    assert [f.path for f in r.expansion.files] == sorted(files)
    included = {p for p, f in files.items() if f.included}
    assert included == {
        "art/icon.png.import",
        "project.godot",
        "scenes/coin.tscn",
        "scenes/main.tscn",
        "scenes/player.tscn",
        "scripts/coin.gd",
        "scripts/player.gd",
        "scripts/score.gd",
    }
    assert "never judged" in files[".gitignore"].reason and "never judged" in files["scripts/coin.gd.uid"].reason
    assert "Documentation files are excluded" in files["README.md"].reason
    assert "binary asset" in files["art/icon.png"].reason and files["art/icon.png"].text is None
    assert "binary asset" in files["art/pickup.wav"].reason and files["art/pickup.wav"].size > 0
    assert "cache" in files[".godot/"].reason and "cache" in files[".import/"].reason
    assert r.request.source_origin == "local_directory" and r.request.source_kind == "unknown"
    chunks = chunk_project(r.expansion, project_id=r.request.project_id)
    assert [c.chunk_order for c in chunks] == list(range(len(chunks)))
    assert {c.source_file for c in chunks} == included
    assert "scripts/player.gd:function:_physics_process" in {c.chunk_id for c in chunks}
    # the `# path` view maps every content line back to its file line
    header_lines = [i for i, m in enumerate(r.expansion.line_map) if m is None]
    text_lines = r.expansion.expanded_text.split("\n")
    assert all(text_lines[i] == "" or text_lines[i].startswith("# ") for i in header_lines)
    # same content, same project id, wherever it lives
    assert intake_directory(project, settings=base_settings).request.project_id == r.request.project_id


def test_zip_upload_matches_directory(base_settings, project):
    files = {
        f"coin_chase/{p.relative_to(project).as_posix()}": p.read_bytes()
        for p in sorted(project.rglob("*"))
        if p.is_file()
    }
    data = _zip(files)
    r = intake_zip(data, name="coin_chase.zip", settings=base_settings)
    d = intake_directory(project, settings=base_settings)
    assert r.request.project_id == d.request.project_id  # the single top folder is stripped
    assert r.request.source_origin == "uploaded_zip"
    via_uploads = intake_uploads([("coin_chase.zip", data)], settings=base_settings)
    assert via_uploads.request.project_id == d.request.project_id
    mixed = intake_uploads(
        [("extra.gd", b"extends Node\n"), ("coin_chase.zip", data)], settings=base_settings
    )
    assert "coin_chase/scripts/player.gd" in {f.path for f in mixed.expansion.included}


def test_single_file_upload_and_target_dispatch(base_settings, project, tmp_path):
    r = intake_uploads(
        [("player.gd", (project / "scripts" / "player.gd").read_bytes())], settings=base_settings
    )
    assert r.request.source_origin == "uploaded_file" and r.request.source_kind == "gdscript"
    assert r.request.source_sha256 == r.expansion.included[0].sha256
    assert intake_target(str(project), settings=base_settings).request.source_origin == "local_directory"
    assert (
        intake_target(str(project / "project.godot"), settings=base_settings).request.source_kind
        == "project_config"
    )
    assert (
        intake_target("-", settings=base_settings, stdin_text="extends Node\n").request.source_origin
        == "pasted_snippet"
    )
    with pytest.raises(IntakeError, match="not a file, a directory"):
        intake_target(str(tmp_path / "missing"), settings=base_settings)


def test_invalid_utf8_and_nul_files_are_excluded_with_reason(base_settings):
    r = intake_uploads(
        [
            ("good.gd", b"extends Node\n"),
            ("bad.gd", b"extends Node\n\xff\xfe\n"),
            ("nul.tscn", b"[gd_scene]\x00"),
        ],
        settings=base_settings,
    )
    files = {f.path: f for f in r.expansion.files}
    assert "not valid UTF-8" in files["bad.gd"].reason and not files["bad.gd"].included
    assert "NUL" in files["nul.tscn"].reason
    with pytest.raises(IntakeError, match="not valid UTF-8"):
        intake_uploads([("bad.gd", b"\xff\xfe\xfa")], settings=base_settings)


def test_twenty_megabyte_file(base_settings, tmp_path):
    big = b"var x = 1\n" * 2_100_000  # ~21 MB
    with pytest.raises(IntakeError, match="file size limit of 2,000,000 bytes"):
        intake_uploads([("big.gd", big)], settings=base_settings)
    (tmp_path / "big.gd").write_bytes(big)
    (tmp_path / "small.gd").write_bytes(b"extends Node\n")
    r = intake_directory(tmp_path, settings=base_settings)
    reason = next(f.reason for f in r.expansion.files if f.path == "big.gd")
    assert "file size limit of 2,000,000 bytes" in reason and "21,000,000" in reason
    with pytest.raises(IntakeError, match="file size limit"):
        intake_target(str(tmp_path / "big.gd"), settings=base_settings)


def test_five_thousand_files(base_settings, tmp_path):
    for i in range(5000):
        (tmp_path / f"f{i}.gd").write_bytes(b"")
    with pytest.raises(IntakeError, match="5,000 files to analyse is over the limit of 2,000"):
        intake_directory(tmp_path, settings=base_settings)
    data = _zip({f"f{i}.gd": b"" for i in range(5000)})
    with pytest.raises(IntakeError, match="over the limit of 2,000 files"):
        intake_zip(data, name="many.zip", settings=base_settings)
    with pytest.raises(IntakeError, match="over the limit"):
        intake_uploads([(f"f{i}.gd", b"") for i in range(5000)], settings=base_settings)


def test_zip_slip_and_absolute_paths_refused(base_settings):
    for name in ("../evil.gd", "a/../../evil.gd", "/etc/passwd", "C:\\win.gd", "..\\evil.gd"):
        with pytest.raises(IntakeError, match="zip-slip|absolute path"):
            intake_zip(_zip({"ok.gd": b"extends Node\n", name: b"x"}), name="x.zip", settings=base_settings)


def test_zip_bomb_refused_by_declared_and_actual_size(base_settings):
    settings = base_settings.with_(max_total_bytes=1_000_000)
    bomb = _zip({"a.gd": b"\n" * 3_000_000})
    with pytest.raises(IntakeError, match="total size limit of 1,000,000"):
        intake_zip(bomb, name="bomb.zip", settings=settings)
    # a header that lies about its size: patch the declared size of the only entry down to 10 bytes
    data = bytearray(_zip({"a.gd": b"var x = 1\n" * 5000}))
    for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(sig)
        data[at + off : at + off + 4] = (10).to_bytes(4, "little")
    with pytest.raises(IntakeError, match="zip bomb|cannot be read"):
        intake_zip(bytes(data), name="liar.zip", settings=base_settings)


def test_zip_symlink_entries_are_not_followed(base_settings):
    data = _zip({"a.gd": b"extends Node\n"}, symlinks={"link.gd": "/etc/passwd"})
    r = intake_zip(data, name="links.zip", settings=base_settings)
    link = next(f for f in r.expansion.files if f.path == "link.gd")
    assert not link.included and "symbolic link" in link.reason and link.text is None


def test_not_a_zip(base_settings):
    with pytest.raises(IntakeError, match="not a readable zip"):
        intake_zip(b"PK\x03\x04garbage", name="broken.zip", settings=base_settings)
    with pytest.raises(IntakeError, match="empty"):
        intake_zip(b"", name="empty.zip", settings=base_settings)


def test_symlink_escape_in_directory(base_settings, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.gd").write_text("var token = 'x'\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "main.gd").write_text("extends Node\n")
    os.symlink(outside / "secret.gd", proj / "linked.gd")
    os.symlink(outside, proj / "linked_dir")
    r = intake_directory(proj, settings=base_settings)
    files = {f.path: f for f in r.expansion.files}
    assert not files["linked.gd"].included and "symbolic link" in files["linked.gd"].reason
    assert not files["linked_dir"].included
    assert "secret" not in r.expansion.expanded_text
    assert all(not p.startswith("linked_dir/") for p in files)
    os.symlink(proj, tmp_path / "proj_link")
    with pytest.raises(IntakeError, match="symbolic link|not a directory"):
        intake_target(str(tmp_path / "proj_link"), settings=base_settings)


def test_nothing_to_analyse(base_settings, tmp_path):
    (tmp_path / "README.md").write_text("# hi\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG")
    with pytest.raises(IntakeError, match="Nothing to analyse.*Documentation files"):
        intake_directory(tmp_path, settings=base_settings)
