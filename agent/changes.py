"""Godot 3 -> 4 changes as data: the renames, removals and syntax facts in agent/data/changes/*.json.

To add a change: add one row to agent/data/changes/renames.json (or removed.json, syntax.json, undocumented_3x.json), then one row
to `REWRITES`, `FOUND` or `DIMENSIONS` in tests/test_changes.py: Godot 3 code and what the rewrite or judge says.

Every module that knows a Godot 3 name reads it here (the judge's syntax rules, the mechanical rewrite, the
answer check, the project dimension); nothing else spells a rename out. Each file is read once per process.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data") / "changes"

KINDS = frozenset({"global_function", "class", "member", "property", "signal", "constant"})
"""What an old name is: a @GlobalScope/@GDScript function, a class, a method, a property, a signal, a constant."""

VERSIONS = frozenset({"godot3", "godot4"})
_IDENT = re.compile(r"[A-Za-z_]\w*")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")


class ChangeDataError(ValueError):
    """A data file of agent/data/changes does not have the shape the loader reads."""


@dataclass(frozen=True)
class Rename:
    """`old` became `new` (`Class.member` when the member moved to another class)."""

    old: str
    new: str
    kind: str
    classes: tuple[str, ...] = ()
    """The Godot 3 classes the member belongs to (empty: a global name or a class)."""
    rule: str = ""
    """The check that finds `old` in code: a syntax rule's name, or `godot3_member` (agent.answer.check)."""
    note: str = ""


@dataclass(frozen=True)
class Removal:
    """Godot 3 API with no same-shaped successor: a person rewrites the use (`note` says with what)."""

    old: str
    kind: str
    classes: tuple[str, ...] = ()
    rule: str = ""
    note: str = ""


@dataclass(frozen=True)
class Moved:
    """Members of `cls` that moved to `to` (`OS.window_size` -> DisplayServer), found by `rule`.

    `names` are whole member names, `prefixes` start a name (`window_` matches `window_size`); the rule
    also finds the old names of its renames.json rows and of its window properties.
    """

    rule: str
    cls: str
    to: str
    prefixes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class WindowProperty:
    """An OS window property and the DisplayServer calls that read (`get`) and write (`set`, `{}` = value) it."""

    old: str
    get: str
    set: str


@dataclass(frozen=True)
class Argument:
    """A positional argument of a Godot 3 call and the Godot 4 property it became (None: dropped)."""

    old: str
    new: str | None


@dataclass(frozen=True)
class RuleFacts:
    """What a syntax rule of agent.judge.syntax_rules says (its regex stays in Python)."""

    name: str
    version: str
    old: str = ""
    new: str = ""
    change_type: str = "syntax_change"
    cues: tuple[str, ...] = ()
    mapping_keys: tuple[str, ...] = ()
    caveat: str = ""
    scope: str = "expression"
    grammar: bool = False
    """A match the other version's parser rejects (what makes a signal decisive)."""
    docs: tuple[str, ...] = ()
    """Docs chunk ids that document the change (a file format: the upgrading guide), cited before any page
    that merely mentions a cue (`format` is on many pages)."""


@dataclass(frozen=True)
class Godot4Only:
    """Names only Godot 4 has: identifiers, global functions (never after a dot), `Class.prefix*`, `name()` calls."""

    names: tuple[str, ...]
    globals: tuple[str, ...]
    static_prefixes: tuple[tuple[str, str], ...]
    calls: tuple[str, ...]


@dataclass(frozen=True)
class TweenNode:
    """The Tween node's interpolations and their tweeners on a created Tween; the signals that said it ended."""

    interpolations: dict[str, str]
    ends: tuple[str, ...]
    finished: str


@dataclass(frozen=True)
class JsonParse:
    """Godot 3's `JSON.parse(text)` (a JSONParseResult) and its Godot 4 forms: `JSON.parse_string(text)` for the
    result alone, else a JSON object whose `parse()` returns the error and whose members say the rest."""

    cls: str
    parse: str
    parse_string: str
    error: str
    members: dict[str, str]
    """JSONParseResult member -> the JSON object's (`result` -> `data`, `error_line` -> `get_error_line()`)."""


