"""Pasted snippets: fences, kinds, pasted expansions, and every bad paste refused clearly."""

from __future__ import annotations

import pytest

from agent.intake import IntakeError, intake_snippet
from agent.parse import chunk_project


def test_plain_snippet_request_and_trace(base_settings):
    text = "extends Node2D\n\nfunc _ready():\n\tprint('hi')\n"
    r = intake_snippet(text, prompt="explain this", settings=base_settings)
    req = r.request
    assert req.source_origin == "pasted_snippet" and req.source_kind == "gdscript"
    assert req.source_file.startswith("pasted://snippet-") and req.source_file.endswith(".gd")
    assert req.prompt == "explain this" and req.source == text
    f = r.expansion.files[0]
    assert f.path == req.source_file and f.sha256 == req.source_sha256
    assert req.project_id.startswith("proj-") and len(req.project_id) == 17
    assert "explain" not in r.expansion.expanded_text  # the prompt never reaches the parser input
    again = intake_snippet(text, prompt="other prompt", settings=base_settings)
    assert again.request.project_id == req.project_id and again.request.source_file == req.source_file


def test_fenced_snippet_and_kind_inference(base_settings):
    r = intake_snippet("Here:\n```gdscript\nextends Node\nvar a = 1\n```\nthanks", settings=base_settings)
    assert r.expansion.included[0].text == "extends Node\nvar a = 1\n"
    scene = intake_snippet(
        '```\n[gd_scene format=3]\n\n[node name="A" type="Node"]\n```', settings=base_settings
    )
    assert scene.request.source_kind == "scene" and scene.request.source_file.endswith(".tscn")
    cfg = intake_snippet('config_version=4\n\n[application]\nconfig/name="x"\n', settings=base_settings)
    assert cfg.request.source_kind == "project_config"
    chunks = chunk_project(cfg.expansion, project_id=cfg.request.project_id)
    assert chunks[0].extra["project"]["config_version"] == 4
    stated = intake_snippet("x = 1\n", settings=base_settings, language_hint="tres")
    assert stated.request.source_kind == "resource"
    two = intake_snippet(
        "```gd\nextends Node\n```\nand\n```tscn\n[gd_scene format=3]\n```", settings=base_settings
    )
    assert [f.path.rsplit(".", 1)[1] for f in two.expansion.included] == ["gd", "tscn"]


def test_pasted_expansion_is_split_back_into_files(base_settings):
    text = "# scripts/a.gd\nextends Node\n\n# README.md\nhello\n\n# scenes/b.tscn\n[gd_scene format=3]\n"
    r = intake_snippet(text, settings=base_settings)
    files = {f.path: f for f in r.expansion.files}
    assert set(files) == {"README.md", "scenes/b.tscn", "scripts/a.gd"}
    assert not files["README.md"].included and "Documentation files are excluded" in files["README.md"].reason
    assert files["scripts/a.gd"].text == "extends Node\n"
    assert r.request.source_kind == "unknown"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty"),
        ("   \n\t\n  ", "empty"),
        ("extends Node\x00\x00", "NUL"),
        ("\x89PNG\r\n\x1a\n" + "".join(chr(c) for c in range(1, 32)) * 4, "binary"),
    ],
    ids=["empty", "whitespace", "nul", "binary"],
)
def test_bad_pastes_are_refused(base_settings, text, needle):
    with pytest.raises(IntakeError, match=needle):
        intake_snippet(text, settings=base_settings)


def test_pasted_expansion_with_escaping_path_is_refused(base_settings):
    with pytest.raises(IntakeError, match="zip-slip|escapes"):
        intake_snippet("# ../../outside.gd\nextends Node\n", settings=base_settings)


def test_oversized_paste_states_the_limit(base_settings):
    settings = base_settings.with_(max_file_bytes=1000)
    with pytest.raises(IntakeError, match="limit of 1,000"):
        intake_snippet("var a = 1\n" * 200, settings=settings)


def test_lone_surrogates_are_refused(base_settings):
    with pytest.raises(IntakeError):
        intake_snippet("extends Node\n" + "\udcff" * 10, settings=base_settings)
