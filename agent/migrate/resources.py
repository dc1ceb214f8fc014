"""Scenes, resources and project.godot in their Godot 4 form (`format=3`, `config_version=5`).

Read as Godot reads them: section headers (`[node name="A" type="Sprite" parent="."]`), then `key = value`
lines whose values may span lines; string contents are never rewritten (an embedded script stays as it
is, with a TODO). What changes comes from agent/data/changes/resources.json (the converter's tables and
the 3.4/4.x API index): node and resource types, properties per the class that defines them (a subclass's
sections too; `extents` doubled into `size`), value types (`PoolStringArray(` -> `PackedStringArray(`),
resource ids (`ExtResource( 2 )` -> `ExtResource("2")`, consistently with `id="2"`), project settings,
the input map's InputEvent fields and theme override prefixes. A property of a section whose type is not
known (an instanced scene's node) is renamed only when no other 3.4 class has a property of that name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.changes import ResourceChanges, resource_changes
from agent.migrate.model import TODO_TAG

_HEADER = re.compile(r"^\[(\w+)((?:[^\]\"]|\"(?:[^\"\\]|\\.)*\")*)\]\s*$")
_ATTR = re.compile(r"(\w+)=(\"(?:[^\"\\]|\\.)*\"|[^\s\]]+)")
_PROPERTY = re.compile(r"^([A-Za-z_][\w/.:]*)\s*=\s*")
_INSTANCE = re.compile(r"\binstance=ExtResource\(\s*\"?([^\s\")]+)\"?\s*\)")
_RESOURCE_REF = re.compile(r"\b(ExtResource|SubResource)\(\s*(\d+)\s*\)")
_FORMAT = re.compile(r"\bformat=2\b")
_NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"


def _is_a(cls: str, ancestors: frozenset[str], bases: dict[str, str]) -> bool:
    seen = 0
    while cls and seen < 64:
        if cls in ancestors:
            return True
        cls, seen = bases.get(cls, ""), seen + 1
    return False


def _string_mask(text: str) -> list[bool]:
    """For each character: inside a string literal (values may span lines; `\\"` escapes)."""
    mask = [False] * len(text)
    inside = escaped = False
    for k, c in enumerate(text):
        if inside:
            mask[k] = True
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                inside = False
        elif c == '"':
            inside = mask[k] = True
    return mask


def _sub_outside_strings(text: str, pattern: re.Pattern[str], repl, mask: list[bool]) -> tuple[str, int]:
    out, last, n = [], 0, 0
    for m in pattern.finditer(text):
        if mask[m.start()]:
            continue
        new = repl(m)
        if new != m.group(0):
            out += [text[last:m.start()], new]
            last, n = m.end(), n + 1
    out.append(text[last:])
    return "".join(out), n


@dataclass
class ResourceResult:
    text: str
    edits: int = 0
    todos: list[tuple[int, str]] = field(default_factory=list)
    """(line in the migrated text, reason)."""
    godot3: int = 0
    """Of the edits, those of Godot 3 content (a renamed type, property or value type), not the format's own."""


def _attrs(rest: str) -> dict[str, str]:
    return {k: v for k, v in _ATTR.findall(rest)}


def _retype(header: str, changes: ResourceChanges) -> tuple[str, int, int]:
    """`type="Sprite"` -> `type="Sprite2D"`, `id=2` -> `id="2"`, `format=2` -> `format=3` in one header:
    (the header, its edits, of those the type renames)."""
    n = 0

    def typ(m: re.Match[str]) -> str:
        nonlocal n
        new = changes.classes.get(m.group(1))
        n += new is not None
        return f'type="{new}"' if new else m.group(0)
    header = re.sub(r'\btype="(\w+)"', typ, header)
    header, k = re.subn(r"\bid=(\d+)\b", r'id="\1"', header)
    header, f = _FORMAT.subn("format=3", header)
    return header, n + k + f, n


