"""Godot 3 shader code in its Godot 4 form: `.shader` files (renamed `.gdshader`) and `code = "..."` in scenes.

What is certain is written: the converter's shader renames (`hint_color` -> `source_color`, `WORLD_MATRIX` ->
`MODEL_MATRIX`, `CAMERA_MATRIX` -> `INV_VIEW_MATRIX`, ...; agent/data/changes/shader_renames.json) and the
screen and depth textures Godot 4 reads through uniforms (`SCREEN_TEXTURE` -> `uniform sampler2D
screen_texture : hint_screen_texture`). What the upgrading guide says a person must decide (a custom `light()`,
a particles shader's `vertex()`, depth read back into NDC) gets a `// TODO(godot-rag):` line. Comments are
never rewritten.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from agent.migrate.model import TODO_TAG

SHADER_SUFFIXES = (".shader", ".gdshader", ".gdshaderinc")
_DATA = Path(__file__).resolve().parents[1] / "data" / "changes" / "shader_renames.json"
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_SCREEN = {"SCREEN_TEXTURE": ("screen_texture", "hint_screen_texture, filter_linear_mipmap"),
           "DEPTH_TEXTURE": ("depth_texture", "hint_depth_texture"),
           "NORMAL_ROUGHNESS_TEXTURE": ("normal_roughness_texture", "hint_normal_roughness_texture")}
_GUIDE = "https://docs.godotengine.org/en/stable/tutorials/migrating/upgrading_to_godot_4.html#updating-shaders"


@cache
def shader_renames() -> dict[str, str]:
    return {r["old"]: r["new"] for r in json.loads(_DATA.read_text(encoding="utf-8"))["renames"]}


@dataclass
class ShaderMigration:
    text: str
    edits: int = 0
    todos: list[tuple[int, str]] = field(default_factory=list)
    """(1-based line of the migrated text, why) of each TODO line written."""
    godot3: bool = False
    """Whether the code held anything Godot 3 only."""


def _masked(code: str) -> str:
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)


def migrate_shader_code(code: str) -> ShaderMigration:
    """One shader's code in Godot 4's language, with TODO lines where a person decides."""
    masked = _masked(code)
    edits: list[tuple[int, int, str]] = []
    renames = shader_renames()
    for m in re.finditer(r"\b(" + "|".join(map(re.escape, sorted(renames, key=len, reverse=True))) + r")\b", masked):
        edits.append((m.start(), m.end(), renames[m.group(1)]))
    used = [name for name in _SCREEN if re.search(rf"\b{name}\b", masked)]
    for name in used:
        for m in re.finditer(rf"\b{name}\b", masked):
            edits.append((m.start(), m.end(), _SCREEN[name][0]))
    out = code
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    if used:  # the uniforms go after the shader_type and render_mode lines
        head = re.match(r"(?:\s*(?://[^\n]*|shader_type[^;]*;|render_mode[^;]*;))*[ \t]*\n?", out)
        at = head.end() if head else 0
        decl = "".join(f"uniform sampler2D {_SCREEN[n][0]} : {_SCREEN[n][1]};\n" for n in used)
        out = out[:at] + decl + out[at:]
    todos: list[str] = []
    masked_out = _masked(out)
    if re.search(r"\bvoid\s+light\s*\(", masked_out):
        todos.append("Godot 4's lighting model changed: check this light() against the result you had")
    if re.search(r"shader_type\s+particles\s*;", masked_out) and re.search(r"\bvoid\s+vertex\s*\(", masked_out):
        todos.append("a particles shader runs start() and process() in Godot 4, not vertex()")
    if "DEPTH_TEXTURE" in used:
        todos.append("Godot 4's depth is reversed-Z in [0, 1]: rebuild NDC as vec3(SCREEN_UV * 2.0 - 1.0, depth)")
    todos = [t for t in todos if f"{TODO_TAG}: {t}" not in code]  # a second migration writes none again
    if todos:
        out = "\n".join(f"// {TODO_TAG}: {t} ({_GUIDE})" for t in todos) + "\n" + out
    return ShaderMigration(out, edits=len(edits) + len(used), todos=[(i + 1, t) for i, t in enumerate(todos)],
                           godot3=bool(edits or used))


def gdshader_path(path: str) -> str:
    """Godot 4 reads shader files only as `.gdshader`."""
    return path[: -len(".shader")] + ".gdshader" if path.endswith(".shader") else path


_EMBEDDED = re.compile(r'^(code\s*=\s*")((?:[^"\\]|\\.)*)(")', re.M | re.S)


def migrate_embedded(text: str) -> tuple[str, int, list[str]]:
    """Shader code inside a scene or resource (`code = "shader_type ..."`), migrated in place: (text, edits, todos)."""
    edits, todos = 0, []

    def one(m: re.Match[str]) -> str:
        nonlocal edits
        code = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
        if "shader_type" not in code:
            return m.group(0)
        done = migrate_shader_code(code)
        edits += done.edits
        todos.extend(t for _, t in done.todos)
        return m.group(1) + done.text.replace("\\", "\\\\").replace('"', '\\"') + m.group(3)

    return _EMBEDDED.sub(one, text), edits, todos
