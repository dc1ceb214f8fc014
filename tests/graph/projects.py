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

# The 7-line Godot 3 snippet where every change is known (its Godot 4 version is complete).
PLAYER_G3 = """extends KinematicBody2D

export var speed = 200
var velocity = Vector2()

func _physics_process(delta):
    velocity = move_and_slide(velocity, Vector2.UP)
    yield(get_tree().create_timer(1.0), "timeout")
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


# ---- generated projects (kill -9 test, bench) ------------------------------------------------

_G4_FUNCS = [
    "func _ready():\n\tadd_to_group(&\"{name}\")\n\t$Timer.timeout.connect(_on_timer_{i})\n",
    "func _process(delta):\n\tvar direction = Input.get_vector(&\"left\", &\"right\", &\"up\", &\"down\")\n"
    "\tposition += direction * speed_{i} * delta\n",
    "func _physics_process(delta):\n\tvelocity.y += gravity_{i} * delta\n\tmove_and_slide()\n",
    "func fade_out_{i}():\n\tvar tween = create_tween()\n\ttween.tween_property(self, \"modulate:a\", 0.0, 0.5)\n"
    "\tawait tween.finished\n\tqueue_free()\n",
    "func wait_and_hide_{i}():\n\tawait get_tree().create_timer(1.0).timeout\n\thide()\n",
    "func score_of_{i}(items: Array[int]) -> int:\n\tvar total := 0\n\tfor item in items:\n\t\ttotal += item\n"
    "\treturn total\n",
    "func pick_{i}(options: Array) -> Variant:\n\treturn options.filter(func(o): return o != null).front()\n",
    "func _on_timer_{i}():\n\tspawned_{i}.emit(global_position)\n",
]
_G3_FUNCS = [
    "func _physics_process(delta):\n\tvelocity = move_and_slide(velocity, Vector2.UP)\n",
    "func blink_{i}():\n\tyield(get_tree().create_timer(0.2), \"timeout\")\n\tvisible = not visible\n",
    "func save_{i}(data):\n\tvar f = File.new()\n\tf.open(\"user://save_{i}.dat\", File.WRITE)\n"
    "\tf.store_var(data)\n\tf.close()\n",
    "func _on_body_entered_{i}(body):\n\tif body.is_in_group(\"player\"):\n\t\temit_signal(\"hit\")\n",
]


def _godot4_script(i: int, funcs: int) -> str:
    head = (f"extends CharacterBody2D\nclass_name Walker{i}\n\nsignal spawned_{i}(at: Vector2)\n\n"
            f"@export var speed_{i}: float = {200 + i}.0\n@export var gravity_{i}: float = 980.0\n"
            f"@onready var sprite_{i}: Sprite2D = $Sprite2D\n\n")
    body = "\n".join(_G4_FUNCS[(i + k) % len(_G4_FUNCS)].format(i=f"{i}_{k}", name=f"walker{i}")
                     for k in range(funcs))
    return head + body


def _godot3_script(i: int, funcs: int) -> str:
    head = (f"extends KinematicBody2D\n\nsignal hit\n\nexport var speed = {150 + i}\nonready var sprite = $Sprite\n"
            "var velocity = Vector2.ZERO\n\n")
    body = "\n".join(_G3_FUNCS[(i + k) % len(_G3_FUNCS)].format(i=f"{i}_{k}") for k in range(funcs))
    return head + body


def _scene(i: int) -> str:
    return (f"[gd_scene load_steps=2 format=3 uid=\"uid://walker{i}\"]\n\n"
            f"[ext_resource type=\"Script\" path=\"res://walkers/walker_{i}.gd\" id=\"1\"]\n\n"
            f"[node name=\"Walker{i}\" type=\"CharacterBody2D\"]\nscript = ExtResource(\"1\")\n\n"
            "[node name=\"Sprite2D\" type=\"Sprite2D\" parent=\".\"]\n")


def generated_files(*, godot4_scripts: int, godot3_scripts: int = 0, funcs: int = 6,
                    scenes: bool = True) -> list[SourceFile]:
    """A realistic generated project: Godot 4 walkers, optional Godot 3 leftovers, scenes, config."""
    files = [source_file("project.godot", PROJECT_GODOT_4, "project_config")]
    for i in range(godot4_scripts):
        files.append(source_file(f"walkers/walker_{i}.gd", _godot4_script(i, funcs), "gdscript"))
        if scenes:
            files.append(source_file(f"walkers/walker_{i}.tscn", _scene(i), "scene"))
    for i in range(godot3_scripts):
        files.append(source_file(f"legacy/old_{i}.gd", _godot3_script(i, funcs // 2 + 1), "gdscript"))
    files.append(SourceFile(path="README.md", kind="markdown", included=False,
                            reason="documentation files are excluded in source-code analysis mode", size=10))
    return files


def write_files(root, files: list[SourceFile]) -> None:
    """Write the included files under `root` (for CLI tests that take a directory)."""
    from pathlib import Path

    for f in files:
        p = Path(root) / f.path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f.text if f.text is not None else "# readme\n", encoding="utf-8")
