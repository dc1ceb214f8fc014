"""Types of GDScript expressions per version, from the script models, the scenes and the API index.

`Typer.receivers` gives the type left of every `.` in a span of a script: `undo.add_do_method(...)`
where another function's member says `var undo: UndoRedo`, `box.pressed` where `onready var box :=
$Panel/Box as CheckBox`, `get_tree().set_input_as_handled()`, `level.undo.add_do_method(...)` where
the project's `Level` declares `var undo := UndoRedo.new()`. What it cannot resolve stays UNKNOWN:
the judge then treats the use as unresolved, never as the class a name suggests.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from agent.apiindex import V3, V4, ApiIndex
from agent.gdscript.model import Decl, FunctionModel, ScriptModel
from agent.gdscript.types import UNKNOWN, GdType

_TYPED_ARRAY = re.compile(r"^Array\[.*\]$")
_GLOBALS = ("@GlobalScope", "@GDScript")
_LITERALS = {"integer": "int", "float": "float", "string": "String", "true": "bool", "false": "bool",
             "array": "Array", "dictionary": "Dictionary", "string_name": "StringName", "node_path": "NodePath"}
_BOOL_OPS = {"==", "!=", "<", ">", "<=", ">=", "and", "or", "&&", "||", "in", "is", "not"}
_VARIANT = "Variant"
_FIND_NODE = ("find_node", "find_child")
_GET_NODE = ("get_node", "get_node_or_null")


@dataclass
class ProjectScripts:
    """The project's scripts, each built into a `ScriptModel` once (lazily), and what names them."""

    sources: Mapping[str, str]
    class_paths: dict[str, str] = field(default_factory=dict)
    """`class_name` -> script path."""
    autoload_paths: dict[str, str] = field(default_factory=dict)
    """Autoload name -> script path (a scene autoload is left out: its root's script is not known here)."""
    resolve: Callable[[str, str], str] = lambda res, _from: res.removeprefix("res://")
    scene_nodes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Script path -> {node path relative to the node it is attached to: node type}."""
    node_names: Mapping[str, str] = field(default_factory=dict)
    """A node's name -> its type when no scene says (`ApiIndex.node_name_types`)."""
    _models: dict[str, ScriptModel | None] = field(default_factory=dict, repr=False)
    _members: frozenset[str] | None = field(default=None, repr=False)

    def model(self, path: str) -> ScriptModel | None:
        if path not in self._models:
            text = self.sources.get(path)
            self._models[path] = ScriptModel.build(text) if text and path.endswith(".gd") else None
        return self._models[path]

    def script_of(self, ref: str, from_path: str) -> str | None:
        """The script a `class_name`, an autoload or a quoted `res://` path names, if the project has it."""
        if ref[:1] in "\"'":
            target = ref.strip("\"'")
            if not target.startswith(("res://", "uid://", "/")):  # `extends "_.gd"`: relative to the script
                near = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), target))
                if near in self.sources:
                    return near
            path = self.resolve(target, from_path)
            return path if path in self.sources else None
        return self.class_paths.get(ref) or self.autoload_paths.get(ref)

    def member_names(self) -> frozenset[str]:
        """Every member name (func, var, const, signal) a script of the project declares (built once)."""
        if self._members is None:
            self._members = frozenset(n for p in self.sources if (m := self.model(p)) is not None
                                      for n, d in m.members.items() if d.kind in ("func", "var", "const", "signal"))
        return self._members


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


