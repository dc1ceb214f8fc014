"""Small Godot projects written for these tests (our own code, not copied from anywhere)."""

from __future__ import annotations

import hashlib

from agent.models import AnalysisRequest, Expansion, SourceFile

PROJECT_GODOT_4 = """config_version=5

[application]
config/name="Tiny Dodge"
run/main_scene="res://player.tscn"
config/features=PackedStringArray("4.2", "Forward Plus")
"""

PLAYER_GD_4 = """extends Area2D

signal hit

@export var speed = 400
var screen_size

func _ready():
\tscreen_size = get_viewport_rect().size
\thide()

func _process(delta):
\tvar velocity = Vector2.ZERO
\tif Input.is_action_pressed(&"move_right"):
\t\tvelocity.x += 1
\tif Input.is_action_pressed(&"move_left"):
\t\tvelocity.x -= 1

\tif velocity.length() > 0:
\t\tvelocity = velocity.normalized() * speed
\t\t$AnimatedSprite2D.play()
\telse:
\t\t$AnimatedSprite2D.stop()

\tposition += velocity * delta
\tposition = position.clamp(Vector2.ZERO, screen_size)

func start(pos):
\tposition = pos
\tshow()
\t$CollisionShape2D.disabled = false
"""

PLAYER_TSCN = """[gd_scene load_steps=3 format=3 uid="uid://tinydodge"]

[ext_resource type="Script" path="res://player.gd" id="1"]

[node name="Player" type="Area2D"]
script = ExtResource("1")
"""

ENEMY_GD_3 = """extends KinematicBody2D

var velocity = Vector2.ZERO

func _physics_process(delta):
\tvelocity = move_and_slide(velocity)
"""

README = "# Tiny Dodge\n\nA test project.\n"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def source_file(path: str, text: str, kind: str) -> SourceFile:
    return SourceFile(path=path, kind=kind, included=True, reason=f"{kind} chunker", size=len(text), sha256=sha(text),
                      text=text)


def expansion_of(files: list[SourceFile]) -> Expansion:
    """The `# path` + content expansion with its line map."""
    lines: list[str] = []
    line_map: list[tuple[str, int] | None] = []
    for f in sorted(files, key=lambda f: f.path):
        if not f.included:
            continue
        lines.append(f"# {f.path}")
        line_map.append(None)
        for i, line in enumerate((f.text or "").splitlines(), start=1):
            lines.append(line)
            line_map.append((f.path, i))
    return Expansion(files=sorted(files, key=lambda f: f.path), expanded_text="\n".join(lines) + "\n",
                     line_map=line_map)


def request_for(expansion: Expansion, *, prompt: str = "", project_id: str = "p-test",
                origin: str = "local_directory", source: str = "/tmp/project") -> AnalysisRequest:
    return AnalysisRequest(prompt=prompt, source=source, source_kind="unknown", project_id=project_id,
                           source_file=source, source_sha256=sha(expansion.expanded_text), source_origin=origin)


def dodge_files() -> list[SourceFile]:
    return [
        source_file("project.godot", PROJECT_GODOT_4, "project_config"),
        source_file("player.gd", PLAYER_GD_4, "gdscript"),
        source_file("player.tscn", PLAYER_TSCN, "scene"),
        SourceFile(path="README.md", kind="markdown", included=False,
                   reason="documentation files are excluded in source-code analysis mode", size=len(README)),
    ]