@dataclass(frozen=True)
class Syntax:
    """syntax.json: the rules' facts and the name tables of the syntax rewrites."""

    rpc_keywords: tuple[str, ...]
    rpc_annotations: dict[str, str]
    """A Godot 3 RPC keyword on a function -> the Godot 4 annotation that lets the same peers call it."""
    moved: tuple[Moved, ...]
    os_window_properties: tuple[WindowProperty, ...]
    file_open_methods: tuple[str, ...]
    file_statics: dict[tuple[str, str], str]
    """(Godot 3 class, method) -> the Godot 4 static call that does the same on a File/Directory never opened
    (`dir.dir_exists(p)` -> `DirAccess.dir_exists_absolute(p)`: a new Directory works from res://)."""
    tween_node: TweenNode
    json_parse: JsonParse
    rigid_body_modes: dict[str, dict]
    """`mode = RigidBody2D.MODE_STATIC`: the Godot 3 classes (-> Godot 4's) and each mode's Godot 4 properties
    (`freeze_mode = FREEZE_MODE_STATIC`, `freeze = true`; a constant without its class is the body's own)."""
    move_and_slide_arguments: tuple[Argument, ...]
    godot4_only: Godot4Only
    rules: tuple[RuleFacts, ...]


def _read(name: str) -> dict:
    path = DATA_DIR / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ChangeDataError(f"{path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ChangeDataError(f"{path}: not a JSON object")
    return data


def _fields(row: object, where: str, required: set[str], optional: set[str]) -> dict:
    if not isinstance(row, dict):
        raise ChangeDataError(f"{where}: not an object: {row!r}")
    missing, unknown = required - row.keys(), row.keys() - required - optional
    if missing or unknown:
        raise ChangeDataError(f"{where}: missing {sorted(missing)}, unknown {sorted(unknown)}: {row!r}")
    return row


def _names(value: object, where: str, pattern: re.Pattern[str] = _IDENT) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and pattern.fullmatch(v) for v in value):
        raise ChangeDataError(f"{where}: not a list of identifiers: {value!r}")
    return tuple(value)


def _name(value: object, where: str, pattern: re.Pattern[str] = _IDENT) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ChangeDataError(f"{where}: not an identifier: {value!r}")
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ChangeDataError(f"{where}: not a string: {value!r}")
    return value


def _kind(value: object, where: str) -> str:
    if value not in KINDS:
        raise ChangeDataError(f"{where}: kind {value!r} is not one of {sorted(KINDS)}")
    return str(value)


@cache
def renames() -> tuple[Rename, ...]:
    """Every row of renames.json, in file order."""
    out = []
    for k, row in enumerate(_read("renames.json").get("renames", [])):
        where = f"renames.json row {k}"
        row = _fields(row, where, {"old", "new", "kind"}, {"classes", "rule", "note"})
        out.append(Rename(_name(row["old"], where), _name(row["new"], where, _DOTTED), _kind(row["kind"], where),
                          _names(row.get("classes", []), where), _name(row["rule"], where) if "rule" in row else "",
                          _text(row.get("note", ""), where)))
    return tuple(out)


@cache
def removed() -> tuple[Removal, ...]:
    """Every row of removed.json, in file order."""
    out = []
    for k, row in enumerate(_read("removed.json").get("removed", [])):
        where = f"removed.json row {k}"
        row = _fields(row, where, {"old", "kind"}, {"classes", "rule", "note"})
        out.append(Removal(_name(row["old"], where), _kind(row["kind"], where), _names(row.get("classes", []), where),
                           _name(row["rule"], where) if "rule" in row else "", _text(row.get("note", ""), where)))
    return tuple(out)


@dataclass(frozen=True)
class MemberRename:
    """A row of the converter's member tables (member_renames.json): `old` -> `new` on `classes`."""

    old: str
    new: str
    kind: str
    """method, property, signal or constant."""
    classes: tuple[str, ...] = ()
    enabled: bool = True
    """False where the converter deliberately leaves the name (too common a word, another class's member)."""


@cache
def member_renames() -> dict[str, tuple[MemberRename, ...]]:
    """The converter's member renames by old name (generated by scripts/member_renames.py)."""
    out: dict[str, list[MemberRename]] = {}
    for k, row in enumerate(_read("member_renames.json").get("members", [])):
        where = f"member_renames.json row {k}"
        row = _fields(row, where, {"old", "new", "kind", "classes", "enabled"}, {"source"})
        r = MemberRename(_name(row["old"], where), _name(row["new"], where, _DOTTED), _text(row["kind"], where),
                         _names(row["classes"], where), bool(row["enabled"]))
        out.setdefault(r.old, []).append(r)
    return {k: tuple(v) for k, v in out.items()}


@cache
def undocumented_in_34() -> frozenset[tuple[str, str]]:
    """(class, member) the 3.x engine had although the 3.4 reference omits them: never a Godot 4 cue."""
    out = set()
    for k, row in enumerate(_read("undocumented_3x.json").get("undocumented", [])):
        where = f"undocumented_3x.json row {k}"
        row = _fields(row, where, {"class", "member"}, {"note"})
        out.add((_name(row["class"], where), _name(row["member"], where)))
    return frozenset(out)