class Typer:
    """Expression types in the project's scripts; one per project context, caches per script member."""

    def __init__(self, scripts: ProjectScripts, api: ApiIndex) -> None:
        self.scripts = scripts
        self.api = api
        self._classes = api.class_names()
        self._member_cache: dict[tuple[str, str], GdType] = {}
        self._busy: set[tuple[str, str]] = set()

    # ------------------------------------------------------------ classes and members

    def engine_base(self, path: str, seen: frozenset[str] = frozenset()) -> str:
        """The engine class a script ends up extending ('' when unknown or a cycle)."""
        model = self.scripts.model(path)
        if model is None or path in seen or not model.extends:
            return "Reference" if model is not None and not model.extends else ""
        base = self.scripts.script_of(model.extends, path)
        if base is not None:
            return self.engine_base(base, seen | {path})
        return model.extends if model.extends in self._classes else ""

    def _user_chain(self, path: str) -> list[str]:
        chain = [path]
        while len(chain) < 16:
            model = self.scripts.model(chain[-1])
            nxt = self.scripts.script_of(model.extends, chain[-1]) if model and model.extends else None
            if nxt is None or nxt in chain:
                break
            chain.append(nxt)
        return chain

    def declared_by(self, path: str, name: str) -> tuple[str, Decl] | None:
        """(script, declaration) of `name` in the script or its project base scripts."""
        for p in self._user_chain(path):
            model = self.scripts.model(p)
            if model is not None and name in model.members:
                return p, model.members[name]
            if model is not None and name in model.enum_values:
                return p, Decl(name, "const", 0, "int")
        return None

    def type_named(self, name: str, from_path: str) -> GdType:
        """A type as code names it (`UndoRedo`, `Array[Node]`, a `class_name`, `"res://x.gd"`)."""
        name = name.strip()
        if _TYPED_ARRAY.match(name):
            return GdType.of("Array")
        script = self.scripts.script_of(name, from_path)
        if script is not None:
            return GdType(script, script, user=True)
        return GdType.of(name, open=True) if name in self._classes else UNKNOWN

    def member(self, owner: GdType, name: str, *, call: bool) -> GdType:
        """The type `owner.name` holds (a property) or returns (`call`); a guess stays a guess down a chain."""
        found = self._member(owner, name, call=call)
        return replace(found, guessed=True) if owner.guessed and found.known else found

    def _member(self, owner: GdType, name: str, *, call: bool) -> GdType:
        if not owner.known:
            return UNKNOWN
        if owner.user:
            found = self.declared_by(owner.v3, name)
            if found is not None:
                path, decl = found
                if decl.kind == "func":
                    return self.type_named(decl.type_text, path) if decl.type_text else UNKNOWN
                if decl.kind in ("var", "const"):
                    return self.member_decl(path, decl)
                return UNKNOWN
            base = self.engine_base(owner.v3)
            return self.member(GdType.of(base), name, call=call) if base else UNKNOWN
        kinds = ("method",) if call else ("property", "constant")
        sides = []
        for version in (V3, V4):
            side = owner.side(version)
            e = self.api.lookup(version, side, name, kinds) if side and side != _VARIANT else None
            ret = _TYPED_ARRAY.sub("Array", e.return_type) if e is not None else ""
            sides.append(ret if ret in self._classes or ret == _VARIANT else "")
        if sides[0] == sides[1]:
            return GdType(sides[0], sides[1])
        if _VARIANT in sides or "Object" in sides:
            return GdType(*(s if s not in ("Object",) else "" for s in sides))
        return GdType(sides[0], sides[1])

    def member_decl(self, path: str, decl: Decl) -> GdType:
        """A script member's type: declared, else its initializer's (cycles are UNKNOWN)."""
        key = (path, decl.name)
        if key in self._member_cache:
            return self._member_cache[key]
        if key in self._busy:
            return UNKNOWN
        self._busy.add(key)
        try:
            if decl.type_text:
                found = self.type_named(decl.type_text, path)
            elif decl.value is not None and decl.kind != "func":
                found = self.expr(decl.value, path, None)
            else:
                found = UNKNOWN
        finally:
            self._busy.discard(key)
        self._member_cache[key] = found
        return found

    # ------------------------------------------------------------ expressions

    def name(self, node: Node, name: str, path: str, func: FunctionModel | None) -> GdType:
        """The type of a bare name at `node`: local, parameter, member, inherited member, class, autoload."""
        line = node.start_point[0] + 1
        if name == "self":
            return GdType(path, path, user=True)
        narrowed = _narrowed(node, name)
        if narrowed:
            return self.type_named(narrowed, path)
        if func is not None:
            if name in func.locals:
                before = [d for d in func.locals[name] if d.line <= line]
                if not before:
                    return UNKNOWN
                d = before[-1]
                if d.kind == "loop":
                    return self._item_type(d.value, path, func)
                if d.type_text:
                    return self.type_named(d.type_text, path)
                return self.expr(d.value, path, func) if d.value is not None and d.value != node else UNKNOWN
            if name in func.params:
                d = func.params[name]
                if d.type_text:
                    return self.type_named(d.type_text, path)
                return UNKNOWN  # an untyped parameter holds whatever the caller passes
        found = self.declared_by(path, name)
        if found is not None:
            p, decl = found
            return self.member_decl(p, decl) if decl.kind in ("var", "const") else UNKNOWN
        script = self.scripts.script_of(name, path)
        if script is not None:
            return GdType(script, script, user=True)
        if name in self._classes:
            return GdType.of(name)
        base = self.engine_base(path)
        return self.member(GdType.of(base), name, call=False) if base else UNKNOWN

    def expr(self, node: Node | None, path: str, func: FunctionModel | None) -> GdType:
        if node is None:
            return UNKNOWN
        t = node.type
        if t in _LITERALS:
            return GdType.of(_LITERALS[t])
        if t == "identifier":
            return self.name(node, _text(node), path, func)
        if t in ("parenthesized_expression", "expression_statement"):
            inner = [c for c in node.children if c.is_named]
            return self.expr(inner[0], path, func) if len(inner) == 1 else UNKNOWN
        if t == "attribute":
            return self._chain(node, path, func)[1]
        if t == "call":
            return self._call(node, path, func)
        if t == "get_node":
            return self._node(_text(node), path)
        if t == "binary_operator":
            kids = node.children
            op = _text(kids[1]) if len(kids) == 3 else ""
            if op == "as":
                return self.type_named(_text(kids[2]), path)
            if op in _BOOL_OPS:
                return GdType.of("bool")
            return UNKNOWN
        if t == "conditional_expression":
            a = self.expr(node.child_by_field_name("left"), path, func)
            b = self.expr(node.child_by_field_name("right"), path, func)
            return a if a == b else UNKNOWN
        return UNKNOWN

    def _call(self, node: Node, path: str, func: FunctionModel | None) -> GdType:
        callee = node.children[0] if node.children else None
        args = node.child_by_field_name("arguments")
        first = next((c for c in (args.children if args is not None else ()) if c.is_named), None)
        if callee is None or callee.type != "identifier":
            return UNKNOWN
        name = _text(callee)
        if name in ("preload", "load") and first is not None and first.type == "string":
            target = _text(first).strip("\"'")
            if target.endswith(".gd"):
                script = self.scripts.script_of(f'"{target}"', path)
                return GdType(script, script, user=True) if script else GdType.of("GDScript")
            return GdType.of("PackedScene") if target.endswith((".tscn", ".scn")) else UNKNOWN
        if name in _GET_NODE and first is not None and first.type == "string":
            return self._node(_text(first).strip("\"'"), path, dollar=False)
        if name in _FIND_NODE and first is not None and first.type == "string":
            return self._unique(_text(first).strip("\"'"), path)
        if name in self._classes:
            return GdType.of(name)  # a constructor: Vector2(...), Color(...)
        found = self.declared_by(path, name)
        if found is not None:
            p, decl = found
            return self.type_named(decl.type_text, p) if decl.kind == "func" and decl.type_text else UNKNOWN
        base = self.engine_base(path)
        own = self.member(GdType.of(base), name, call=True) if base else UNKNOWN
        if own.known:
            return own
        sides = []  # a global function: max(a, b) is a float in 3.4 (@GDScript) and a Variant in 4.x (@GlobalScope)
        for version in (V3, V4):
            e = next((e for g in _GLOBALS if (e := self.api.lookup(version, g, name, ("method",)))), None)
            ret = e.return_type if e is not None else ""
            sides.append(ret if ret in self._classes or ret == _VARIANT else "")
        return GdType(*sides)

    def _chain(self, node: Node, path: str, func: FunctionModel | None,
               dots: dict[int, tuple[GdType, str]] | None = None) -> tuple[Node, GdType]:
        """Type an `a.b.c()` chain left to right; each `.`'s receiver type goes into `dots` (by byte offset)."""
        kids = node.children
        cur = self.expr(kids[0], path, func) if kids else UNKNOWN
        if kids and kids[0].type in ("binary_operator", "unary_operator", "conditional_expression"):
            cur = UNKNOWN  # tree-sitter-gdscript reads `not a.b or c.d.e()` as `(not a.b or c.d).e()`: no receiver
        i = 1
        while i + 1 < len(kids):
            dot, part = kids[i], kids[i + 1]
            if dots is not None:
                member = part if part.type == "identifier" else (part.children[0] if part.children else part)
                dots[dot.start_byte] = (cur, _text(member))
            if part.type == "identifier":
                cur = self.member(cur, _text(part), call=False)
            elif part.type == "attribute_call":
                name = _text(part.children[0]) if part.children else ""
                cur = self._method(cur, name, part, path) if cur.known else UNKNOWN
            elif part.type == "attribute_subscript":
                cur = UNKNOWN  # an element: the index's item type is not tracked
            else:
                cur = UNKNOWN
            i += 2
        return node, cur

    def _method(self, owner: GdType, name: str, call: Node, path: str) -> GdType:
        if name == "new":
            return owner
        if name in _GET_NODE or name in _FIND_NODE:
            return UNKNOWN  # another node's children: no scene of ours says
        return self.member(owner, name, call=True)

    def _item_type(self, iterable: Node | None, path: str, func: FunctionModel | None) -> GdType:
        """`for c in get_children()`: 4.x documents the items as Node; a `range()` gives ints."""
        if iterable is None:
            return UNKNOWN
        if iterable.type == "call" and _text(iterable.children[0]) == "range":
            return GdType.of("int")
        return UNKNOWN

    def _node(self, text: str, path: str, *, dollar: bool = True) -> GdType:
        """`$Panel/Box`, `$"A/B"`, `%Unique`, `get_node("A/B")`: the scene's node type, else its name's."""
        raw = text[1:] if dollar else text
        if dollar and text.startswith("%"):
            return self._unique(raw.strip("\"'"), path)
        node_path = raw.strip().strip("\"'").strip("/")
        if node_path.startswith("%"):
            return self._unique(node_path[1:], path)
        nodes = self.scripts.scene_nodes.get(path, {})
        if node_path in nodes:
            return GdType.of(nodes[node_path], open=True)
        guess = self.scripts.node_names.get(node_path.rsplit("/", 1)[-1])
        return GdType.of(guess, open=True, guessed=True) if guess else UNKNOWN

    def _unique(self, name: str, path: str) -> GdType:
        """A node found by name anywhere below (`%Name`, `find_node("Name")`): one scene type, else its name's."""
        nodes = self.scripts.scene_nodes.get(path, {})
        types = {t for p, t in nodes.items() if p.rsplit("/", 1)[-1] == name}
        if len(types) == 1:
            return GdType.of(types.pop(), open=True)
        guess = self.scripts.node_names.get(name)
        return GdType.of(guess, open=True, guessed=True) if guess and not types else UNKNOWN

    # ------------------------------------------------------------ spans

    def dot_types(self, path: str, start_byte: int = 0, end_byte: int | None = None) -> dict[int, tuple[GdType, str]]:
        """Every `.` in the script's bytes [start, end) -> (its receiver's type, the member named right of it).

        Code inside an inner class is left out (another scope: the model types column-0 functions)."""
        model = self.scripts.model(path)
        if model is None or model.tree is None:
            return {}
        end = len(model.source) if end_byte is None else end_byte
        dots: dict[int, tuple[GdType, str]] = {}

        def walk(node: Node, func: FunctionModel | None) -> None:
            if node.end_byte <= start_byte or node.start_byte >= end or node.type == "class_definition":
                return
            if node.type == "function_definition" and node.parent is not None and node.parent.type == "source":
                func = model.function_at(node.start_point[0] + 1)
            if node.type == "attribute":
                self._chain(node, path, func, dots)
            for c in node.children:
                walk(c, func)

        walk(model.tree.root_node, None)
        return {at: v for at, v in dots.items() if start_byte <= at < end}

    def receivers(self, path: str, start_byte: int, end_byte: int) -> dict[int, str]:
        """The engine type left of every `.` in the script's bytes [start, end) that is resolved, by byte
        offset, in the one-string form (`apiindex.per_version_type`).

        A project object's own member (`level.undo`) is no engine member: that `.` maps to ''; its
        other members are its engine base's (`level.get_node(...)` on a Node2D script). So does a member
        some project script declares, used on a value whose class only the project's code or scenes name:
        that object may be one of those scripts. Code inside an inner class is left out (another scope).
        """
        out: dict[int, str] = {}
        for at, (t, member) in self.dot_types(path, start_byte, end_byte).items():
            if not t.known:
                continue
            if t.user:
                if self.declared_by(t.v3, member) is not None:
                    out[at] = ""  # the project's own member: no engine class's, whatever its name
                    continue
                t = GdType.of(self.engine_base(t.v3))
            elif t.open and member in self.scripts.member_names():
                out[at] = ""  # `-> Control` returning the project's editor scripts: their own `can_drop_data()`
                continue
            if t.encoded and _VARIANT not in (t.v3, t.v4):
                out[at] = t.encoded
        return out

    def inference_errors(self, path: str, first_line: int, last_line: int) -> list[tuple[Decl, GdType]]:
        """`var s := max(a, b)` in the lines, with the initializer's type: what 3.4 types (a float) and 4.x
        only as Variant, which `:=` refuses ("Cannot infer the type"): the script does not load in Godot 4."""
        model = self.scripts.model(path)
        if model is None:
            return []
        decls: list[tuple[Decl, FunctionModel | None]] = [(d, None) for d in model.members.values() if d.inferred]
        for func in model.functions:
            if func.first_line <= last_line and func.last_line >= first_line:
                decls += [(d, func) for ds in func.locals.values() for d in ds if d.inferred]
        out = []
        for d, func in decls:
            if first_line <= d.line <= last_line and d.value is not None:
                t = self.expr(d.value, path, func)
                if t.v4 == _VARIANT and t.v3 and t.v3 != _VARIANT:
                    out.append((d, t))
        return sorted(out, key=lambda dt: dt[0].line)


