"""Issue 16 at intake: special files, the chunk cap, listed-only assets, stdin bytes, redaction.

Each case sends the bad input and checks the refusal's message; where the input is accepted, that
nothing was dropped (every file listed with its reason).
"""

from __future__ import annotations

import io
import os
import socket
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from agent.intake import IntakeError, intake_directory, intake_snippet, intake_target, intake_uploads, intake_zip
from agent.intake.expand import files_summary
from agent.limits import check_chunk_cap, count_chunks, expected_time, larger_project_offer
from agent.redact import redact, user_message
from agent.settings import DEFAULT_MAX_CHUNKS, Settings

ONE_LINE_FUNCS = "extends Node\n" + "".join(f"func f{i}():\n\tpass\n" for i in range(50_000))
"""The issue's 1 MB paste: 50,000 one-line functions (50,001 chunks before the parser folded tiny pieces)."""
THREE_LINE_FUNCS = "extends Node\n" + "".join(f"func f{i}():\n\tvar a = {i}\n\treturn a\n" for i in range(13_000))
"""13,000 three-line functions: too big to fold, so 13,001 chunks, over the CLI's default cap."""


def _funcs(n: int) -> str:
    """`extends Node` and n three-line functions: n + 1 chunks (too big for the parser to fold)."""
    return "extends Node\n" + "".join(f"func f{i}():\n\tvar a = {i}\n\treturn a\n" for i in range(n))


def _within(seconds: float, fn, *args, **kwargs):
    """Run `fn` in a thread; fail (instead of hanging the suite) if it has not returned in time."""
    out: dict = {}

    def target() -> None:
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn.__name__} still running after {seconds} s (blocked on a read?)"
    if "error" in out:
        raise out["error"]
    return out["value"]


# ---- item 4: only regular files are read -------------------------------------------------------


def test_fifo_socket_and_device_in_a_folder_are_listed_not_read(base_settings, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "main.gd").write_text("extends Node\n")
    os.mkfifo(d / "pipe.gd")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "sock.gd"))
    try:
        r = _within(30, intake_directory, d, settings=base_settings)
    finally:
        sock.close()
    files = {f.path: f for f in r.expansion.files}
    assert set(files) == {"main.gd", "pipe.gd", "sock.gd"}  # nothing dropped silently
    assert files["main.gd"].included
    assert not files["pipe.gd"].included and "named pipe (FIFO)" in files["pipe.gd"].reason
    assert not files["sock.gd"].included and "socket" in files["sock.gd"].reason
    assert files["pipe.gd"].text is None


def test_a_fifo_or_device_as_the_target_is_refused_at_once(base_settings, tmp_path):
    os.mkfifo(tmp_path / "pipe.gd")
    with pytest.raises(IntakeError, match=r"named pipe \(FIFO\): not a regular file"):
        _within(30, intake_target, str(tmp_path / "pipe.gd"), settings=base_settings)
    with pytest.raises(IntakeError, match="character device"):
        _within(30, intake_target, "/dev/zero", settings=base_settings)


def test_a_file_swapped_for_a_fifo_after_the_walk_is_not_read(base_settings, tmp_path):
    from agent.intake.local import directory_entries

    (tmp_path / "a.gd").write_text("extends Node\n")
    (entry,) = directory_entries(tmp_path, base_settings, what="x")
    (tmp_path / "a.gd").unlink()
    os.mkfifo(tmp_path / "a.gd")
    with pytest.raises(IntakeError, match="stopped being a regular file"):
        _within(30, entry.read)


def test_reads_are_bounded_by_the_file_limit(base_settings, tmp_path):
    from agent.intake.local import read_regular

    (tmp_path / "big.gd").write_bytes(b"x" * 10_000)
    assert len(read_regular(tmp_path / "big.gd", 100)) == 101  # never more than the limit + 1


# ---- item 9: assets only listed do not count toward max_files ----------------------------------


def test_2500_pngs_and_one_script_are_accepted(base_settings, tmp_path):
    for i in range(2500):
        (tmp_path / f"sprite_{i}.png").write_bytes(b"\x89PNG")
    (tmp_path / "main.gd").write_text("extends Node\n")
    r = intake_directory(tmp_path, settings=base_settings)
    assert [f.path for f in r.expansion.included] == ["main.gd"]
    assert len(r.expansion.excluded) == 2500
    assert all("bytes never read" in f.reason for f in r.expansion.excluded)
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as zf:
        for i in range(2500):
            zf.writestr(f"art/sprite_{i}.png", b"\x89PNG")
        zf.writestr("main.gd", "extends Node\n")
    z = intake_zip(data.getvalue(), name="game.zip", settings=base_settings)
    assert [f.path for f in z.expansion.included] == ["main.gd"] and len(z.expansion.excluded) == 2500


