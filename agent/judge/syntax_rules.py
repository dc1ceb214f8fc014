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

from agent import changes
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
    docs: tuple[str, ...] = ()
    """Docs chunk ids documenting the change (syntax.json `docs`): fetched by id and cited first."""


def _r(p: str) -> re.Pattern[str]:
    return re.compile(p, re.MULTILINE)


# A script's own `var velocity` (any annotations or keywords before `var`). In a Godot 3 KinematicBody
# script it collides with CharacterBody's built-in property after migration: the evidence judge
# flags it, and retrieval looks up the mapping documenting that property.
VELOCITY_DECLARATION = _r(r"^[ \t]*(?:@?\w+(?:\([^)\n]*\))?\s+)*var\s+(?P<name>velocity)\b")


# @GDScript functions Godot 4 renamed in @GlobalScope (the converter's table; the rewrite applies them), and
# those replaced by other APIs (a person rewrites those): agent/data/changes, rule `renamed_global`
GLOBAL_FUNCTION_RENAMES = changes.renamed(rule="renamed_global")
_GLOBALS_REPLACED = changes.removed_names(rule="renamed_global")


RPC_KEYWORDS = "|".join(changes.syntax().rpc_keywords)
"""Godot 3's RPC keywords before `func` or `var` (`sync` and `slave` are remotesync's and puppet's aliases);
Godot 4 writes `@rpc`. The judge's rule and the retriever's lookup terms both read this one list."""


BASIS_FROM_EULER = r"(?<![\w.])Basis\s*\(\s*(?=Vector3\s*\([^()\n]*\)\s*\))"
"""`Basis(Vector3(x, y, z))`: 3.4's Euler-angle constructor (4.x has none: `Basis.from_euler`)."""

STRING_FROM = r"(?<![\w.$%@])String(?=\s*\(\s*[^\s)])"
"""`String(x)`: 3.4 builds a String from any value, 4.x only from a string type (`str(x)` from any)."""

NODEPATH_AT = r"(?<![\w)\]\"'])@(?=[\"'])"
"""The `@` of a Godot 3 NodePath literal `@"A/B"` (Godot 4 writes `^"A/B"`; `@` starts an annotation)."""


def _rule(name: str, pattern: str) -> SyntaxRule:
    """The rule `name`: its regex from here, what it means from agent/data/changes/syntax.json."""
    f = changes.rule_facts(name)
    return SyntaxRule(name, f.version, _r(pattern), f.old, f.new, f.change_type, f.cues, f.mapping_keys, f.caveat,
                      f.scope, f.docs)


def _moved(rule: str) -> str:
    """`OS.window_size`, ...: the members of a class that moved to another (syntax.json `moved`, the rule's renames)."""
    m = changes.moved(rule)
    return rf"\b{re.escape(m.cls)}\s*\.\s*(" + changes.alternation(changes.moved_names(rule), m.prefixes) + r")\b"


def _godot4_api() -> str:
    """Names only Godot 4 has (syntax.json `godot4_only`)."""
    only = changes.syntax().godot4_only
    names = [changes.alternation(only.names), rf"(?<![.\w])({changes.alternation(only.globals)})",
             *(rf"{re.escape(c)}\s*\.\s*{re.escape(p)}\w+" for c, p in only.static_prefixes)]
    return r"\b(" + "|".join(names) + r")\b" + "".join(rf"|\b{re.escape(c)}\s*\(\s*\)" for c in only.calls)


def _names(*names: str) -> str:
    """A capturing group of whole names: `(PoolByteArray|PoolIntArray|...)`."""
    return "(" + changes.alternation(names) + ")"


_FILE_CLASSES = changes.renamed(rule="file_class", kind="class")
"""`File` -> `FileAccess`, `Directory` -> `DirAccess`: opened by a static call, never `.new()`."""

