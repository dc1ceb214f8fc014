"""Golden test: the full `godot-rag analyze --format json` output, byte for byte.

Each case runs the real CLI entry point (`agent.cli.main`) in-process on the session's KB
database and compares stdout with `tests/golden/<case>.json` after normalising what changes
from run to run: timestamps and the temporary folder a project was written to. Run ids are
fixed with `--run-id`. Verdicts, per-chunk judgments, evidence ids, scores and spans are
pinned exactly, so a refactor that changes any of them fails here.

`GODOT_RAG_UPDATE_GOLDEN=1` rewrites the files (after an intended change; say why in the commit).
The knowledge base comes from the test corpus and the ingest code (tests/conftest.py): a
change there changes the evidence, and the goldens must be regenerated with it.
"""

from __future__ import annotations

import difflib
import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

from tests.graph.projects import dodge_files, generated_files, write_files

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "projects"
UPDATE = os.environ.get("GODOT_RAG_UPDATE_GOLDEN") == "1"
_TIMESTAMP = re.compile(r'"(created_at|finished_at|completed_at)": "[^"]*"')

# case -> (how to lay out the target, prompt). Targets are laid out under a temp folder.
CASES = {
    "mini_dodge_paste": ("stdin", FIXTURES / "mini_dodge.txt", "Is this Godot 3 or Godot 4?"),
    "enemy_g3_paste": ("stdin", FIXTURES / "enemy_g3.txt", "Does this need migrating to Godot 4?"),
    "small_project": ("copy", FIXTURES / "small_project", ""),
    "syntax_godot3_all": ("copy", FIXTURES / "syntax" / "godot3_all.gd", ""),
    "syntax_godot4_all": ("copy", FIXTURES / "syntax" / "godot4_all.gd", "Is this Godot 4?"),
    "dodge_project": ("files", dodge_files, "Is this Godot 3 or 4?"),
    "generated_mixed": ("files", lambda: generated_files(godot4_scripts=2, godot3_scripts=1, funcs=4), ""),
}
# The LLM judge against the stub server: a good answer, an answer citing an id never retrieved
# (rejected by the validator: fallback), unparseable JSON (fallback). One model name per mode,
# so no mode reads another's cached answers.
LLM_CASES = {
    f"llm_{mode}_mini_dodge": mode for mode in ("good", "bad_evidence", "broken")
}
CASES.update({case: ("stdin", FIXTURES / "mini_dodge.txt", "Is this Godot 3 or Godot 4?") for case in LLM_CASES})


def normalise(stdout: str, tmp: Path) -> str:
    """Timestamps -> "<ts>", the temp folder -> "<tmp>"; every other byte kept."""
    text = _TIMESTAMP.sub(lambda m: f'"{m.group(1)}": "<ts>"', stdout)
    return text.replace(json.dumps(str(tmp))[1:-1], "<tmp>")


def _target(case: str, tmp: Path) -> tuple[str, str | None]:
    how, what, _ = CASES[case]
    if how == "stdin":
        return "-", Path(what).read_text(encoding="utf-8")
    if how == "files":
        write_files(tmp / case, what())
        return str(tmp / case), None
    import shutil

    dest = tmp / Path(what).name
    if Path(what).is_dir():
        shutil.copytree(what, dest)
    else:
        shutil.copyfile(what, dest)
    return str(dest), None


def _pretty(text: str) -> list[str]:
    return json.dumps(json.loads(text), indent=1, ensure_ascii=False).splitlines()


@pytest.mark.parametrize("case", sorted(CASES))
def test_analyze_json_is_golden(case, kb_settings, tmp_path, monkeypatch, capsys):
    from agent.cli import main

    monkeypatch.setenv("GODOT_RAG_DATABASE_URL", kb_settings.database_url)
    monkeypatch.setenv("GODOT_RAG_DATABASE_NAME", kb_settings.database_name)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("GODOT_RAG_JUDGE", raising=False)
    target, stdin = _target(case, tmp_path)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8"))
    args = ["analyze", target, "--format", "json", "--run-id", f"golden-{case.replace('_', '-')}"]
    prompt = CASES[case][2]
    if prompt:
        args += ["--prompt", prompt]
    if case in LLM_CASES:
        from tests.llm_servers.launch import running_server

        mode = LLM_CASES[case]
        with running_server("stub_server.py", "--mode", mode) as url:
            monkeypatch.setenv("GODOT_RAG_LLM_BASE_URL", url)
            monkeypatch.setenv("GODOT_RAG_LLM_MODEL", f"stub-{mode}")
            monkeypatch.setenv("GODOT_RAG_LLM_MAX_RETRIES", "0")
            code = main([*args, "--judge", "llm"])
    else:
        code = main(args)
    out = capsys.readouterr().out
    assert code == 0, out
    got = normalise(out, tmp_path)
    path = HERE / f"{case}.json"
    if UPDATE or not path.exists():
        path.write_text(got, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"wrote missing golden {path.name}; check it and commit it")
    want = path.read_text(encoding="utf-8")
    if got == want:
        return
    # Byte for byte: two builds of the test KB retrieve the same candidates (every leg orders by stable
    # keys, the vector leg is exact). Only where this machine embeds in bf16 (not the float32
    # the goldens were made with) do the vectors differ by design; there the decisions are pinned.
    if _embedding_precision() != "float32" and _decisions(json.loads(got)) == _decisions(json.loads(want)):
        return
    diff = "\n".join(difflib.unified_diff(_pretty(want), _pretty(got), "golden", "now", lineterm="", n=2))
    pytest.fail(f"{case}: analyze --format json differs from {path.name}:\n{diff[:6000]}")


def _embedding_precision() -> str:
    from agent.embeddings import resolve_precision
    from agent.settings import Settings

    return resolve_precision(Settings.from_env().embedding_precision)


def _decisions(report: dict) -> dict:
    """What a run decided, without which candidates the retriever happened to rank."""
    def chunk(c: dict) -> dict:
        j = c.get("judgment") or {}
        return {k: c.get(k) for k in ("chunk_id", "source_file", "start_line", "end_line", "status", "judge_kind",
                                      "fallback_reason")} | {
            k: j.get(k) for k in ("label", "version_signal", "migration_required")}
    return {"status": report["status"], "verdict": {k: report["verdict"][k] for k in ("label", "counts",
                                                                                       "migration_required")},
            "files": report["files"], "excluded": report["excluded_files"],
            "chunks": [chunk(c) for c in report["chunks"]]}
