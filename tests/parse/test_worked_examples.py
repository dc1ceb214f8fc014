"""The two worked examples of issue 3, checked line by line against expanded-line numbers."""

from __future__ import annotations

from pathlib import Path

from agent.intake import intake_snippet
from agent.parse import chunk_project

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "projects"


def _expanded_ranges(result, prefix: str) -> dict[str, list[str]]:
    """File -> chunk ranges written as expanded line labels (E009, E013-E014, ...)."""
    exp = result.expansion
    where = {loc: i + 1 for i, loc in enumerate(exp.line_map) if loc is not None}
    chunks = chunk_project(exp, project_id=result.request.project_id)
    out: dict[str, list[str]] = {}
    for c in chunks:
        a, b = where[(c.source_file, c.span.start_line)], where[(c.source_file, c.span.end_line)]
        label = f"{prefix}{a:03d}" if a == b else f"{prefix}{a:03d}-{prefix}{b:03d}"
        out.setdefault(c.source_file, []).append(label)
    return out


def test_mini_dodge_pieces(base_settings):
    text = (FIXTURES / "mini_dodge.txt").read_text()
    result = intake_snippet(text, prompt="Is this Godot 3 or Godot 4?", settings=base_settings)
    exp = result.expansion
    assert [f.path for f in exp.files] == ["player.gd", "player.tscn", "project.godot"]
    # the expansion re-renders the paste exactly, so E-numbers are expanded-line numbers
    ordered = {f.path: f for f in exp.files}
    assert ordered["project.godot"].text.startswith("config_version=5")
    ranges = _expanded_ranges(result, "E")
    # files are expanded in sorted path order, so renumber against the original paste instead
    paste_lines = text.split("\n")
    header_at = {
        line[2:]: i + 1 for i, line in enumerate(paste_lines) if line.startswith("# ") and "." in line
    }
    chunks = chunk_project(exp, project_id=result.request.project_id)

    def labels(path: str) -> list[str]:
        base = header_at[path]
        out = []
        for c in chunks:
            if c.source_file == path:
                a, b = base + c.span.start_line, base + c.span.end_line
                out.append(f"E{a:03d}" if a == b else f"E{a:03d}-E{b:03d}")
        return out

    assert labels("project.godot") == ["E002", "E004-E006"]
    assert labels("player.gd") == ["E009", "E011", "E013-E014", "E016-E018", "E020-E034", "E036-E039"]
    assert labels("player.tscn") == ["E042", "E044", "E046-E047"]
    assert set(ranges) == {"player.gd", "player.tscn", "project.godot"}
    # project.godot content spans E002-E006 and the `# path` lines are in no chunk
    pg = [c for c in chunks if c.source_file == "project.godot"]
    assert pg[0].span.start_line == 1 and pg[-1].span.end_line == 5
    for c in chunks:
        assert not any(line.startswith("# ") and line[2:] in header_at for line in c.code_text.split("\n"))
    kinds = [c.chunk_kind for c in chunks if c.source_file == "player.gd"]
    assert kinds == ["class_extends", "signal", "declaration_group", "function", "function", "function"]
    ids = [c.chunk_id for c in chunks if c.source_file == "player.gd"]
    assert ids[:2] == ["player.gd:class_extends:1", "player.gd:signal:struck"]
    assert "player.gd:function:_process" in ids
    process = next(c for c in chunks if c.chunk_id == "player.gd:function:_process")
    for api in ("Input.is_action_pressed", "motion.normalized", "position.clamp", "$AnimatedSprite2D.play"):
        assert api in process.api_call_candidates
    assert "Vector2" in process.symbol_candidates and "Input" in process.symbol_candidates
    assert "extends Area2D" in process.surrounding_context and "var arena_size" in process.surrounding_context
    tscn = [c for c in chunks if c.source_file == "player.tscn"]
    assert [c.chunk_kind for c in tscn] == ["scene_header", "ext_resource", "node"]
    assert "res://player.gd" in tscn[1].reference_candidates
    app = pg[1]
    assert app.chunk_kind == "config_section" and app.name == "application"
    assert "res://player.tscn" in app.reference_candidates
    assert pg[0].extra["project"]["config_version"] == 5


def test_mini_dodge_expanded_view_round_trips(base_settings):
    text = (FIXTURES / "mini_dodge.txt").read_text()
    result = intake_snippet(text, settings=base_settings)
    exp = result.expansion
    lines = exp.expanded_text.split("\n")
    for i, loc in enumerate(exp.line_map):
        if loc is None:
            assert lines[i] == "" or lines[i].startswith("# ")
        else:
            path, n = loc
            file = next(f for f in exp.files if f.path == path)
            assert file.text.split("\n")[n - 1] == lines[i]


def test_enemy_godot3_pieces(base_settings):
    text = (FIXTURES / "enemy_g3.txt").read_text()
    result = intake_snippet(text, settings=base_settings)
    chunks = chunk_project(result.expansion, project_id=result.request.project_id)
    got = [(c.span.start_line + 101, c.span.end_line + 101) for c in chunks]  # G101 is the header
    assert got == [(102, 102), (104, 104), (106, 107)]
    assert [c.chunk_kind for c in chunks] == ["class_extends", "declaration_group", "function"]
    assert chunks[0].symbol_candidates == ["KinematicBody2D"]
    assert "move_and_slide" in chunks[2].api_call_candidates
    assert chunks[2].surrounding_context.startswith("extends KinematicBody2D")