def _is_test(cond: Node | None, name: str) -> str | None:
    """`name is T` (or the left operand of an `and`/`&&` chain that holds it): T, else None."""
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_children:
        cond = cond.named_children[0]
    while cond is not None and cond.type == "binary_operator" and len(cond.children) == 3 \
            and _text(cond.children[1]) in ("and", "&&"):
        found = _is_test(cond.children[2], name)
        if found:
            return found
        cond = cond.children[0]
    if cond is not None and cond.type == "binary_operator" and len(cond.children) == 3 \
            and _text(cond.children[1]) == "is" and _text(cond.children[0]) == name:
        return _text(cond.children[2])
    return None


def _negated_test(cond: Node | None, name: str) -> str | None:
    """`not name is T`, `not (name is T)`, `!(name is T)`: T, else None."""
    while cond is not None and cond.type == "parenthesized_expression" and cond.named_children:
        cond = cond.named_children[0]
    if cond is not None and cond.type == "unary_operator" and cond.children \
            and _text(cond.children[0]) in ("not", "!"):
        return _is_test(cond.children[-1], name)
    if cond is not None and cond.type == "binary_operator" and len(cond.children) == 3 \
            and _text(cond.children[1]) == "is" and cond.children[0].type == "unary_operator":
        inner = cond.children[0]  # tree-sitter reads `not x is T` as `(not x) is T`
        if inner.children and _text(inner.children[0]) in ("not", "!") and _text(inner.children[-1]) == name:
            return _text(cond.children[2])
    return None


