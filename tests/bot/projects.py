"""Godot sources written for the bot tests (our own code), and a generator for big projects."""

from __future__ import annotations

import io
import zipfile

GODOT3_SNIPPET = """extends KinematicBody2D

export var speed = 200
var velocity = Vector2.ZERO

func _physics_process(delta):
\tvelocity = move_and_slide(velocity)
"""

GODOT4_SCRIPT = """extends CharacterBody2D

@export var speed = 300.0

func _physics_process(delta):
\tvelocity.x = Input.get_axis(&"ui_left", &"ui_right") * speed
\tmove_and_slide()
"""

PROJECT_GODOT = """config_version=4

[application]
config/name="Bot Test"
run/main_scene="res://main.tscn"
"""


def godot_file(index: int, functions: int) -> str:
    """One script with `functions` small functions, Godot 3 style on odd files, Godot 4 on even."""
    g3 = index % 2 == 1
    lines = ["extends KinematicBody2D" if g3 else "extends CharacterBody2D", ""]
    lines.append("export var speed = 100" if g3 else "@export var speed = 100.0")
    lines.append("")
    for f in range(functions):
        lines.append(f"func step_{f}(delta):")
        if g3:
            lines.append(f"\tvar v = Vector2({f}, 0)")
            lines.append("\tv = move_and_slide(v)")
            lines.append('\tyield(get_tree(), "idle_frame")')
        else:
            lines.append(f"\tvelocity = Vector2({f}, 0) * speed")
            lines.append("\tmove_and_slide()")
            lines.append("\tawait get_tree().process_frame")
        lines.append("")
    return "\n".join(lines)


def project_zip(files: int, functions: int, *, extra: dict[str, str] | None = None) -> bytes:
    """A zipped project of `files` scripts (each ~functions+2 chunks) plus project.godot and a README."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("game/project.godot", PROJECT_GODOT)
        zf.writestr("game/README.md", "# notes\n")
        for i in range(files):
            zf.writestr(f"game/scripts/mover_{i:03d}.gd", godot_file(i, functions))
        for name, text in (extra or {}).items():
            zf.writestr(f"game/{name}", text)
    return buf.getvalue()