def test_analysed_files_still_count_and_listing_has_its_own_limit(base_settings, tmp_path):
    for i in range(5):
        (tmp_path / f"s{i}.gd").write_text("extends Node\n")
    for i in range(20):
        (tmp_path / f"a{i}.png").write_bytes(b"x")
    with pytest.raises(IntakeError, match="5 files to analyse is over the limit of 4 files"):
        intake_directory(tmp_path, settings=base_settings.with_(max_files=4))
    with pytest.raises(IntakeError, match="lists 25 files, over the limit of 10 files listed"):
        intake_directory(tmp_path, settings=base_settings.with_(max_listed_files=10))
    assert len(intake_directory(tmp_path, settings=base_settings.with_(max_files=5)).expansion.files) == 25


def test_summary_line_never_ends_with_an_empty_list(base_settings, tmp_path):
    (tmp_path / "main.gd").write_text("extends Node\n")
    r = intake_directory(tmp_path, settings=base_settings)
    assert files_summary(r.expansion) == "1 file(s) included, 0 excluded"
    for i in range(12):
        (tmp_path / f"a{i}.png").write_bytes(b"x")
    line = files_summary(intake_directory(tmp_path, settings=base_settings).expansion)
    assert line.startswith("1 file(s) included, 12 excluded: a0.png (binary asset")
    assert line.endswith(", and 2 more")


# ---- item 2: the chunk cap ---------------------------------------------------------------------


def test_the_issue_paste_folds_under_the_cap(base_settings):
    """The parser folds runs of tiny functions, so the issue's paste is now a bounded, accepted run."""
    result = intake_snippet(ONE_LINE_FUNCS, settings=base_settings)
    assert result is not None


def test_a_paste_over_the_cap_is_refused_with_the_count_and_the_limit(base_settings):
    with pytest.raises(IntakeError) as err:
        intake_snippet(THREE_LINE_FUNCS, settings=base_settings)
    msg = str(err.value)
    assert f"it makes 13,001 chunks, over the limit of {DEFAULT_MAX_CHUNKS['cli']:,} chunks per run" in msg
    assert "GODOT_RAG_MAX_CHUNKS" in msg and "godot-rag analyze" not in msg  # the CLI offers no other door


def test_the_cli_takes_a_10000_chunk_project(base_settings):
    assert DEFAULT_MAX_CHUNKS["cli"] >= 10_000
    assert count_chunks(intake_snippet(_funcs(9_999), settings=base_settings).expansion)[0] == 10_000


def test_the_chat_and_the_bot_offer_the_cli_for_a_larger_project(base_settings):
    code = _funcs(DEFAULT_MAX_CHUNKS["ui"])
    for door in ("ui", "bot"):
        with pytest.raises(IntakeError) as err:
            intake_snippet(code, settings=base_settings.with_(front_door=door))
        assert "run the whole project from the command line" in str(err.value)
        assert f"up to {DEFAULT_MAX_CHUNKS['cli']:,} chunks: `godot-rag analyze" in str(err.value)
    offer = larger_project_offer(base_settings.with_(front_door="ui"), "https://github.com/o/r", 3_000)
    assert offer.endswith("`godot-rag analyze https://github.com/o/r`.")


def test_the_expected_time_follows_the_measured_rate():
    assert expected_time(6_000, (16.0, 5)) == \
        "6,000 chunks to judge: about 6 minutes at the measured 16 chunks/s (last 5 runs on this machine)"
    assert "about 30 s" in expected_time(480, (16.0, 1)) and "last 1 run on" in expected_time(480, (16.0, 1))
    assert "no time estimate" in expected_time(10, None)

def test_each_front_door_has_its_own_default_cap(base_settings):
    assert DEFAULT_MAX_CHUNKS["bot"] < DEFAULT_MAX_CHUNKS["ui"] < DEFAULT_MAX_CHUNKS["cli"]
    code = _funcs(DEFAULT_MAX_CHUNKS["ui"])  # one chunk over the web chat's cap
    accepted = intake_snippet(code, settings=base_settings.with_(front_door="cli"))
    assert count_chunks(accepted.expansion)[0] == DEFAULT_MAX_CHUNKS["ui"] + 1
    for door in ("ui", "bot"):
        with pytest.raises(IntakeError, match=f"over the limit of {DEFAULT_MAX_CHUNKS[door]:,} chunks"):
            intake_snippet(code, settings=base_settings.with_(front_door=door))