_EXITS = ("return_statement", "continue_statement", "break_statement")


def _narrowed(node: Node, name: str) -> str | None:
    """`if n is Sprite:` -- inside that branch `n` is a Sprite (the test alone, or any operand of an `and`/`&&`);
    after `if not n is Sprite: return` (or `continue`, `break`), `n` is a Sprite for the rest of the block."""
    cur = node.parent
    child = node
    while cur is not None and cur.type not in ("function_definition", "source"):
        if cur.type == "binary_operator" and len(cur.children) == 3 and _text(cur.children[1]) in ("and", "&&") \
                and child == cur.children[2]:
            found = _is_test(cur.children[0], name)  # `n is Key and n.pressed`: the right side sees the test
            if found:
                return found
        if cur.type == "body" and cur.parent is not None and cur.parent.type in ("if_statement", "elif_clause"):
            cond = cur.parent.child_by_field_name("condition") or next(
                (c for c in cur.parent.children if c.is_named and c.type != "body"), None)
            found = _is_test(cond, name)
            if found:
                return found
        if cur.type == "body":  # an early exit before this statement
            for st in cur.named_children:
                if st == child or st.start_byte >= child.start_byte:
                    break
                if st.type != "if_statement" or any(c.type in ("elif_clause", "else_clause") for c in st.children):
                    continue
                body = st.child_by_field_name("body") or next((c for c in st.children if c.type == "body"), None)
                stmts = body.named_children if body is not None else []
                if stmts and stmts[-1].type in _EXITS:
                    cond = st.child_by_field_name("condition") or next(
                        (c for c in st.children if c.is_named and c.type != "body"), None)
                    found = _negated_test(cond, name)
                    if found:
                        return found
        child = cur
        cur = cur.parent
    return None