def _scale(value: str, factor: float) -> str | None:
    if re.fullmatch(_NUMBER, value.strip()):
        return f"{float(value) * factor:.7g}"
    m = re.fullmatch(rf"(Vector[23])\(\s*({_NUMBER}(?:\s*,\s*{_NUMBER})*)\s*\)", value.strip())
    if not m:
        return None
    nums = [float(x) * factor for x in re.split(r"\s*,\s*", m.group(2))]
    return f"{m.group(1)}(" + ", ".join(f"{x:g}" for x in nums) + ")"


def _property(key: str, section_type: str | None, changes: ResourceChanges) -> tuple[str, float] | None:
    """(new key, factor) for a property of a section of `section_type` (3.4 name), or None."""
    for old, new, classes in changes.theme_overrides:
        if key.startswith(old) and (not classes or section_type in classes):
            key = new + key[len(old):]
            return key, 1.0
    for (cls, old), scaled in changes.scaled.items():  # `rect_rotation` on any Control: degrees -> radians
        if key == old and section_type and _is_a(section_type, [cls], changes.bases):
            return scaled
    for new, classes in changes.properties.get(key, ()):
        if section_type and _is_a(section_type, classes, changes.bases):
            return new, 1.0
        if section_type is None and key in changes.unique:
            return new, 1.0
    return None


def scene_root_types(files: dict[str, str], resolve: Callable[[str, str], str]) -> Callable[[str, str], str | None]:
    """(a scene's `res://` path as a file names it, that file) -> the Godot 3 type of the scene's root node, following
    a root that instances another scene: the type an instanced node (`[node ... instance=ExtResource(3)]`) has."""
    roots: dict[str, tuple[str | None, str | None]] = {}
    for p, t in files.items():
        if not p.endswith(".tscn") or not t:
            continue
        ids = {a.get("id", "").strip('"'): a.get("path", "").strip('"')
               for m in re.finditer(r"^\[ext_resource\b([^\]\n]*)\]", t, re.M) for a in (_attrs(m.group(1)),)}
        node = re.search(r"^\[node\b([^\]\n]*)\]", t, re.M)
        attrs = _attrs(node.group(1)) if node else {}
        inst = _INSTANCE.search(node.group(1)) if node else None
        roots[p] = (attrs.get("type", "").strip('"') or None, ids.get(inst.group(1)) if inst else None)

    def root_type(res: str, where: str, depth: int = 0) -> str | None:
        typ, inst = roots.get(resolve(res, where), (None, None))
        if typ or not inst or depth > 8:
            return typ
        return root_type(inst, resolve(res, where), depth + 1)

    return root_type