# Each rule's regex is here; what it means (old, new, cues, mapping keys, ...) and the names a regex lists are
# data: agent/data/changes (syntax.json, and the renames.json / removed.json rows of the rule).
GDSCRIPT_RULES: tuple[SyntaxRule, ...] = (
    # --- Godot 3 only ---
    _rule("export_keyword", r"^\s*export\b(\s*\([^)\n]*\))?\s+var\b"),
    _rule("onready_keyword", r"^\s*onready\s+var\b"),
    _rule("tool_keyword", r"^\s*tool\s*$"),
    _rule("setget", r"\bsetget\b"),
    _rule("yield", r"\byield\s*\("),
    _rule("rpc_keyword", rf"^\s*({RPC_KEYWORDS})\s+(func|var)\b"),
    _rule("connect_string_method", r"\bconnect\s*\(\s*([\"'])[^\"'\n]*\1\s*,\s*[\w.$]+\s*,\s*[\"']"),
    _rule("disconnect_string_method",
          r"\b(disconnect|is_connected)\s*\(\s*([\"'])[^\"'\n]*\2\s*,\s*[\w.$]+\s*,\s*[\"']"),
    _rule("class_name_icon", r"^\s*class_name\s+\w+\s*,\s*[\"']"),
    _rule("move_and_slide_args", r"\bmove_and_slide(_with_snap)?\s*\(\s*[^)\s]"),
    _rule("funcref", r"\bfuncref\s*\("),
    _rule("file_class", r"\b" + _names(*_FILE_CLASSES) + r"\s*\.\s*new\s*\("),
    _rule("os_window", _moved("os_window")),
    _rule("os_time", _moved("os_time")),
    _rule("tween_node", r"(\.\s*" + _names(*changes.removed_names(rule="tween_node")) + r"\s*\(|"
                        r"\b(?:" + changes.alternation(changes.removed_classes("tween_node")) + r")\s*\.\s*new\s*\()"),
    _rule("thread_start_old", r"\.\s*start\s*\(\s*self\s*,\s*[\"']"),
    _rule("pool_array", r"\b" + _names(*changes.renamed(rule="pool_array")) + r"\b"),
    _rule("super_dot_call",
          r"(?:^\s*(?:return\s+|(?:var\s+)?[\w.\[\]]+\s*(?::\s*\w*\s*)?=\s*)?|\b(?:if|elif|while|not|and|or)\s+)"
          r"\.\s*[A-Za-z_]\w*\s*\("),
    _rule("init_super_args", r"\bfunc\s+_init\s*\([^)\n]*\)\s*\.\s*\("),
    # `p_obj is p_type` with a variable on the right (Godot 4 wants a type: `is_instance_of(p_obj, p_type)`);
    # facts keep only matches whose name the chunk declares as a parameter or variable
    _rule("is_variable_type", r"\bis\s+(?!not\b)(?P<name>[a-z_]\w*)\b(?!\s*[.(\[])"),
    _rule("xform", r"\.\s*" + _names(*changes.removed_names(rule="xform")) + r"\s*\("),
    _rule("rect_properties", r"(\.|^\s*|\bself\.)" + _names(*changes.renamed(rule="rect_properties")) + r"\b"),
    _rule("renamed_global", r"(?<![\w.])(?<!func )" + _names(*GLOBAL_FUNCTION_RENAMES, *_GLOBALS_REPLACED) + r"\s*\("),
    # `@"A/B"` is Godot 3's NodePath literal; in Godot 4 `@` starts an annotation and the literal is `^"A/B"`
    _rule("nodepath_literal", NODEPATH_AT + r"(\"\"\"|'''|\"|')[^\n]*?\1"),
    _rule("basis_euler", BASIS_FROM_EULER + r"Vector3\s*\([^()\n]*\)\s*\)"),
    # --- Godot 4 only ---
    _rule("annotation", r"^\s*@(export\w*|onready|tool|rpc|warning_ignore\w*|icon|static_unload|abstract)\b"),
    _rule("await", r"\bawait\b"),
    _rule("typed_collection", r"\b(Array|Dictionary)\s*\[\s*[A-Za-z_]"),
    _rule("lambda", r"\bfunc\s*\("),
    _rule("super_call", r"\bsuper\s*[.(]"),
    _rule("callable_connect", r"\.\s*connect\s*\(\s*(func\b|[A-Za-z_][\w.]*(\s*\.\s*bind\s*\([^)\n]*\))?\s*"
                              r"(\)|,\s*(Object\s*\.\s*)?(CONNECT_\w+|\d+)\s*\)))"),
    _rule("signal_emit", r"\b[a-z_]\w*\s*\.\s*emit\s*\("),
    _rule("move_and_slide_no_args", r"\bmove_and_slide\s*\(\s*\)"),
    _rule("godot4_api", _godot4_api()),
)

# Direct chunks (.tscn/.tres/project.godot): raw text, strings matter there.
DIRECT_RULES: tuple[SyntaxRule, ...] = (
    _rule("scene_format_2", r"^\[gd_(scene|resource)\b[^\]\n]*\bformat=2\b"),
    _rule("config_version_4", r"^config_version\s*=\s*4\b"),
    _rule("ext_resource_int_id", r"\bExtResource\(\s*\d+\s*\)"),
    _rule("scene_format_3", r"^\[gd_(scene|resource)\b[^\]\n]*\bformat=[34]\b"),
    _rule("config_version_5", r"^config_version\s*=\s*5\b"),
    _rule("uid", r"\buid=\"uid://"),
    _rule("features_4", r'config/features\s*=\s*PackedStringArray\(\s*"4\.'),
)


GRAMMAR: dict[str, frozenset[str]] = {
    version: frozenset(f.name for f in changes.syntax().rules if f.grammar and f.version == version)
    for version in ("godot3", "godot4")}
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