def _rule_facts(row: object, where: str) -> RuleFacts:
    row = _fields(row, where, {"name", "version"},
                  {"old", "new", "change_type", "cues", "mapping_keys", "caveat", "scope", "grammar", "docs"})
    if row["version"] not in VERSIONS:
        raise ChangeDataError(f"{where}: version {row['version']!r}")
    if "grammar" in row and not isinstance(row["grammar"], bool):
        raise ChangeDataError(f"{where}: grammar is not a boolean")
    for key in ("cues", "mapping_keys", "docs"):
        if not isinstance(row.get(key, []), list) or not all(isinstance(v, str) and v for v in row.get(key, [])):
            raise ChangeDataError(f"{where}: {key} is not a list of names")
    defaults = RuleFacts("", "")
    return RuleFacts(
        _name(row["name"], where), row["version"],
        *(_text(row.get(key, getattr(defaults, key)), where) for key in ("old", "new", "change_type")),
        tuple(row.get("cues", [])), tuple(row.get("mapping_keys", [])),
        _text(row.get("caveat", ""), where), _text(row.get("scope", defaults.scope), where), row.get("grammar", False),
        tuple(row.get("docs", [])))


@cache
def syntax() -> Syntax:
    """syntax.json."""
    data = _fields(_read("syntax.json"), "syntax.json",
                   {"rpc_keywords", "moved", "os_window_properties", "file_open_methods", "file_statics", "tween_node",
                    "json_parse", "rigid_body_modes", "move_and_slide_arguments", "godot4_only", "rules",
                    "rpc_annotations"}, {"about"})
    moved = []
    for k, row in enumerate(data["moved"]):
        where = f"syntax.json moved {k}"
        row = _fields(row, where, {"rule", "class", "to"}, {"prefixes", "names"})
        moved.append(Moved(_name(row["rule"], where), _name(row["class"], where), _name(row["to"], where),
                           _names(row.get("prefixes", []), where), _names(row.get("names", []), where)))
    props = []
    for k, row in enumerate(data["os_window_properties"]):
        where = f"syntax.json os_window_properties {k}"
        row = _fields(row, where, {"old", "get", "set"}, set())
        props.append(WindowProperty(_name(row["old"], where), _text(row["get"], where), _text(row["set"], where)))
    statics = {}
    for k, row in enumerate(data["file_statics"]):
        where = f"syntax.json file_statics {k}"
        row = _fields(row, where, {"class", "method", "to"}, set())
        statics[(_name(row["class"], where), _name(row["method"], where))] = _text(row["to"], where)
    tween = _fields(data["tween_node"], "syntax.json tween_node", {"interpolations", "ends", "finished"}, set())
    tween_node = TweenNode({_name(k, "syntax.json tween_node"): _name(v, "syntax.json tween_node")
                            for k, v in dict(tween["interpolations"]).items()},
                           _names(tween["ends"], "syntax.json tween_node ends"),
                           _name(tween["finished"], "syntax.json tween_node"))
    js = _fields(data["json_parse"], "syntax.json json_parse", {"class", "parse", "parse_string", "error", "members"},
                 set())
    json_parse = JsonParse(*(_name(js[k], "syntax.json json_parse") for k in ("class", "parse", "parse_string", "error")),
                           {_name(k, "syntax.json json_parse"): _text(v, "syntax.json json_parse")
                            for k, v in dict(js["members"]).items()})
    rb = _fields(data["rigid_body_modes"], "syntax.json rigid_body_modes", {"classes", "modes"}, set())
    rigid = {"classes": {_name(k, "rigid_body_modes"): _name(v, "rigid_body_modes") for k, v in rb["classes"].items()},
             "modes": {_name(k, "rigid_body_modes"): tuple(_text(x, "rigid_body_modes") for x in v)
                       for k, v in rb["modes"].items()}}
    args = []
    for k, row in enumerate(data["move_and_slide_arguments"]):
        where = f"syntax.json move_and_slide_arguments {k}"
        row = _fields(row, where, {"old", "new"}, set())
        args.append(Argument(_name(row["old"], where), None if row["new"] is None else _name(row["new"], where)))
    only = _fields(data["godot4_only"], "syntax.json godot4_only", {"names", "globals", "static_prefixes", "calls"}, set())
    prefixes = []
    for k, row in enumerate(only["static_prefixes"]):
        where = f"syntax.json godot4_only static_prefixes {k}"
        row = _fields(row, where, {"class", "prefix"}, set())
        prefixes.append((_name(row["class"], where), _name(row["prefix"], where)))
    godot4 = Godot4Only(_names(only["names"], "godot4_only names"), _names(only["globals"], "godot4_only globals"),
                        tuple(prefixes), _names(only["calls"], "godot4_only calls"))
    rules = tuple(_rule_facts(row, f"syntax.json rules {k}") for k, row in enumerate(data["rules"]))
    rpc = {_name(k, "syntax.json rpc_annotations"): _text(v, "syntax.json rpc_annotations")
           for k, v in dict(data["rpc_annotations"]).items()}
    return Syntax(_names(data["rpc_keywords"], "syntax.json rpc_keywords"), rpc, tuple(moved), tuple(props),
                  _names(data["file_open_methods"], "syntax.json file_open_methods"), statics, tween_node, json_parse,
                  rigid, tuple(args), godot4, rules)


