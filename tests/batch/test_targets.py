"""Run ids are derived from the work: the same content, KB version, judge and prompt give the same id;
a GitHub target is pinned at the commit its ref names (here a local repository stands in for GitHub)."""

from __future__ import annotations

import subprocess

from agent.batch.targets import github_identity, read_targets, request_identity, run_id_for
from agent.intake import intake_directory
from agent.intake.github import GithubTarget, resolve_commit
from agent.models import AnalysisRequest
from agent.settings import Settings


def test_the_run_id_follows_the_content_kb_judge_and_prompt(tmp_path):
    settings = Settings()
    a = tmp_path / "a"
    a.mkdir()
    (a / "main.gd").write_text("extends Node\n")
    key = request_identity(intake_directory(a, settings=settings).request).key
    same = run_id_for(key, kb_version="kb-1", judge="evidence", prompt="")
    assert same == run_id_for(key, kb_version="kb-1", judge="evidence", prompt="")
    assert len({same, run_id_for(key, kb_version="kb-2", judge="evidence", prompt=""),
                run_id_for(key, kb_version="kb-1", judge="llm", prompt=""),
                run_id_for(key, kb_version="kb-1", judge="evidence", prompt="why?")}) == 4
    (a / "main.gd").write_text("extends Node2D\n")
    assert request_identity(intake_directory(a, settings=settings).request).key != key
    assert read_targets(["# list", "", "  https://github.com/a/b  ", str(a)]) == ["https://github.com/a/b", str(a)]


def test_a_github_target_is_pinned_at_the_commit_its_ref_names(tmp_path):
    repo = tmp_path / "repo"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "main.gd").write_text("extends Node\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    settings = Settings()
    for ref in (None, "main"):
        pinned = resolve_commit(GithubTarget("someone", "game", ref), settings, origin_for_tests=f"file://{repo}")
        assert pinned.ref == head and pinned.url == f"https://github.com/someone/game/tree/{head}"
    ident = github_identity("someone", "game", head, None)
    assert ident.name == f"someone__game@{head}"
    request = AnalysisRequest(source=pinned.url, project_id="p", source_file=pinned.url, source_sha256="0" * 64,
                              source_origin="github")
    assert request_identity(request) == ident
