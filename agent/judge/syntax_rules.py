"""Version syntax rules: patterns that only one Godot major version accepts.

Facts about the language (GDScript 1 vs 2, scene format 2 vs 3), run on the masked
text from `lexer.lex`, so nothing inside a comment or string literal matches.
`cue` words locate supporting evidence among the retrieved hits (docs/prototypes
whose text mentions them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from agent.judge.receivers import is_continuation


@dataclass(frozen=True)
class SyntaxRule:
    """One syntax pattern and what it means."""

    name: str
    version: str  # "godot3" | "godot4"
    pattern: re.Pattern[str]
    old: str = ""
    new: str = ""
    change_type: str = "syntax_change"
    cues: tuple[str, ...] = ()
    mapping_keys: tuple[str, ...] = ()
    """Old names of the api_mapping record that documents this change (`yield`, `Thread.start`)."""
    caveat: str = ""
    """What else changes with the migration (shown in the item's note)."""
    scope: str = "expression"
    """What a migration item shows as `old`: the whole call (`expression`) or the line (`statement`)."""


def _r(p: str) -> re.Pattern[str]:
    return re.compile(p, re.MULTILINE)


# A script's own `var velocity` (any annotations or keywords before `var`). In a Godot 3 KinematicBody
# script it collides with CharacterBody's built-in property after migration: the evidence judge
# flags it, and retrieval looks up the mapping documenting that property.
VELOCITY_DECLARATION = _r(r"^[ \t]*(?:@?\w+(?:\([^)\n]*\))?\s+)*var\s+(?P<name>velocity)\b")


# @GDScript functions Godot 4 renamed in @GlobalScope (the converter's table; the rewrite applies them), and
# those replaced by other APIs (a person rewrites those)
GLOBAL_FUNCTION_RENAMES = {
    "rand_range": "randf_range", "deg2rad": "deg_to_rad", "rad2deg": "rad_to_deg", "stepify": "snapped",
    "range_lerp": "remap", "str2var": "str_to_var", "var2str": "var_to_str", "bytes2var": "bytes_to_var",
    "var2bytes": "var_to_bytes", "linear2db": "linear_to_db", "db2linear": "db_to_linear",
    "dict2inst": "dict_to_inst", "inst2dict": "inst_to_dict", "rand_seed": "rand_from_seed"}
_GLOBALS_REPLACED = ("polar2cartesian", "cartesian2polar", "parse_json", "to_json", "validate_json")


RPC_KEYWORDS = "remote|master|puppet|remotesync|mastersync|puppetsync|sync|slave"
"""Godot 3's RPC keywords before `func` or `var` (`sync` and `slave` are remotesync's and puppet's aliases);
Godot 4 writes `@rpc`. The judge's rule and the retriever's lookup terms both read this one list."""


BASIS_FROM_EULER = r"(?<![\w.])Basis\s*\(\s*(?=Vector3\s*\([^()\n]*\)\s*\))"
"""`Basis(Vector3(x, y, z))`: 3.4's Euler-angle constructor (4.x has none: `Basis.from_euler`)."""

STRING_FROM = r"(?<![\w.$%@])String(?=\s*\(\s*[^\s)])"
"""`String(x)`: 3.4 builds a String from any value, 4.x only from a string type (`str(x)` from any)."""

NODEPATH_AT = r"(?<![\w)\]\"'])@(?=[\"'])"
"""The `@` of a Godot 3 NodePath literal `@"A/B"` (Godot 4 writes `^"A/B"`; `@` starts an annotation)."""

GDSCRIPT_RULES: tuple[SyntaxRule, ...] = (
    # --- Godot 3 only ---
    SyntaxRule("export_keyword", "godot3", _r(r"^\s*export\b(\s*\([^)\n]*\))?\s+var\b"),
               "export var", "@export var", "annotation", ("@export", "export"), mapping_keys=("export",), scope="statement"),
    SyntaxRule("onready_keyword", "godot3", _r(r"^\s*onready\s+var\b"),
               "onready var", "@onready var", "annotation", ("@onready", "onready"), mapping_keys=("onready",), scope="statement"),
    SyntaxRule("tool_keyword", "godot3", _r(r"^\s*tool\s*$"), "tool", "@tool", "annotation", ("@tool",), mapping_keys=("tool",), scope="statement"),
    SyntaxRule("setget", "godot3", _r(r"\bsetget\b"), "setget", "var x: set = setter, get = getter",
               "syntax_change", ("setget", "setter"), mapping_keys=("setget",), scope="statement",
               caveat="the setter/getter now runs on every access, also inside the class"),
    SyntaxRule("yield", "godot3", _r(r"\byield\s*\("), "yield(obj, \"signal\")", "await obj.signal",
               "syntax_change", ("await", "yield"), mapping_keys=("yield",)),
    SyntaxRule("rpc_keyword", "godot3",
               _r(rf"^\s*({RPC_KEYWORDS})\s+(func|var)\b"),
               "remote/master/puppet", "@rpc", "annotation", ("@rpc", "rpc"), scope="statement"),
    SyntaxRule("connect_string_method", "godot3",
               _r(r"\bconnect\s*\(\s*([\"'])[^\"'\n]*\1\s*,\s*[\w.$]+\s*,\s*[\"']"),
               'connect("signal", target, "method")', "signal.connect(callable)", "call_form",
               ("connect", "Callable"), mapping_keys=("connect",)),
    SyntaxRule("disconnect_string_method", "godot3",
               _r(r"\b(disconnect|is_connected)\s*\(\s*([\"'])[^\"'\n]*\2\s*,\s*[\w.$]+\s*,\s*[\"']"),
               'disconnect("signal", target, "method")', "signal.disconnect(callable)", "call_form",
               ("disconnect", "is_connected", "Callable"), mapping_keys=("disconnect", "is_connected")),
    SyntaxRule("class_name_icon", "godot3", _r(r"^\s*class_name\s+\w+\s*,\s*[\"']"),
               'class_name X, "icon.svg"', '@icon("icon.svg") + class_name X', "annotation", ("@icon", "class_name"),
               mapping_keys=("class_name",), scope="statement",
               caveat="@icon goes at the top of the script, before extends and class_name"),
    SyntaxRule("move_and_slide_args", "godot3", _r(r"\bmove_and_slide(_with_snap)?\s*\(\s*[^)\s]"),
               "move_and_slide(velocity, ...)", "velocity property + move_and_slide()", "call_form",
               ("move_and_slide",), mapping_keys=("move_and_slide", "move_and_slide_with_snap"), scope="statement",
               caveat="velocity and up_direction are CharacterBody properties; move_and_slide() returns a bool"),
    SyntaxRule("funcref", "godot3", _r(r"\bfuncref\s*\("), "funcref(obj, \"m\")", "Callable(obj, \"m\")",
               "rename_or_replacement", ("Callable", "funcref"), mapping_keys=("funcref",)),
    SyntaxRule("file_class", "godot3", _r(r"\b(File|Directory)\s*\.\s*new\s*\("),
               "File.new()/Directory.new()", "FileAccess.open(path, mode) / DirAccess.open(path) (static, no .new())", "removed",
               ("FileAccess", "DirAccess"), scope="statement"),
    SyntaxRule("os_window", "godot3",
               _r(r"\bOS\s*\.\s*(window_\w+|set_window_\w+|get_window_\w+|is_window_\w+|get_screen_\w+|"
                  r"screen_\w+|set_borderless_window|vsync_enabled|set_use_vsync|center_window|"
                  r"set_current_screen|get_current_screen|min_window_size|max_window_size|keep_screen_on)\b"),
               "OS window/screen API", "DisplayServer window_*/screen_* methods", "moved", ("DisplayServer",)),
    SyntaxRule("os_time", "godot3",
               _r(r"\bOS\s*\.\s*(get_ticks_msec|get_ticks_usec|get_unix_time\w*|get_datetime\w*|get_date|"
                  r"get_time|get_system_time_\w+|get_time_zone_info)\b"),
               "OS time API", "Time", "moved", ("Time",)),
    SyntaxRule("tween_node", "godot3",
               _r(r"(\.\s*interpolate_(property|method|callback|deferred_callback)\s*\(|\bTween\s*\.\s*new\s*\()"),
               "Tween node interpolate_*", "create_tween().tween_property()", "removed",
               ("create_tween", "Tween"), mapping_keys=("Tween", "interpolate_property", "Tween.new")),
    SyntaxRule("thread_start_old", "godot3", _r(r"\.\s*start\s*\(\s*self\s*,\s*[\"']"),
               'thread.start(self, "f")', "thread.start(f)", "call_form", ("Thread",), mapping_keys=("Thread.start",),
               caveat="the function gets no userdata argument; pass values with bind()"),
    SyntaxRule("pool_array", "godot3", _r(r"\bPool(Byte|Int|Real|String|Vector2|Vector3|Color)Array\b"),
               "PoolArray types", "Packed*Array", "rename_or_replacement", ("Packed",)),
    SyntaxRule("super_dot_call", "godot3",
               _r(r"(?:^\s*(?:return\s+|(?:var\s+)?[\w.\[\]]+\s*(?::\s*\w*\s*)?=\s*)?|\b(?:if|elif|while|not|and|or)\s+)"
                  r"\.\s*[A-Za-z_]\w*\s*\("),
               ".method() super call",
               "super.method()", "syntax_change", ("super",), mapping_keys=(".method()",)),
    SyntaxRule("init_super_args", "godot3", _r(r"\bfunc\s+_init\s*\([^)\n]*\)\s*\.\s*\("),
               "func _init().(args)", "super(args) in _init", "syntax_change", ("super",), mapping_keys=(".method()",)),
    # `p_obj is p_type` with a variable on the right (Godot 4 wants a type: `is_instance_of(p_obj, p_type)`);
    # facts keep only matches whose name the chunk declares as a parameter or variable
    SyntaxRule("is_variable_type", "godot3", _r(r"\bis\s+(?!not\b)(?P<name>[a-z_]\w*)\b(?!\s*[.(\[])"),
               "x is variable", "is_instance_of(x, variable)", "syntax_change", ("is_instance_of",),
               mapping_keys=("is_instance_of",)),
    SyntaxRule("xform", "godot3", _r(r"\.\s*xform(_inv)?\s*\("), "xform()", "* operator",
               "removed", ("Transform2D",), mapping_keys=("xform",)),
    SyntaxRule("rect_properties", "godot3",
               _r(r"(\.|^\s*|\bself\.)rect_(position|size|min_size|rotation|scale|pivot_offset|"
                  r"global_position|clip_content)\b"),
               "rect_* properties", "position/size/... without the rect_ prefix", "rename", ("Control",)),
    SyntaxRule("renamed_global", "godot3",
               _r(r"(?<![\w.])(?<!func )(" + "|".join((*GLOBAL_FUNCTION_RENAMES, *_GLOBALS_REPLACED)) + r")\s*\("),
               "Godot 3 global function", "renamed @GlobalScope function (randf_range, deg_to_rad, ...)",
               "rename", ("randf_range", "deg_to_rad", "rad_to_deg", "snapped", "remap", "JSON")),
    # `@"A/B"` is Godot 3's NodePath literal; in Godot 4 `@` starts an annotation and the literal is `^"A/B"`
    SyntaxRule("nodepath_literal", "godot3", _r(NODEPATH_AT + r"(\"\"\"|'''|\"|')[^\n]*?\1"),
               '@"path"', '^"path"', "syntax_change", ("NodePath",)),
    SyntaxRule("basis_euler", "godot3", _r(BASIS_FROM_EULER + r"Vector3\s*\([^()\n]*\)\s*\)"),
               "Basis(Vector3 euler)", "Basis.from_euler(Vector3 euler)", "signature_change",
               ("Basis.from_euler", "from_euler", "Basis")),
    # --- Godot 4 only ---
    SyntaxRule("annotation", "godot4",
               _r(r"^\s*@(export\w*|onready|tool|rpc|warning_ignore\w*|icon|static_unload|abstract)\b")),
    SyntaxRule("await", "godot4", _r(r"\bawait\b")),
    SyntaxRule("typed_collection", "godot4", _r(r"\b(Array|Dictionary)\s*\[\s*[A-Za-z_]")),
    SyntaxRule("lambda", "godot4", _r(r"\bfunc\s*\(")),
    SyntaxRule("super_call", "godot4", _r(r"\bsuper\s*[.(]")),
    SyntaxRule("callable_connect", "godot4", _r(r"\.\s*connect\s*\(\s*(func\b|[A-Za-z_][\w.]*(\s*\.\s*bind\s*\([^)\n]*\))?\s*"
                                         r"(\)|,\s*(Object\s*\.\s*)?(CONNECT_\w+|\d+)\s*\)))")),
    SyntaxRule("signal_emit", "godot4", _r(r"\b[a-z_]\w*\s*\.\s*emit\s*\(")),
    SyntaxRule("move_and_slide_no_args", "godot4", _r(r"\bmove_and_slide\s*\(\s*\)")),
    SyntaxRule("class_name_extends", "godot4", _r(r"^\s*class_name\s+\w+\s+extends\b")),
    SyntaxRule("godot4_api", "godot4",
               _r(r"\b(FileAccess|DirAccess|DisplayServer|CharacterBody[23]D|Node3D|create_tween|"
                  r"instantiate|change_scene_to_(file|packed)|queue_redraw|"
                  r"(?<![.\w])(randf_range|randi_range)|deg_to_rad|rad_to_deg|is_empty|"
                  r"Packed(Byte|Int32|Int64|Float32|Float64|String|Vector2|Vector3|Color)Array|TileMapLayer|"
                  r"AnimatedSprite[23]D|up_direction|"
                  r"Time\s*\.\s*get_\w+)\b|\bget_window\s*\(\s*\)")),
)

# Direct chunks (.tscn/.tres/project.godot): raw text, strings matter there.
DIRECT_RULES: tuple[SyntaxRule, ...] = (
    SyntaxRule("scene_format_2", "godot3", _r(r"^\[gd_(scene|resource)\b[^\]\n]*\bformat=2\b"),
               "format=2", "format=3", "file_format", ("format",)),
    SyntaxRule("config_version_4", "godot3", _r(r"^config_version\s*=\s*4\b"),
               "config_version=4", "config_version=5", "file_format", ("config_version",)),
    SyntaxRule("ext_resource_int_id", "godot3", _r(r"\bExtResource\(\s*\d+\s*\)"),
               "ExtResource( 1 )", 'ExtResource("1_xxxx")', "file_format", ("ExtResource",)),
    SyntaxRule("scene_format_3", "godot4", _r(r"^\[gd_(scene|resource)\b[^\]\n]*\bformat=[34]\b")),
    SyntaxRule("config_version_5", "godot4", _r(r"^config_version\s*=\s*5\b")),
    SyntaxRule("uid", "godot4", _r(r"\buid=\"uid://")),
    SyntaxRule("features_4", "godot4", _r(r'config/features\s*=\s*PackedStringArray\(\s*"4\.')),
)


GRAMMAR: dict[str, frozenset[str]] = {
    "godot3": frozenset({"export_keyword", "onready_keyword", "tool_keyword", "setget", "yield", "rpc_keyword",
                         "class_name_icon", "super_dot_call", "init_super_args", "nodepath_literal"}),
    "godot4": frozenset({"annotation", "await", "typed_collection", "lambda", "super_call", "class_name_extends"}),
}
"""The rules whose match the other version's parser rejects: GDScript 1 only (Godot 4 cannot load the script)
and GDScript 2 only (Godot 3 cannot). What makes a signal decisive (`agent.judge.strength`)."""


def written_in(masked: str) -> set[str]:
    """The grammars ("godot3", "godot4") a script's masked text uses: an `export var` or an `@export`, ..."""
    return {version for version, names in GRAMMAR.items()
            if any(r.name in names and r.pattern.search(masked) for r in GDSCRIPT_RULES)}


_FUNC_PARAMS = re.compile(r"\bfunc\s*[A-Za-z_]?\w*\s*\(([^)]*)\)")
FOR_VARIABLE = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\b")


def parameters(masked: str) -> set[str]:
    """Names of the parameters of every `func` (and lambda) in the code."""
    return {m.group(1) for params in _FUNC_PARAMS.findall(masked) for p in params.split(",")
            if (m := re.match(r"\s*([A-Za-z_]\w*)", p))}


def declared_variables(masked: str) -> set[str]:
    """Parameters, `var`s and loop variables the chunk declares (not consts, classes or functions)."""
    return set(re.findall(r"\bvar\s+([A-Za-z_]\w*)", masked)) | set(FOR_VARIABLE.findall(masked)) | parameters(masked)


_AFTER_KEYWORD = re.compile(r"\b(?:if|elif|while|not|and|or)\s+$")


def rule_matches(rule: SyntaxRule, scan: str) -> Iterator[tuple[re.Match[str], int]]:
    """The rule's matches and where each change begins.

    A `.method()` line counts only when it is not an expression's continuation, and its change begins at
    the parent call's own dot (`return .f(x)`, `if not .f(x)`: the call is the change, not the statement). `x is name`
    counts only when the chunk declares `name` as a parameter or variable.
    """
    variables = declared_variables(scan) if rule.name == "is_variable_type" else set()
    for m in rule.pattern.finditer(scan):
        if rule.name == "is_variable_type":
            if m.group("name") in variables:
                yield m, m.start()
            continue
        if rule.name != "super_dot_call":
            yield m, m.start()
            continue
        dot = scan.rindex(".", m.start(), m.end())  # the parent call's own dot, not one in `a.b = .f()`
        if _AFTER_KEYWORD.search(scan, 0, dot) or not is_continuation(scan, dot):
            yield m, dot  # `if not .validate(args)`: no expression ends in a keyword, so nothing continues