@cache
def calls() -> dict:
    """calls.json: moved calls' Godot 4 forms by argument count, and moved signals (read by agent/judge/templates.py)."""
    return _read("calls.json")


@dataclass(frozen=True)
class ResourceChanges:
    """resources.json: what Godot 4 renamed in scenes, resources and project.godot (agent/migrate/resources.py)."""

    classes: dict[str, str]
    bases: dict[str, str]
    properties: dict[str, tuple[tuple[str, frozenset[str]], ...]]
    """old property -> ((new, the 3.4 classes it is renamed on), ...)."""
    unique: frozenset[str]
    """Old properties no 3.4 class outside their rows' classes defines: renamed on any section."""
    scaled: dict[tuple[str, str], tuple[str, float]]
    settings: dict[str, str]
    setting_values: dict[str, dict[str, str]]
    property_values: dict[str, dict[str, str]]
    """old property -> {old value: new value} (`pause_mode = 2` is `process_mode = 3`)."""
    input_map: dict[str, str]
    removed_nodes: dict[str, str]
    """A node type Godot 4 has no node for -> what to do instead (a TODO above the node's section)."""
    theme_overrides: tuple[tuple[str, str, frozenset[str]], ...]


@cache
def resource_changes() -> ResourceChanges:
    """resources.json: renames in scenes, resources and project.godot (generated by scripts/resource_changes.py)."""
    data = _read("resources.json")
    props: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for row in data["properties"]:
        props.setdefault(row["old"], []).append((row["new"], frozenset(row["classes"])))
    return ResourceChanges(
        classes=dict(data["classes"]), bases=dict(data["bases_34"]),
        properties={k: tuple(v) for k, v in props.items()},
        unique=frozenset(data.get("unique_properties", ())),
        scaled={(r["class"], r["old"]): (r["new"], float(r["factor"])) for r in data["scaled"]},
        settings=dict(data["settings"]), setting_values={k: dict(v) for k, v in data["setting_values"].items()},
        property_values={k.rsplit(".", 1)[-1]: dict(v) for k, v in data["property_values"].items()},
        input_map=dict(data["input_map"]), removed_nodes=dict(data.get("removed_nodes", {})),
        theme_overrides=tuple((r["old"], r["new"], frozenset(r["classes"])) for r in data["theme_overrides"]))



# ---------------------------------------------------------------- lookups


def renamed(*, rule: str | None = None, kind: str | None = None, cls: str | None = None) -> dict[str, str]:
    """{old: new} of the renames (in file order) found by `rule`, of `kind`, on class `cls`."""
    return {r.old: r.new for r in renames()
            if (rule is None or r.rule == rule) and (kind is None or r.kind == kind)
            and (cls is None or cls in r.classes)}


def removed_names(*, rule: str | None = None, kind: str | None = None) -> tuple[str, ...]:
    """Old names of the removals found by `rule`, of `kind`, in file order."""
    return tuple(r.old for r in removed() if (rule is None or r.rule == rule) and (kind is None or r.kind == kind))


def removed_classes(rule: str) -> tuple[str, ...]:
    """The classes whose members `rule`'s removals are (`Tween` for `tween_node`), in file order."""
    return tuple(dict.fromkeys(c for r in removed() if r.rule == rule for c in r.classes))


def rule_facts(name: str) -> RuleFacts:
    """The facts of the syntax rule `name`; KeyError when syntax.json has none."""
    for facts in syntax().rules:
        if facts.name == name:
            return facts
    raise KeyError(name)


def moved(rule: str) -> Moved:
    """The moved members `rule` finds; KeyError when syntax.json has none."""
    for m in syntax().moved:
        if m.rule == rule:
            return m
    raise KeyError(rule)


def moved_names(rule: str) -> tuple[str, ...]:
    """Whole old names `rule` finds: its moved names, its window properties (os_window) and its renames."""
    extra = [p.old for p in syntax().os_window_properties] if rule == "os_window" else []
    return tuple(dict.fromkeys([*moved(rule).names, *extra, *renamed(rule=rule)]))


def alternation(names: Iterable[str], prefixes: Iterable[str] = ()) -> str:
    r"""A regex alternation of whole `names` and of names starting with a prefix (`window_\w+`)."""
    return "|".join([*(re.escape(p) + r"\w+" for p in prefixes), *(re.escape(n) for n in names)])
