"""Mechanical Godot 3 -> 4 rewrites of one chunk (renames and fixed syntax), or None.

Only rewrites that need no judgement are made; if anything Godot 3 remains after
rewriting, no code is suggested at all (a half-migrated suggestion would mislead).
Comments and strings are never touched: matches are located on the masked text.
"""

from __future__ import annotations

import re

from agent.judge.lexer import lex
from agent.judge.syntax_rules import GDSCRIPT_RULES

_SIMPLE_TYPES = {"int", "float", "bool", "String", "Vector2", "Vector3", "Color", "NodePath", "PackedScene",
                 "Texture", "Texture2D", "Resource", "Array", "Dictionary", "AudioStream", "Font", "Curve"}
_POOL = {"PoolByteArray": "PackedByteArray", "PoolIntArray": "PackedInt32Array",
         "PoolRealArray": "PackedFloat32Array", "PoolStringArray": "PackedStringArray",
         "PoolVector2Array": "PackedVector2Array", "PoolVector3Array": "PackedVector3Array",
         "PoolColorArray": "PackedColorArray"}
_RECT = {"rect_position": "position", "rect_size": "size", "rect_min_size": "custom_minimum_size",
         "rect_rotation": "rotation_degrees", "rect_scale": "scale", "rect_pivot_offset": "pivot_offset",
         "rect_global_position": "global_position", "rect_clip_content": "clip_contents"}
_OS_TIME = {"get_ticks_msec": "Time.get_ticks_msec", "get_ticks_usec": "Time.get_ticks_usec",
            "get_unix_time": "Time.get_unix_time_from_system"}
_IDENT_ONLY = re.compile(r"[A-Za-z_]\w*")


def _sub_in_code(text: str, pattern: re.Pattern[str], repl, *, keep_strings: bool = False) -> str:
    """Apply `pattern` on the masked text (comments, and strings unless kept, blanked); edit the original."""
    lexed = lex(text)
    view = lexed.no_comments if keep_strings else lexed.masked
    out, last = [], 0
    for m in pattern.finditer(view):
        out.append(text[last : m.start()])
        out.append(repl(m, text[m.start() : m.end()]))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def _export(m: re.Match[str], orig: str) -> str:
    indent, hint = m.group(1), (m.group(3) or "").strip()
    if hint and hint not in _SIMPLE_TYPES:
        raise _NotMechanical(f"export hint {hint!r}")
    return f"{indent}@export var {m.group(4)}" + (f": {hint}" if hint else "")


class _NotMechanical(Exception):
    """Raised inside a rewrite step that would need judgement."""


def _rewrite_lines(code: str) -> str:
    code = _sub_in_code(code, re.compile(r"^(\s*)export(\s*\(([^)\n]*)\))?\s+var\s+([A-Za-z_]\w*)", re.M), _export)
    code = _sub_in_code(code, re.compile(r"^(\s*)onready(\s+var\b)", re.M), lambda m, o: f"{m.group(1)}@onready{m.group(2)}")
    code = _sub_in_code(code, re.compile(r"^(\s*)tool\s*$", re.M), lambda m, o: f"{m.group(1)}@tool")
    # yield(obj, "signal") -> await obj.signal ; the signal name sits in the (masked) string
    code = _sub_in_code(code, re.compile(r"\byield\s*\(\s*([^,\n]+?)\s*,\s*\"(\w+)\"\s*\)"),
                        lambda m, o: f"await {m.group(1)}.{m.group(2)}", keep_strings=True)
    # X = move_and_slide(X) -> the velocity property and move_and_slide()
    def _mas(m: re.Match[str], orig: str) -> str:
        indent, var = m.group(1), m.group(2)
        if var == "velocity":
            return f"{indent}move_and_slide()"
        return f"{indent}velocity = {var}\n{indent}move_and_slide()\n{indent}{var} = velocity"
    code = _sub_in_code(code, re.compile(r"^(\s*)([A-Za-z_]\w*)\s*=\s*move_and_slide\(\s*\2\s*\)[ \t]*$", re.M), _mas)
    # obj.connect("sig", target, "method") -> obj.sig.connect(target.method)
    def _connect(m: re.Match[str], orig: str) -> str:
        obj, sig, target, method = m.group(1) or "", m.group(2), m.group(3), m.group(4)
        callee = method if target == "self" else f"{target}.{method}"
        return f"{obj}{sig}.connect({callee})"
    code = _sub_in_code(code, re.compile(r"((?:[\w$]+\s*\.\s*)*)connect\(\s*\"(\w+)\"\s*,\s*([\w.]+)\s*,\s*\"(\w+)\"\s*\)"),
                        _connect, keep_strings=True)
    for old, new in {**_POOL, **_RECT}.items():
        code = _sub_in_code(code, re.compile(rf"\b{old}\b"), lambda m, o, new=new: new)
    for old, new in _OS_TIME.items():
        code = _sub_in_code(code, re.compile(rf"\bOS\s*\.\s*{old}\b"), lambda m, o, new=new: new)
    return code


def mechanical_rewrite(code: str, renames: dict[str, str], declared: set[str]) -> str | None:
    """The Godot 4 form of `code`, or None when the migration is not purely mechanical."""
    try:
        new = _rewrite_lines(code)
    except _NotMechanical:
        return None
    for old, target in renames.items():
        if "." in old:
            owner, member = old.rsplit(".", 1)
            pattern = re.compile(rf"\b{re.escape(owner)}\s*\.\s*{re.escape(member)}\b")
        elif old in declared:
            continue
        else:
            pattern = re.compile(rf"(?<![\w$%]){re.escape(old)}\b")
        if not target or not re.fullmatch(r"[A-Za-z_][\w.]*", target):
            return None  # removed or described API: needs a human
        new = _sub_in_code(new, pattern, lambda m, o, t=target: t)
    if new == code:
        return None
    masked = lex(new).masked
    if any(r.version == "godot3" and r.pattern.search(masked) for r in GDSCRIPT_RULES):
        return None
    for old in renames:
        if old not in declared and re.search(rf"(?<![\w$%.]){re.escape(old.rsplit('.', 1)[-1])}\s*\(", masked) \
                and old.rsplit(".", 1)[-1] != (renames[old] or "").rsplit(".", 1)[-1]:
            return None
    return new
