"""Every CLI failure is one clear stderr line, one JSON object with `--format json`, and exit 2.

None of these needs a database: each bad input is refused before one is opened (or the database
is the bad input). Nothing is lost: an existing output file is left as it was.
"""

from __future__ import annotations

import os

import pytest

from tests.cli.helpers import SECRET, UNREACHABLE_DB, assert_clear_failure, cli_env, one_json, run_cli

TOKEN = "ghp_" + "Z9y8X7w6" * 5


def test_non_utf8_stdin_is_a_clear_error():
    done = run_cli("analyze", "-", "--format", "json", env=cli_env(), stdin=b"extends Node\n#caf\xe9\n")
    assert_clear_failure(done, code=2, error="bad_input", needle="Refused stdin: not valid UTF-8 text")


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        (f"https://user:{SECRET}@github.com/a/b", "credentials in URLs are not accepted"),
        (f"https://{TOKEN}@github.com/a/b", "credentials in URLs are not accepted"),
        ("https://github.com:22/a/b", "port 22 is not accepted"),
    ],
)
def test_refused_urls_are_redacted_on_stderr_and_in_json(url, needle):
    done = run_cli("analyze", url, "--format", "json", env=cli_env())
    obj = assert_clear_failure(done, code=2, error="bad_input", needle=needle)
    for text in (done.stderr, done.stdout):
        assert SECRET not in text and TOKEN not in text
    assert "is not github.com" not in obj["reason"]


def test_a_10kb_url_is_not_echoed_back():
    url = "https://github.com/a/b/tree/main/" + "x" * 10_000 + "?q=1"
    done = run_cli("analyze", url, env=cli_env())
    assert done.returncode == 2 and "query strings" in done.stderr
    assert len(done.stderr) < 500 and "x" * 300 not in done.stderr


def test_a_missing_target_in_json_mode_prints_the_failure_object(tmp_path):
    done = run_cli("analyze", str(tmp_path / "nope"), "--format", "json", env=cli_env())
    assert_clear_failure(done, code=2, error="bad_input", needle="is not a file, a directory")


def test_a_fifo_target_is_refused_without_hanging(tmp_path):
    os.mkfifo(tmp_path / "pipe.gd")
    done = run_cli("analyze", str(tmp_path / "pipe.gd"), "--format", "json", env=cli_env(), timeout=60)
    assert_clear_failure(done, code=2, error="bad_input", needle="named pipe (FIFO)")


@pytest.mark.parametrize("value", ["-1", "0", "many"])
def test_runs_limit_must_be_positive(value):
    done = run_cli("runs", "--limit", value, "--format", "json", env=cli_env())
    assert_clear_failure(done, code=2, error="usage", needle="argument --limit: must be")
    assert "usage: godot-rag runs" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("runs", "--format", "json"),
        ("show", "some-run", "--format", "json"),
        ("resume", "some-run", "--format", "json"),
        ("analyze", "-", "--format", "json"),
    ],
)
def test_an_unreachable_database_is_a_clear_error_without_the_secret(args):
    env = cli_env(GODOT_RAG_DATABASE_URL=UNREACHABLE_DB)
    done = run_cli(*args, env=env, stdin="extends Node\n", timeout=120)
    obj = assert_clear_failure(done, code=2, error="database", needle="the database cannot be used")
    assert "GODOT_RAG_DATABASE_URL" in obj["reason"]
    assert SECRET not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) <= 2  # one message (plus the empty-KB note at most)


def test_export_out_into_a_missing_folder_or_onto_a_directory(tmp_path):
    env = cli_env(GODOT_RAG_DATABASE_URL=UNREACHABLE_DB)  # refused before the database is even tried
    done = run_cli("export", "r1", "--out", str(tmp_path / "no" / "such" / "r1.jsonl"), env=env)
    assert done.returncode == 2 and "the folder" in done.stderr and "does not exist" in done.stderr
    assert not (tmp_path / "no").exists()
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "keep.txt").write_text("mine")
    done = run_cli("export", "r1", "--out", str(tmp_path / "dir"), env=env)
    assert done.returncode == 2 and "it is a directory" in done.stderr and "Traceback" not in done.stderr
    assert [p.name for p in (tmp_path / "dir").iterdir()] == ["keep.txt"]
    existing = tmp_path / "old.jsonl"
    existing.write_text("precious\n")
    done = run_cli("export", "r1", "--out", str(existing), env=env)
    assert done.returncode == 2 and "the database cannot be used" in done.stderr
    assert existing.read_text() == "precious\n"  # a failed export never truncates what was there


def test_a_malformed_ui_user_list_is_refused_at_start():
    for users, needle in (
        ("alice", "entries must look like name:password"),
        ("bob:sha256:zz", "must be 64 hex digits"),
    ):
        done = run_cli("ui", "--port", "1", env=cli_env(GODOT_RAG_UI_USERS=users), timeout=60)
        assert done.returncode == 2, done.stderr[-2000:]
        assert needle in done.stderr and "Traceback" not in done.stderr


def test_usage_errors_in_text_mode_print_no_json():
    done = run_cli("runs", "--limit", "-1", env=cli_env())
    assert done.returncode == 2 and done.stdout == "" and "must be at least 1" in done.stderr


def test_json_failure_shape_is_stable():
    done = run_cli("analyze", "-", "--format", "json", env=cli_env(), stdin="")
    obj = one_json(done.stdout)
    assert set(obj) == {"status", "error", "reason", "run_id", "exit_code"} and obj["run_id"] is None


def test_a_malformed_setting_is_bad_input_not_a_crash():
    done = run_cli("analyze", "-", "--format", "json", env=cli_env(GODOT_RAG_MAX_CHUNKS="0"), stdin="extends Node\n")
    assert_clear_failure(done, code=2, error="config", needle="GODOT_RAG_MAX_CHUNKS must be a whole number of at least 1")