def migrate_resource(path: str, text: str,
                     root_type: Callable[[str, str], str | None] | None = None) -> ResourceResult:
    """A .tscn/.tres file in its Godot 4 form (format=3). Unchanged text for a file already in format 3. A node
    that instances a scene has that scene's root type (`root_type`), so its properties are renamed too."""
    changes = resource_changes()
    ext_paths = {a.get("id", "").strip('"'): a.get("path", "").strip('"')
                 for m in re.finditer(r"^\[ext_resource\b([^\]\n]*)\]", text, re.M) for a in (_attrs(m.group(1)),)}
    if not re.search(r"^\[gd_(?:scene|resource)\b[^\]\n]*\bformat=2\b", text, re.M):
        return ResourceResult(text)
    lines = text.split("\n")
    mask_text = "\n".join(lines)
    mask = _string_mask(mask_text)
    out: list[str] = []
    edits, godot3, todos = 0, 0, []
    offset = 0
    section_type: str | None = None
    in_script = False
    for line in lines:
        start = offset
        offset += len(line) + 1
        if start and mask[start - 1]:
            out.append(line)  # inside a multi-line string value
            continue
        header = _HEADER.match(line)
        if header:
            attrs = _attrs(header.group(2))
            typ = attrs.get("type", "").strip('"') or None
            inst = _INSTANCE.search(header.group(2))
            if typ is None and inst and root_type is not None and inst.group(1) in ext_paths:
                section_type = root_type(ext_paths[inst.group(1)], path)  # an instanced scene's root
            else:
                section_type = typ
            if header.group(1) == "node" and typ in changes.removed_nodes:
                todos.append((len(out) + 1, changes.removed_nodes[typ]))
                out.append(f"; {TODO_TAG}: {changes.removed_nodes[typ]}")
                godot3 += 1
            if header.group(1) == "sub_resource" and typ == "GDScript":
                in_script = True
                todos.append((len(out) + 1, "a script embedded in this file is not migrated: move it to a .gd file "
                                            "and migrate that"))
                out.append(f"; {TODO_TAG}: a script embedded in this file is not migrated: move it to a .gd file")
            else:
                in_script = False
            new, n, renamed = _retype(line, changes)
            edits += n
            godot3 += renamed
            out.append(new)
            continue
        prop = _PROPERTY.match(line)
        if prop and not in_script:
            key = prop.group(1)
            renamed = _property(key, section_type, changes)
            if renamed is not None:
                new_key, factor = renamed
                value = line[prop.end():]
                if factor != 1.0:
                    scaled = _scale(value, factor)
                    if scaled is None:
                        todos.append((len(out) + 1, f"{key} is {new_key} in Godot 4 ({factor:g}x the value)"))
                        out.append(f"; {TODO_TAG}: {key} is {new_key} in Godot 4, {factor:g}x the value")
                        out.append(line)
                        continue
                    value = scaled
                value = changes.property_values.get(key, {}).get(value.strip(), value)
                line = f"{new_key} = {value}"
                edits += 1
                godot3 += 1
        out.append(line)
    new_text = "\n".join(out)
    mask = _string_mask(new_text)
    new_text, n = _sub_outside_strings(new_text, _RESOURCE_REF, lambda m: f'{m.group(1)}("{m.group(2)}")', mask)
    edits += n
    value_types = {k: v for k, v in changes.classes.items() if k.startswith(("Pool", "Quat", "Transform"))}
    if value_types:
        rx = re.compile(r"\b(" + "|".join(map(re.escape, sorted(value_types, key=len, reverse=True))) + r")(?=\()")
        new_text, n = _sub_outside_strings(new_text, rx, lambda m: value_types[m.group(1)], _string_mask(new_text))
        edits += n
        godot3 += n
    return ResourceResult(new_text, edits, todos, godot3)


_SECTION = re.compile(r"^\[([^\]]+)\]\s*$")
_SETTING = re.compile(r"^([^=\s][^=]*?)=(.*)$")


def migrate_project_godot(text: str) -> ResourceResult:
    """project.godot for Godot 4: config_version=5, renamed settings and values, the input map's event fields."""
    changes = resource_changes()
    if not re.search(r"^config_version\s*=\s*[34]\s*$", text, re.M):
        return ResourceResult(text)
    out, edits, section = [], 0, ""
    mask = _string_mask(text)
    offset = 0
    for line in text.split("\n"):
        start = offset
        offset += len(line) + 1
        if start and mask[start - 1]:
            out.append(line)
            continue
        if section == "input" and not line.startswith("["):  # an action's events span lines
            for old, new in changes.input_map.items():
                line, n = re.subn(rf'"{re.escape(old)}":', f'"{new}":', line)
                edits += n
        if m := _SECTION.match(line):
            section = m.group(1)
        elif re.fullmatch(r"config_version\s*=\s*[34]\s*", line):
            line, edits = "config_version=5", edits + 1
        elif (m := _SETTING.match(line)) and section:
            key, value = m.group(1).strip(), m.group(2)
            full = f"{section}/{key}"
            if full in changes.settings and changes.settings[full].startswith(section + "/"):
                new_full = changes.settings[full]
                value = changes.setting_values.get(full, {}).get(value.strip(), value)
                line, edits = f"{new_full[len(section) + 1:]}={value}", edits + 1
            elif (new_value := changes.setting_values.get(full, {}).get(value.strip())) is not None:
                line, edits = f"{key}={new_value}", edits + 1
        out.append(line)
    return ResourceResult("\n".join(out), edits)