def test_every_front_door_entry_applies_the_cap(base_settings, tmp_path):
    settings = base_settings.with_(max_chunks=50)
    code = _funcs(60)
    with pytest.raises(IntakeError, match="61 chunks, over the limit of 50"):
        intake_uploads([("a.gd", code.encode())], settings=settings)
    (tmp_path / "p").mkdir()
    for name in ("a.gd", "b.gd", "c.gd"):
        (tmp_path / "p" / name).write_text(_funcs(30))
    with pytest.raises(IntakeError, match=r"at least 62 chunks \(2 of 3 files read\), over the limit of 50"):
        intake_directory(tmp_path / "p", settings=settings)
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as zf:
        zf.writestr("a.gd", code)
    with pytest.raises(IntakeError, match="over the limit of 50 chunks"):
        intake_zip(data.getvalue(), name="a.zip", settings=settings)
    ok = intake_snippet(_funcs(49), settings=settings)  # 50 chunks: at the cap is accepted
    assert count_chunks(ok.expansion) == (50, 1)
    assert check_chunk_cap(ok.expansion, settings, what="x") == 50


def test_the_cap_comes_from_the_environment_and_the_front_door(monkeypatch):
    monkeypatch.delenv("GODOT_RAG_MAX_CHUNKS", raising=False)
    s = Settings.from_env()
    assert (s.chunk_limit, s.with_(front_door="ui").chunk_limit, s.with_(front_door="bot").chunk_limit) == (
        DEFAULT_MAX_CHUNKS["cli"], DEFAULT_MAX_CHUNKS["ui"], DEFAULT_MAX_CHUNKS["bot"]
    )
    monkeypatch.setenv("GODOT_RAG_MAX_CHUNKS", "300")
    s = Settings.from_env()
    assert s.chunk_limit == 300 and s.with_(front_door="bot").chunk_limit == 300
    for bad in ("0", "-5", "many"):
        monkeypatch.setenv("GODOT_RAG_MAX_CHUNKS", bad)
        with pytest.raises(ValueError, match="GODOT_RAG_MAX_CHUNKS"):
            Settings.from_env()


# ---- item 5: bytes on stdin --------------------------------------------------------------------


def test_non_utf8_stdin_is_refused_like_the_same_file(base_settings, monkeypatch, tmp_path):
    raw = b"extends Node\n#caf\xe9\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    with pytest.raises(IntakeError, match=r"Refused stdin: not valid UTF-8 text \(bad byte at offset 17\)"):
        intake_target("-", settings=base_settings)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x" * 101), encoding="utf-8"))
    with pytest.raises(IntakeError, match="over the file size limit of 100 bytes"):
        intake_target("-", settings=base_settings.with_(max_file_bytes=100))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("extends Node\n# café\n".encode()), encoding="utf-8"))
    assert intake_target("-", settings=base_settings).expansion.included[0].text == "extends Node\n# café\n"


# ---- items 3 and 9: what is echoed back --------------------------------------------------------


TOKEN = "ghp_" + "A1b2C3d4" * 5


@pytest.mark.parametrize(
    "url",
    [
        "https://user:hunter22@github.com/a/b",
        f"https://{TOKEN}@github.com/a/b",
        f"https://x-access-token:{TOKEN}@github.com/a/b/tree/main",
    ],
)
def test_credentials_never_appear_in_a_refusal(base_settings, url):
    with pytest.raises(IntakeError) as err:
        intake_target(url, settings=base_settings)
    msg = str(err.value)
    assert "credentials in URLs are not accepted" in msg
    assert "hunter22" not in msg and TOKEN not in msg and "***@github.com/a/b" in msg


def test_a_10kb_url_is_not_echoed_in_full(base_settings):
    url = "https://github.com/a/b/tree/main/" + "x" * 10_000
    with pytest.raises(IntakeError) as err:
        intake_target(url + "?q=1", settings=base_settings)
    msg = str(err.value)
    assert len(msg) < 400 and "(10," in msg and "characters)" in msg


def test_redact_masks_secrets_and_keeps_the_rest():
    assert redact("see https://u:p4ss@github.com/a/b now") == "see https://***@github.com/a/b now"
    assert redact(f"token {TOKEN} here") == "token *** here"
    assert redact("host=db password=s3cret user=x") == "host=db password=*** user=x"
    assert redact("postgresql://godot:pw@db:5432/x failed", ["postgresql://godot:pw@db:5432/x"]) == "*** failed"
    assert redact("plain words stay as they are") == "plain words stay as they are"
    assert user_message(IntakeError("bad")) == "bad"
