"""A GDScript 4 checker on the semantic model: what Godot 4's analyzer refuses in a script, and why.

Binding first, then types, then checks (mypy's semanal -> checkexpr, pyflakes' scopes): each function body
is walked in order with a scope per block, so a name resolves to the local, parameter, member, inherited
member (project base scripts, then the engine class's 4.x reference), global, singleton, autoload or
`class_name` it means; `agent.gdscript.typer.Typer` gives the receiver of every `.`; the API index says
what 4.x defines. The rules, each a `Diagnostic.rule`:

- `syntax`: tree-sitter or gdtoolkit 4 (an independent Godot 4 grammar) cannot read the script;
- `godot3-syntax`: Godot 3 grammar Godot 4 dropped (`setget`, `onready var`, `export(...)`, `yield`, `tool`,
  `remote func`, `.f()` parent calls, `func _init().(...)`, `var` in parameters);
- `undeclared-name`: a name nothing declares (a Godot 3 class or global, with its successor as a fix);
- `unknown-member`: a member the receiver's 4.x class (and its subclasses) lacks, on a type the code or a
  scene states (never on a guess);
- `godot3-member`: a member no 4.x class defines and no project script declares, which the converter's
  tables rename: whatever the receiver, Godot 4 has no such member (fixed by the rename, `safe`);
- `call-arity`: a call whose argument count no 4.x signature (or the script's own function) takes;
- `redeclared-member`: a member that redeclares a base class's property, signal, constant or enum, or a
  method of the engine that is no virtual (Godot 4's native-method override error), or an override with
  a signature the base does not fit;
- `not-a-signal`: `.connect`/`.emit` on what is no signal, a signal named by string the class lacks;
- `super-missing`: `super.f()` where no base class has `f`;
- `coroutine-needs-await`: the value of a function that awaits, used without `await`;
- `accessor-in-class` (only for code migrated from Godot 3): a property with a setter or getter used
  bare inside its own class, where Godot 3's `setget` did not run the accessor and Godot 4 does.

Absence is evidence only where it can be: with a complete 4.x reference, on a script whose engine base
4.x documents. A PascalCase name no version documents may be a class newer than the docs or a
GDExtension's, and is never reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tree_sitter import Node

from agent import changes
from agent.apiindex import V3, V4, ApiEntry, ApiIndex
from agent.gdscript.diagnostics import CheckReport, Diagnostic, Edit, FileCheck, Fix
from agent.gdscript.grammar import godot4_grammar_error, line_start
from agent.gdscript.model import ScriptModel
from agent.gdscript.typer import ProjectScripts, Typer
from agent.gdscript.types import GdType

_GLOBALS = ("@GlobalScope", "@GDScript")
_KEYWORDS = frozenset({"self", "super", "true", "false", "null", "void", "PI", "TAU", "INF", "NAN", "Variant",
                       "new"})
"""Names every class has: `new()` bare builds another instance of the script."""
_BUILTIN_FUNCS = frozenset({"preload", "assert", "await", "breakpoint", "len", "range", "print", "load", "str"})
_SKIP = frozenset({"string", "string_name", "node_path", "get_node", "comment", "annotation", "annotations",
                   "ERROR", "integer", "float", "true", "false", "null", "escape_sequence", "pattern_open_ending"})
_SIGNAL_BY_NAME = frozenset({"emit_signal", "connect", "disconnect", "is_connected", "has_signal"})
_MEMBER_BY_NAME = {"call": (0, "method"), "call_deferred": (0, "method"), "callv": (0, "method"),
                   "has_method": (0, "method"), "rpc": (0, "method"), "rpc_id": (1, "method"),
                   "set": (0, "property"), "get": (0, "property"), "set_deferred": (0, "property"),
                   "set_indexed": (0, "property"), "get_indexed": (0, "property"),
                   "tween_property": (1, "property"), "interpolate_property": (1, "property")}
"""Calls that name a member in a string: (which argument, what kind of member)."""
_BLOCK_OWNERS = frozenset({"if_statement", "elif_clause", "else_clause", "while_statement"})
_GODOT3_NODES = {
    "onready_variable_statement": ("`onready var` is `@onready var` in Godot 4", "@onready var"),
    "export_variable_statement": ("`export` is an `@export...` annotation in Godot 4", None),
    "remote_keyword": ("RPC keywords are the `@rpc(...)` annotation in Godot 4", None),
    "base_call": ("`.f()` calls the parent's method in Godot 3; Godot 4 writes `super.f()`", None),
}
_VALUE_CHANGES = frozenset(old for _, old in changes.resource_changes().scaled)
"""Renamed properties whose value changes too (`extents` -> `size`, doubled): never a rename alone."""


def _scaled() -> dict[str, tuple[str, float]]:
    """old -> (new, factor) for the scaled properties whose every class agrees (`extents` -> `size`, x2)."""
    rows: dict[str, set[tuple[str, float]]] = {}
    for (_, old), (new, factor) in changes.resource_changes().scaled.items():
        rows.setdefault(old, set()).add((new, factor))
    return {old: next(iter(v)) for old, v in rows.items() if len(v) == 1}


_SCALED = _scaled()
_DEGREES = 0.017453292519943295
_OPERANDS = frozenset({"identifier", "integer", "float", "attribute", "call", "subscript", "parenthesized_expression",
                       "get_node"})
"""Expressions that stay one operand under `* 2` without parentheses."""
_ASSIGNS = {"=": True, "+=": True, "-=": True, "*=": False, "/=": False}
"""Assignment operators a scaled property takes, and whether the right side is scaled with it."""
_VAR_PARAM = re.compile(r"[(,]\s*var\s+[A-Za-z_]")
_PASCAL = re.compile(r"^[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*$")


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _named(node: Node | None) -> list[Node]:
    return [c for c in node.children if c.is_named] if node is not None else []


def _arguments(node: Node | None) -> list[Node]:
    """A call's argument expressions (comments and `\\` line continuations are none)."""
    return [c for c in _named(node) if c.type not in ("comment", "line_continuation")]


@dataclass
class _Scope:
    names: set[str] = field(default_factory=set)
    parent: _Scope | None = None

    def has(self, name: str) -> bool:
        s: _Scope | None = self
        while s is not None:
            if name in s.names:
                return True
            s = s.parent
        return False


@dataclass
class _Class:
    """The class a node sits in: the script or an inner class, with what its body declares."""

    model: ScriptModel
    path: str
    outer: _Class | None = None
    engine: str = ""
    """The engine class it ends up extending, by its 4.x name ('' when unknown in 4.x)."""
    decidable: bool = True
    """Whether every inherited name is known: the base chain ends in a class 4.x documents."""
    coroutines: frozenset[str] = frozenset()
    base_script: str = ""
    """For an inner class: the project script it extends, whose chain declares names for it."""


class Checker:
    """The checker for one project (its scripts, autoloads and class names) against one API index."""

    def __init__(self, scripts: ProjectScripts, api: ApiIndex, *, autoloads: Iterable[str] = (),
                 godot3_origin: Mapping[str, str] | None = None, typer: Typer | None = None) -> None:
        self.scripts = scripts
        self.api = api
        self.typer = typer if typer is not None and typer.scripts is scripts else Typer(scripts, api)
        """The project context's own typer where there is one: its member types are cached once per run."""
        self.autoloads = frozenset(autoloads)
        self.godot3_origin = dict(godot3_origin or {})
        """Script path -> its Godot 3 text, for code migrated from it (`accessor-in-class`)."""
        self.complete = api.complete_v4
        self._project_members: frozenset[str] | None = None

    # ------------------------------------------------------------ lookups

    def _v4(self, cls: str, name: str, kinds: Iterable[str] | None = None) -> ApiEntry | None:
        return self.api.lookup(V4, cls, name, kinds) if cls else None

    def _global(self, name: str, kinds: Iterable[str] | None = None) -> ApiEntry | None:
        return next((e for g in _GLOBALS if (e := self.api.lookup(V4, g, name, kinds))), None)

    def project_members(self) -> frozenset[str]:
        if self._project_members is None:
            models = [m for p in self.scripts.sources if (m := self.scripts.model(p)) is not None]
            names: set[str] = set(self.scripts.member_names())
            while models:
                m = models.pop()
                names |= {*m.enum_values, *m.members, *m.inner}
                models.extend(m.inner.values())
            self._project_members = frozenset(names)
        return self._project_members

    def _engine_of(self, path: str, model: ScriptModel) -> tuple[str, bool]:
        """(the 4.x engine class a class ends up extending, whether its whole chain is known)."""
        ext = model.extends
        if not ext:
            return "RefCounted", True
        if model is self.scripts.model(path):
            base = self.typer.engine_base(path)
            if base == "Reference" and not self._declares_extends(path):
                base = "RefCounted"  # a chain of scripts with no `extends`: Godot 4's default base
            if base:
                return (base, True) if self.api.has_class(V4, base) else ("", False)
            script = self.scripts.script_of(ext, path)
            if script is not None:  # a project base that ends in nothing known
                inner = self.scripts.model(script)
                return ("RefCounted", True) if inner is not None and not inner.extends else ("", False)
            return "", False
        return (ext, True) if self.api.has_class(V4, ext) else ("", False)

    def _declares_extends(self, path: str) -> bool:
        """Whether some script of the chain names `Reference` itself (Godot 3's class: undeclared in Godot 4)."""
        return any((m := self.scripts.model(p)) is not None and m.extends == "Reference"
                   for p in self.typer._user_chain(path))

    def _declared(self, cls: _Class, name: str) -> bool:
        """Declared by the class, an outer class, or the project scripts any of them extends."""
        c: _Class | None = cls
        while c is not None:
            if c.model.declares(name) or name in c.model.inner:
                return True
            if c.outer is None and self.typer.declared_by(c.path, name) is not None:
                return True
            if c.base_script and self.typer.declared_by(c.base_script, name) is not None:
                return True
            c = c.outer
        return False

    def _inherited(self, cls: _Class, name: str) -> bool:
        if cls.engine and self._v4(cls.engine, name) is not None:
            return True
        c = cls.outer
        while c is not None:  # an inner class sees its outer classes' engine constants and enums
            if c.engine and self._v4(c.engine, name, ("constant", "enum")) is not None:
                return True
            c = c.outer
        return False

    def _is_global(self, name: str, path: str) -> bool:
        return (name in _KEYWORDS or self._global(name) is not None or self.api.has_class(V4, name)
                or name in self.autoloads or self.scripts.script_of(name, path) is not None
                or name in self.scripts.class_paths)

    # ------------------------------------------------------------ the script

    def check_text(self, path: str, text: str) -> list[Diagnostic]:
        """The diagnostics of `text` as the script `path` of this project (its other scripts as they are)."""
        if self.scripts.sources.get(path) == text:
            return self.check(path)
        s = self.scripts
        scripts = ProjectScripts({**s.sources, path: text}, class_paths=s.class_paths, autoload_paths=s.autoload_paths,
                                 resolve=s.resolve, scene_nodes=s.scene_nodes, node_names=s.node_names)
        return Checker(scripts, self.api, autoloads=self.autoloads, godot3_origin=self.godot3_origin).check(path)

    def check(self, path: str) -> list[Diagnostic]:
        """Every diagnostic of one script, in source order."""
        text = self.scripts.sources.get(path) or ""
        model = self.scripts.model(path)
        if model is None or model.tree is None:
            return []
        run = _Run(self, path, text, model)
        run.all()
        return sorted(run.out, key=lambda d: (d.line, d.column, d.rule))


class _Run:
    """One script's check: the walk, its scopes and what it found."""

    def __init__(self, checker: Checker, path: str, text: str, model: ScriptModel) -> None:
        self.c = checker
        self.api = checker.api
        self.path = path
        self.text = text
        self.model = model
        self.source = model.source
        self.out: list[Diagnostic] = []
        self._seen: set[tuple[int, str]] = set()
        self.dots: dict[int, tuple[GdType, str]] = {}
        self.own_refs: dict[str, list[Node]] = {}
        """Bare uses of the script's own members (not a local's or parameter's), by name."""

    # ------------------------------------------------------------ reporting

    def report(self, node: Node | int, rule: str, message: str, *, fix: Fix | None = None,
               severity: str = "error") -> None:
        start = node if isinstance(node, int) else node.start_byte
        if (start, rule) in self._seen:
            return
        self._seen.add((start, rule))
        line = self.source[:start].count(b"\n") + 1
        col = len(self.source[self.source.rfind(b"\n", 0, start) + 1:start].decode("utf-8", "replace")) + 1
        self.out.append(Diagnostic(path=self.path, line=line, column=col, rule=rule, message=message,
                                   severity=severity, fix=fix, start=start))  # type: ignore[arg-type]

    def form_fix(self, member: Node, cls3: str, name: str) -> Fix | None:
        """The Godot 4 expression the migration writes for a Godot 3 call on `cls3` or an ancestor (calls.json:
        `get_tree().set_network_peer(p)` -> `get_tree().get_multiplayer().set_multiplayer_peer(p)`), as an edit."""
        from agent.judge.templates import call_forms, template_edit

        api = next((f"{c}.{name}" for c in self.api.chain(V3, cls3) if f"{c}.{name}" in call_forms()), None)
        if api is None:
            return self.moved_fix(member, cls3, name)
        code = self.source.decode("utf-8", "replace")
        found = template_edit(api, code, len(self.source[:member.start_byte].decode("utf-8", "replace")))
        if found is None:
            return None
        begin, end, text = found
        return Fix(edits=(Edit(start=len(code[:begin].encode()), end=len(code[:end].encode()), text=text),),
                   applicability="safe", why=f"Godot 4's form of `{api}` (agent/data/changes/calls.json)")

    def scaled_fix(self, member: Node, name: str, new: str, factor: float) -> Fix | None:
        """`s.extents = v` -> `s.size = v * 2` (`(a + b) * 2` for an operation), a read `s.extents.x` ->
        `(s.size / 2).x`: the renamed property
        with its value converted where it is written or read (degrees: `deg_to_rad`/`rad_to_deg`)."""
        attr = member.parent
        if attr is None or attr.type != "attribute" or member.prev_sibling is None:
            return None
        src = self.source
        why = f"Godot 4's `{new}` is `{name}` converted (the converter's scaled properties)"
        holder = attr.parent
        if holder is not None and holder.type in ("assignment", "augmented_assignment") and holder.children \
                and holder.children[0].id == attr.id:
            op = _text(holder.children[1]) if len(holder.children) > 2 else ""
            rhs = holder.children[-1]
            if op not in _ASSIGNS:
                return None
            value = src[rhs.start_byte:rhs.end_byte].decode()
            if _ASSIGNS[op]:
                operand = value if rhs.type in _OPERANDS else f"({value})"
                value = f"deg_to_rad({value})" if factor == _DEGREES else f"{operand} * {factor:g}"
            return Fix(edits=(Edit(start=member.start_byte, end=member.end_byte, text=new),
                              Edit(start=rhs.start_byte, end=rhs.end_byte, text=value)), applicability="safe", why=why)
        head = src[attr.start_byte:member.start_byte].decode() + new
        read = f"rad_to_deg({head})" if factor == _DEGREES else f"({head} / {factor:g})"
        return Fix(edits=(Edit(start=attr.start_byte, end=member.end_byte, text=read),), applicability="safe", why=why)

    def moved_fix(self, member: Node, cls3: str, name: str) -> Fix | None:
        """A singleton's member Godot 4 moved to another singleton (renames.json: `OS.get_unix_time` ->
        `Time.get_unix_time_from_system`, `OS.get_screen_size` -> `DisplayServer.screen_get_size`), written where
        the receiver is the singleton's own name."""
        row = next((r for r in changes.renames() if r.old == name and cls3 in r.classes and r.new.count(".") == 1),
                   None)
        if row is None:
            return None
        target_cls, target = row.new.split(".")
        if self.api.lookup(V4, target_cls, target) is None:
            return None
        dot = self.source.rfind(b".", 0, member.start_byte)
        start = dot - len(cls3.encode())
        if start < 0 or self.source[start:dot] != cls3.encode() or (
                start > 0 and (chr(self.source[start - 1]).isalnum() or self.source[start - 1] in b"_.$")):
            return None
        return Fix(edits=(Edit(start=start, end=member.end_byte, text=row.new),), applicability="safe",
                   why=f"Godot 4 moved `{cls3}.{name}` to `{row.new}` (agent/data/changes/renames.json)")

    def rename_fix(self, node: Node, new: str, why: str, *, safe: bool = True) -> Fix:
        return Fix(edits=(Edit(start=node.start_byte, end=node.end_byte, text=new),),
                   applicability="safe" if safe else "unsafe", why=why)

    # ------------------------------------------------------------ entry

    def all(self) -> None:
        root = self.model.tree.root_node  # type: ignore[union-attr]
        self.grammar(root)
        # where tree-sitter recovered from an error at the top level, statements may sit outside the function that
        # holds them: scopes are not to be trusted there, so no name is called undeclared; an error inside one
        # function only turns names off in that function
        self.scoped, self.broken = _error_scopes(root)
        cls = self.class_of(self.model, None)
        self.dots = self.c.typer.dot_types(self.path)
        self.class_body(root, cls)
        self.accessors(root)

    def class_of(self, model: ScriptModel, outer: _Class | None) -> _Class:
        engine, decidable = self.c._engine_of(self.path, model)
        script = ""
        if outer is not None and not engine and model.extends:
            script = self.c.scripts.script_of(model.extends, self.path) or ""
            if script:
                engine = self.c.typer.engine_base(script)
                decidable = bool(engine) and self.api.has_class(V4, engine)
        return _Class(model, self.path, outer, engine, decidable and self.c.complete, base_script=script)

    # ------------------------------------------------------------ grammar

    def grammar(self, root: Node) -> None:
        """Godot 3 grammar by its tree-sitter nodes; a syntax error where gdtoolkit 4's grammar stops (each
        grammar has gaps of its own, so tree-sitter's error nodes count only when gdtoolkit rejects too)."""
        broken: list[Node] = []
        godot3: list[tuple[Node, str]] = []  # named by tree-sitter; called an error once gdtoolkit agrees
        stack = [root]
        while stack:
            node = stack.pop()
            t = node.type
            if t == "ERROR" or node.is_missing:
                broken.append(node)
                continue
            if t in _GODOT3_NODES:
                if not (t == "base_call" and self._continues(node)):
                    godot3.append((node, _GODOT3_NODES[t][0]))
            elif t == "setget" and _text(node).lstrip().startswith("setget"):
                godot3.append((node, "`setget` is `: set = f, get = g` in Godot 4"))
            elif t == "constructor_definition" and node.child_by_field_name("arguments") is not None \
                    or t == "constructor_definition" and any(c.type == "arguments" for c in node.children):
                godot3.append((node, "`func _init().(args)` is `super(args)` in the body in Godot 4"))
            elif t == "call" and _text(node.children[0]) == "yield":
                self.report(node, "godot3-syntax", "`yield` is `await` in Godot 4")
            elif t == "expression_statement" and _text(node).strip() == "tool" and node.parent is not None \
                    and node.parent.type == "source":
                self.report(node, "godot3-syntax", "`tool` is the `@tool` annotation in Godot 4")
            elif t == "parameters" and _VAR_PARAM.search(_text(node)):
                godot3.append((node, "`var` before a parameter is Godot 3 grammar; Godot 4 drops it"))
            elif t == "dictionary" and len({any(c.type == "=" for c in p.children) for p in node.named_children
                                            if p.type == "pair"}) > 1:
                godot3.append((node, "a dictionary mixes `key = value` and `\"key\": value`; Godot 4 takes one "
                                     "style per dictionary"))
            elif t == "enumerator_list" and any(c.type == "ERROR" for c in node.children):
                godot3.append((node, "an enum entry without its comma: Godot 4 wants one between entries"))
            stack.extend(node.children)
        err = godot4_grammar_error(self.text)
        if err is None:
            return  # Godot 4's grammar reads it all: a `.replace()` continuing a line is no Godot 3 parent call
        for node, message in godot3:
            self.report(node, "godot3-syntax", message)
        if godot3:
            return
        # both grammars have gaps Godot's own parser lacks (a chained `a == b != c`, a string over two lines):
        # a line neither reads is said, as a warning, never called an error of the code
        for node in broken:
            self.report(node, "syntax", "neither tree-sitter nor gdtoolkit 4 reads this line; it was not checked",
                        severity="warning")
        self.report(line_start(self.text, err.line), "syntax",
                    f"gdtoolkit 4's Godot 4 grammar stops at line {err.line}: {err.message}",
                    severity="warning")

    def _continues(self, node: Node) -> bool:
        """Whether the line before `node` ends in `\\` (or an open bracket): `.replace()` then continues it."""
        before = self.source[:node.start_byte].rstrip()
        lines = [x for x in before.split(b"\n") if x.strip() and not x.strip().startswith(b"#")]
        return bool(lines) and lines[-1].rstrip().endswith((b"\\", b"(", b"[", b"{", b","))

    # ------------------------------------------------------------ classes

    def class_body(self, body: Node, cls: _Class) -> None:
        cls.coroutines = frozenset(f.name for f in cls.model.functions if self._awaits(body, f.name))
        self.redeclarations(cls)
        scope = _Scope()
        for node in body.children:
            t = node.type
            if t in ("variable_statement", "const_statement", "export_variable_statement",
                     "onready_variable_statement"):
                self.expr(node.child_by_field_name("value"), scope, cls)
                self.types_in(node, cls)
                sg = next((c for c in node.children if c.type == "setget"), None)
                if sg is not None:
                    self.setget(sg, cls)
            elif t in ("function_definition", "constructor_definition"):
                self.function(node, cls)
            elif t == "class_definition":
                self.types_in(node.child_by_field_name("extends") or node, cls)
                name = _text(node.child_by_field_name("name"))
                inner = cls.model.inner.get(name)
                inner_body = node.child_by_field_name("body")
                if inner is not None and inner_body is not None:
                    self.class_body(inner_body, self.class_of(inner, cls))
            elif t in ("extends_statement", "class_name_statement"):
                self.types_in(node, cls)
                for c in node.children:  # `class_name X extends Y` on one line
                    if c.type == "extends_statement":
                        self.types_in(c, cls)
            elif t == "enum_definition":
                for e in node.named_children:
                    for v in e.named_children if e.type == "enumerator_list" else ():
                        if len(v.named_children) > 1:
                            self.expr(v.named_children[-1], scope, cls)

    def _awaits(self, root: Node, name: str) -> bool:
        """Whether the function `name` of this class body awaits (outside its lambdas): a coroutine."""
        node = self._function_node(root, name)
        if node is None:
            return False
        stack = list(node.children)
        while stack:
            n = stack.pop()
            if n.type == "await_expression":
                return True
            if n.type not in ("lambda", "function_definition", "class_definition"):
                stack.extend(n.children)
        return False

    def _function_node(self, body: Node, name: str) -> Node | None:
        for n in body.children:
            if n.type in ("function_definition",) and _text(n.child_by_field_name("name")) == name:
                return n
        return None

    def redeclarations(self, cls: _Class) -> None:
        """Members that redeclare the engine base's or a project base script's."""
        if not cls.engine:
            return
        root = self.c.scripts.model(self.path)
        bases = self.c.typer._user_chain(self.path)[1:] if cls.model is root else []
        for name, decl in cls.model.members.items():
            node = self._decl_node(decl.line)
            for base in bases:
                bm = self.c.scripts.model(base)
                if bm is None or name not in bm.members:
                    continue
                bd = bm.members[name]
                if decl.kind in ("var", "const", "signal", "enum") and bd.kind in ("var", "const", "signal", "enum"):
                    self.report(node, "redeclared-member",
                                f"`{name}` is already declared by the project base script {base}")
                break
            kinds = {"var": ("property", "signal", "constant", "enum"), "const": ("property", "constant", "enum"),
                     "signal": ("signal", "property"), "enum": ("enum", "constant", "property"),
                     "class": ()}.get(decl.kind)
            if kinds:
                e = self.c._v4(cls.engine, name, kinds)
                if e is not None:
                    self.report(node, "redeclared-member",
                                f"`{name}` redeclares the {e.kind} {e.class_name}.{name} that {cls.engine} already has")
            elif decl.kind == "func":
                self.override(cls, name, node)

    def override(self, cls: _Class, name: str, node: int) -> None:
        e = self.c._v4(cls.engine, name, ("method",))
        if e is None:
            return
        f = next((f for f in cls.model.functions if f.name == name), None)
        if f is None or name == "_init" or f.rest:
            return  # a constructor takes what its class wants
        virtual = "virtual" in e.signature.split(")")[-1]
        if not virtual:  # NATIVE_METHOD_OVERRIDE: Godot 4 warns (projects by others ship such overrides)
            self.report(node, "native-override",
                        f"`{name}()` shadows {e.class_name}.{name}(), which is no virtual: the engine never calls "
                        f"this one", severity="warning")
            return
        params = len(f.params)
        required = sum(1 for d in f.params.values() if d.value is None)
        if params < e.arg_count or required > e.arg_count:
            self.report(node, "redeclared-member",
                        f"`{name}()` takes {params} parameter(s); the virtual {e.class_name}.{name}() it overrides "
                        f"passes {e.arg_count}")

    def _decl_node(self, line: int) -> int:
        """The byte offset of a 1-based line's first non-blank character."""
        lines = self.source.split(b"\n")
        at = sum(len(x) + 1 for x in lines[: line - 1])
        row = lines[line - 1] if 0 < line <= len(lines) else b""
        return at + len(row) - len(row.lstrip())

    def setget(self, node: Node, cls: _Class) -> None:
        for c in node.named_children:
            if c.type in ("setter", "getter"):
                name = _text(c)
                if not self.c._declared(cls, name) and not self.c._inherited(cls, name) and cls.decidable:
                    self.report(c, "undeclared-name", f"the accessor `{name}` is no function of the class")
            elif c.type in ("set_body", "get_body"):
                scope = _Scope()
                params = c.child_by_field_name("parameters") or next(
                    (x for x in c.children if x.type == "parameters"), None)
                scope.names |= {_text(p) for p in _named(params) if p.type == "identifier"}
                body = next((x for x in c.children if x.type == "body"), None)
                if body is not None:
                    self.block(body, scope, cls)

    # ------------------------------------------------------------ functions

    def function(self, node: Node, cls: _Class) -> None:
        scope = _Scope()
        params = node.child_by_field_name("parameters")
        for p in _named(params):
            if p.type == "variadic_parameter":
                p = next((c for c in p.children if c.type in ("identifier", "typed_parameter")), p)
            if p.type == "identifier":
                scope.names.add(_text(p))
                continue
            ident = next((c for c in p.children if c.type == "identifier"), None)
            if ident is not None:
                scope.names.add(_text(ident))
            value = p.child_by_field_name("value")
            if value is not None:
                self.expr(value, scope, cls)
            self.types_in(p, cls)
        ret = node.child_by_field_name("return_type")
        if ret is not None:
            self.type_node(ret, cls)
        if node.type == "constructor_definition":
            args = next((c for c in node.children if c.type == "arguments"), None)
            if args is not None:
                self.expr(args, scope, cls)
        body = node.child_by_field_name("body")
        if body is not None:
            self.block(body, _Scope(parent=scope), cls)

    def block(self, body: Node, scope: _Scope, cls: _Class) -> None:
        for st in body.named_children:
            self.statement(st, scope, cls)

    def statement(self, st: Node, scope: _Scope, cls: _Class) -> None:
        t = st.type
        if t in ("variable_statement", "const_statement"):
            self.expr(st.child_by_field_name("value"), scope, cls)
            self.types_in(st, cls)
            name = st.child_by_field_name("name")
            if name is not None:
                scope.names.add(_text(name))
        elif t == "for_statement":
            self.expr(st.child_by_field_name("right"), scope, cls)
            inner = _Scope({_text(st.child_by_field_name("left"))}, scope)
            self.types_in(st, cls)
            body = st.child_by_field_name("body")
            if body is not None:
                self.block(body, inner, cls)
        elif t in _BLOCK_OWNERS:
            for c in st.named_children:
                if c.type == "body":
                    self.block(c, _Scope(parent=scope), cls)
                elif c.type in ("elif_clause", "else_clause"):
                    self.statement(c, scope, cls)
                else:
                    self.expr(c, scope, cls)
        elif t == "match_statement":
            for c in st.named_children:
                if c.type == "match_body":
                    for section in c.named_children:
                        self.pattern_section(section, scope, cls)
                else:
                    self.expr(c, scope, cls)
        elif t == "ERROR":
            return
        else:
            self.expr(st, scope, cls)

    def pattern_section(self, section: Node, scope: _Scope, cls: _Class) -> None:
        inner = _Scope(parent=scope)
        stack = [c for c in section.named_children if c.type != "body"]
        patterns = []
        while stack:
            n = stack.pop()
            if n.type == "pattern_binding":
                inner.names |= {_text(x) for x in n.named_children if x.type == "identifier"}
            elif n.type in ("array", "dictionary", "pair", "pattern_guard"):
                stack.extend(n.named_children)
            else:
                patterns.append(n)
        for p in patterns:
            if not (p.type == "identifier" and _text(p) == "_"):  # `_:` is the wildcard pattern
                self.expr(p, inner, cls)
        body = next((c for c in section.named_children if c.type == "body"), None)
        if body is not None:
            self.block(body, inner, cls)

    # ------------------------------------------------------------ expressions

    def expr(self, node: Node | None, scope: _Scope, cls: _Class) -> None:
        if node is None:
            return
        t = node.type
        if t in _SKIP:
            return
        if t == "identifier":
            self.name(node, scope, cls)
        elif t == "attribute":
            self.attribute(node, scope, cls)
        elif t == "call":
            self.call(node, scope, cls)
        elif t == "lambda":
            self.lambda_(node, scope, cls)
        elif t == "pair":
            kids = node.named_children
            if kids and kids[0].type == "identifier" and any(c.type == "=" for c in node.children):
                kids = kids[1:]  # `{key = value}`: the key is a name, not a reference
            elif kids and kids[0].type == "identifier" and len(kids) == 2:
                pass
            for c in kids:
                self.expr(c, scope, cls)
        elif t == "binary_operator":
            kids = node.children
            op = _text(kids[1]) if len(kids) == 3 else ""
            self.expr(kids[0], scope, cls)
            if op in ("is", "as"):
                self.type_node(kids[2], cls)
            else:
                self.expr(kids[-1], scope, cls)
        elif t in ("type", "variadic_parameter"):
            self.type_node(node, cls)
        elif t in ("variable_statement", "const_statement", "for_statement", "match_statement") or t in _BLOCK_OWNERS:
            self.statement(node, scope, cls)
        elif t == "body":
            self.block(node, _Scope(parent=scope), cls)
        elif t == "base_call":
            args = node.child_by_field_name("arguments") or next((c for c in node.children if c.type == "arguments"),
                                                                 None)
            self.expr(args, scope, cls)
        else:
            for c in node.named_children:
                self.expr(c, scope, cls)

    def lambda_(self, node: Node, scope: _Scope, cls: _Class) -> None:
        inner = _Scope(parent=scope)
        name = node.child_by_field_name("name")
        if name is not None:
            inner.names.add(_text(name))
        for p in _named(node.child_by_field_name("parameters")):
            if p.type == "variadic_parameter":
                p = next((c for c in p.children if c.type in ("identifier", "typed_parameter")), p)
            ident = p if p.type == "identifier" else next((c for c in p.children if c.type == "identifier"), None)
            if ident is not None:
                inner.names.add(_text(ident))
        body = node.child_by_field_name("body")
        if body is not None:
            if body.type == "body":
                self.block(body, inner, cls)
            else:
                self.expr(body, inner, cls)

    def known(self, name: str, scope: _Scope, cls: _Class) -> bool:
        return (scope.has(name) or self.c._declared(cls, name) or self.c._inherited(cls, name)
                or self.c._is_global(name, self.path))

    def name(self, node: Node, scope: _Scope, cls: _Class) -> None:
        name = _text(node)
        if cls.outer is None and not scope.has(name) and name in cls.model.members:
            self.own_refs.setdefault(name, []).append(node)
        if self.known(name, scope, cls):
            return
        self.undeclared(node, name, cls)

    def undeclared(self, node: Node, name: str, cls: _Class) -> None:
        godot3_class = self.api.has_class(V3, name) and not self.api.has_class(V4, name)
        if not self.c.complete or (not (cls.decidable and self.scoped and _function_of_node(node) not in self.broken)
                                   and not godot3_class):
            return
        if _PASCAL.match(name) and not godot3_class and not name.isupper():
            return  # a class newer than the docs, or a GDExtension's
        # a bare member of the script's engine class: its successor must be that class's (`map_to_local`)
        new = successor(name, self.api, cls="" if godot3_class or not cls.engine else cls.engine)
        if godot3_class:
            msg = f"`{name}` is a Godot 3 class; Godot 4 has no class of that name"
        else:
            msg = f"`{name}` is not declared in this scope"
        fix = self.rename_fix(node, new, f"Godot 4 calls it `{new}` (the converter's tables)") if new else None
        if new:
            msg += f" (Godot 4: `{new}`)"
        self.report(node, "undeclared-name", msg, fix=fix)

    def type_node(self, node: Node, cls: _Class) -> None:
        """Type annotations: a Godot 3 class there is undeclared in Godot 4 (each type of `Dictionary[K, V]` too;
        of `Node.ProcessMode` only the first name, the class: the rest are its members)."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "identifier":
                name = _text(n)
                if self.api.has_class(V3, name) and not self.api.has_class(V4, name) and self.c.complete \
                        and not self.c._declared(cls, name) and not self.c._is_global(name, self.path):
                    self.undeclared(n, name, cls)
                continue
            if n.type == "attribute":
                stack.extend(n.named_children[:1])
                continue
            stack.extend(reversed(n.named_children))

    def types_in(self, node: Node, cls: _Class) -> None:
        for c in node.children:
            if c.type == "type":
                self.type_node(c, cls)

    def call(self, node: Node, scope: _Scope, cls: _Class) -> None:
        callee = node.children[0] if node.children else None
        args = node.child_by_field_name("arguments") or next((c for c in node.children if c.type == "arguments"), None)
        n_args = len(_arguments(args))
        if callee is not None and callee.type == "identifier":
            name = _text(callee)
            if name == "yield":
                pass
            elif scope.has(name):
                pass  # a local Callable: Godot 4 wants `.call()`, but the name is declared
            elif self.c._declared(cls, name) or name == "super":
                self.own_call(node, callee, name, n_args, cls)
            elif self.c._inherited(cls, name):
                e = self.c._v4(cls.engine, name, ("method",))
                if e is not None and not e.accepts(n_args) and self.c.complete:
                    self.arity(node, f"{e.class_name}.{name}", e, n_args)
            elif self.c._is_global(name, self.path) or name in _BUILTIN_FUNCS:
                e = self.c._global(name, ("method",))
                if e is not None and not e.accepts(n_args) and self.c.complete and name not in _BUILTIN_FUNCS:
                    self.arity(node, name, e, n_args)
            else:
                self.undeclared(callee, name, cls)
            if name in _SIGNAL_BY_NAME and not scope.has(name):
                self.signal_by_name(node, args, cls)
            if name in _MEMBER_BY_NAME and not scope.has(name):
                self.member_by_name(name, args)
            self.coroutine(node, name, cls)
        else:
            self.expr(callee, scope, cls)
        self.expr(args, scope, cls)

    def own_call(self, node: Node, callee: Node, name: str, n_args: int, cls: _Class) -> None:
        f = next((f for f in cls.model.functions if f.name == name), None)
        if f is None:
            found = self.c.typer.declared_by(self.path, name) if cls.outer is None else None
            if found is not None:
                base = self.c.scripts.model(found[0])
                f = next((x for x in base.functions if x.name == name), None) if base is not None else None
        if f is None:
            return
        required = sum(1 for d in f.params.values() if d.value is None)
        if not required <= n_args <= (len(f.params) if not f.rest else n_args):
            g = self.c._global(name, ("method",))
            if g is not None and g.accepts(n_args):
                return  # a global function of the name (`is_same(a, b)`): Godot 4 calls that one
            self.report(node, "call-arity", f"`{name}()` takes {required}" + (
                f" to {len(f.params)}" if len(f.params) != required else "") + f" argument(s); this call passes {n_args}")

    def arity(self, node: Node, what: str, e: ApiEntry, n: int) -> None:
        took = f"{e.required_args}" + (f" to {e.arg_count}" if e.arg_count != e.required_args else "") + (
            " or more" if e.vararg else "")
        self.report(node, "call-arity", f"`{what}()` takes {took} argument(s) in Godot 4; this call passes {n}")

    def coroutine(self, node: Node, name: str, cls: _Class) -> None:
        if name not in cls.coroutines:
            return
        parent = node.parent
        up = parent
        while up is not None and up.type in ("binary_operator", "parenthesized_expression"):
            up = up.parent  # tree-sitter reads `await f() - 1` as `await (f() - 1)`
        if up is not None and up.type == "await_expression":
            return
        while parent is not None and parent.type == "parenthesized_expression":
            parent = parent.parent  # `if(f()):` is a condition, not a statement
        if parent is not None and parent.type != "expression_statement":
            self.report(node, "coroutine-needs-await",
                        f"`{name}()` awaits, so Godot 4 wants `await {name}(...)` where its value is used")

    def signal_by_name(self, node: Node, args: Node | None, cls: _Class) -> None:
        first = next(iter(_arguments(args)), None)
        if first is None or first.type != "string" or not cls.decidable:
            return
        sig = _text(first).strip("\"'&")
        if not sig.isidentifier():
            return
        own = cls.model.members.get(sig)
        found = self.c.typer.declared_by(self.path, sig) if cls.outer is None else None
        decl = own or (found[1] if found else None)
        if decl is not None:
            if decl.kind != "signal":
                self.report(first, "not-a-signal", f"`{sig}` is a {decl.kind} of the script, not a signal")
            return
        if self.c._v4(cls.engine, sig, ("signal",)) is not None:
            return
        new = successor(sig, self.api, kinds=("signal",))
        fix = Fix(edits=(Edit(start=first.start_byte + 1, end=first.end_byte - 1, text=new),), applicability="safe",
                  why=f"Godot 4 calls the signal `{new}`") if new else None
        self.report(first, "not-a-signal", f"{cls.engine} has no signal `{sig}` in Godot 4" + (
            f" (Godot 4: `{new}`)" if new else ""), fix=fix)

    def attribute(self, node: Node, scope: _Scope, cls: _Class) -> None:
        kids = node.children
        base = kids[0] if kids else None
        if base is not None and base.type == "identifier" and _text(base) == "super":
            self.super_member(node, cls)
        else:
            self.expr(base, scope, cls)
        i = 1
        while i + 1 < len(kids):
            dot, part = kids[i], kids[i + 1]
            member = part if part.type == "identifier" else (part.children[0] if part.children else part)
            if part.type == "attribute_call":
                args = next((c for c in part.children if c.type == "arguments"), None)
                self.member_use(dot, member, args, scope, cls)
                if _text(member) in _MEMBER_BY_NAME:
                    self.member_by_name(_text(member), args)
                self.expr(args, scope, cls)
            elif part.type == "attribute_subscript":
                self.member_use(dot, member, None, scope, cls)
                for c in part.named_children[1:]:
                    self.expr(c, scope, cls)
            elif part.type == "identifier":
                self.member_use(dot, member, None, scope, cls)
            i += 2

    def super_member(self, node: Node, cls: _Class) -> None:
        part = node.children[2] if len(node.children) > 2 else None
        member = part if part is not None and part.type == "identifier" else (
            part.children[0] if part is not None and part.children else None)
        if member is None or not cls.decidable:
            return
        name = _text(member)
        bases = self.c.typer._user_chain(self.path)[1:] if cls.outer is None else (
            self.c.typer._user_chain(cls.base_script) if cls.base_script else [])
        if any((m := self.c.scripts.model(b)) is not None and m.declares(name) for b in bases):
            return
        if self.c._v4(cls.engine, name) is None:
            self.report(member, "super-missing", f"no base class of this script has `{name}` for `super.{name}`")

    def engine_class(self, recv: GdType | None) -> str:
        """The receiver's 4.x engine class where the code or a scene states it (no guess, no script's class, not
        Variant, Object or Dictionary, whose members are anyone's), else ''."""
        if recv is None or not recv.known or recv.guessed or recv.user:
            return ""
        cls4 = recv.v4
        return cls4 if cls4 and cls4 not in ("Variant", "Object", "Dictionary") and self.api.has_class(V4, cls4) else ""

    def member_use(self, dot: Node, member: Node, args: Node | None, scope: _Scope, cls: _Class) -> None:
        """One `.member` (with its call's arguments): its existence, its arity, and what follows from its name."""
        name = _text(member)
        recv, _ = self.dots.get(dot.start_byte, (None, ""))
        project = self.c.project_members()
        n_args = len(_arguments(args)) if args is not None else -1
        if name in ("connect", "emit") and recv is not None:
            self.signal_member(dot, member, recv)
        if name in ("emit", "connect", "disconnect", "is_connected") and self.own_method_before(dot, cls):
            return
        if name in _SCALED and self.c.complete and name not in project and not self.api.defined_anywhere(V4, name):
            new, factor = _SCALED[name]  # `extents` is half of `size`: the value is converted where it is used
            self.report(member, "godot3-member", f"no Godot 4 class has `{name}`; Godot 4 has `{new}`, which is "
                        + (f"`{name}` in radians" if factor == _DEGREES else f"`{name}` times {factor:g}"),
                        fix=self.scaled_fix(member, name, new, factor))
            return
        # whatever the receiver: a Godot 3 member that no 4.x class and no project script has
        if self.c.complete and name not in project and not self.api.defined_anywhere(V4, name):
            # a name with no successor may be a Dictionary key (`hit.collider`); on a stated engine class the
            # successor must be that class's (`OS.window_title` is no `OS.title`)
            new = successor(name, self.api, cls=self.engine_class(recv))
            if new is not None:
                fix = self.rename_fix(member, new, f"the converter renames `{name}` to `{new}`; no Godot 4 class "
                                                   f"has `{name}`")
                self.report(member, "godot3-member", f"no Godot 4 class has a member `{name}`; Godot 4: `{new}`",
                            fix=fix)
                return
        if recv is None or not recv.known or recv.guessed or not self.c.complete:
            return
        if recv.user:
            return self.user_member(member, name, recv, n_args)
        cls4 = self.engine_class(recv)
        if not cls4:
            return
        if name == "new":
            return
        e = self.api.lookup(V4, cls4, name)
        if e is None:
            if self.api.defined_below(V4, cls4, name) or name in project and self.api.is_a(V4, cls4, "Object") \
                    or name.startswith("_"):
                return  # an object's script may add the member; the engine binds `_` methods the docs hide
            new = successor(name, self.api, cls=cls4)
            if new is None and self.api.lookup(V3, recv.v3 or cls4, name) is None:
                return  # not Godot 3's either: API newer than the docs, or a member the docs leave out
            fix = self.rename_fix(member, new, f"Godot 4's {cls4} calls it `{new}`") if new else \
                self.form_fix(member, recv.v3 or cls4, name)
            self.report(member, "unknown-member", f"{cls4} has no member `{name}` in Godot 4" + (
                f" (Godot 4: `{new}`)" if new else ""), fix=fix)
            return
        if e.kind == "method" and e.is_static and e.return_type == cls4 and n_args >= 0:
            self.static_on_instance(dot, member, cls4, args)
        if n_args >= 0 and e.kind == "method" and not e.accepts(n_args) and not (recv.open and name in project):
            if not any(x.accepts(n_args) for x in self.api.all_lookup(V4, cls4, name, ("method",))):
                self.arity(member, f"{e.class_name}.{name}", e, n_args)

    def member_by_name(self, call: str, args: Node | None) -> None:
        """`has_method("instance")`, `set("rect_size", v)`: a Godot 3 member named in a string, renamed in it when
        the rename is certain (no 4.x class and no project script has the old name)."""
        k, kind = _MEMBER_BY_NAME[call]
        given = _arguments(args)
        if len(given) <= k or given[k].type != "string" or not self.c.complete:
            return
        lit = given[k]
        raw = _text(lit)
        quote = 1 + (raw[:1] in "&^")
        inner = raw[quote:-1]
        head = inner.split(":", 1)[0] if kind == "property" else inner
        if not head.isidentifier() or head in self.c.project_members() or self.api.defined_anywhere(V4, head):
            return
        new = successor(head, self.api, kinds=(kind,))
        if new is None:
            return
        at = lit.start_byte + quote
        fix = Fix(edits=(Edit(start=at, end=at + len(head.encode()), text=new),), applicability="safe",
                  why=f"the converter renames `{head}` to `{new}`; no Godot 4 class has `{head}`")
        self.report(lit, "godot3-member", f"no Godot 4 class has a {kind} `{head}`; Godot 4: `{new}`", fix=fix)

    def own_method_before(self, dot: Node, cls: _Class) -> bool:
        """`_ready.emit()`, `initialize.connect(f)`: the name left of the dot is a method, and a Callable has no
        `emit` and no `connect` (a signal of the same name would be a redeclaration)."""
        left = dot.prev_sibling
        if left is None or left.type != "identifier" or dot.parent is None or dot.parent.children[0] != left:
            return False
        name = _text(left)
        decl = cls.model.members.get(name)
        is_method = (decl is not None and decl.kind == "func") or (
            decl is None and cls.engine and self.c._v4(cls.engine, name, ("method",)) is not None
            and self.c._v4(cls.engine, name, ("signal",)) is None and not self.c._declared(cls, name))
        if is_method:
            self.report(left, "not-a-signal", f"`{name}` is a method, not a signal: a Callable has no "
                                              f"`{_text(dot.next_sibling.children[0]) if dot.next_sibling and dot.next_sibling.children else 'emit'}`")
        return is_method

    def static_on_instance(self, dot: Node, member: Node, cls4: str, args: Node | None) -> None:
        """`file.open(p, m)` on a FileAccess: Godot 4's `open` is static and returns a new object, which Godot 3's
        open-in-place code drops. Fixed (safe) where the receiver is a plain name: `file = FileAccess.open(p, m)`,
        and an open whose result was read reads `FileAccess.get_open_error()` after that statement."""
        recv = dot.prev_sibling
        attr = dot.parent
        if recv is None or attr is None or recv.type != "identifier" or len(attr.children) != 3:
            return
        name, method = _text(recv), _text(member)
        if self.api.has_class(V4, name) or args is None:
            return  # `FileAccess.open(...)`: the static call itself
        call = f"{name} = {cls4}.{method}({_text(args)[1:-1]})"
        stmt = attr.parent
        msg = f"{cls4}.{method}() is static in Godot 4: it returns a new {cls4}, and `{name}` is not opened"
        if stmt is not None and stmt.type == "expression_statement":
            fix = Fix(edits=(Edit(start=attr.start_byte, end=attr.end_byte, text=call),), applicability="safe",
                      why=f"`{name}` holds what the static call returns, as Godot 3's open-in-place did")
            self.report(member, "static-on-instance", msg, fix=fix)
            return
        error = {"FileAccess": "FileAccess.get_open_error()", "DirAccess": "DirAccess.get_open_error()"}.get(cls4)
        while stmt is not None and stmt.parent is not None and stmt.parent.type not in ("body", "source"):
            stmt = stmt.parent
        if error is None or stmt is None or stmt.type not in ("variable_statement", "expression_statement",
                                                              "return_statement", "if_statement"):
            self.report(member, "static-on-instance", msg)
            return
        bol = self.source.rfind(b"\n", 0, stmt.start_byte) + 1
        indent = self.source[bol:stmt.start_byte].decode()
        fix = Fix(edits=(Edit(start=stmt.start_byte, end=stmt.start_byte, text=f"{call}\n{indent}"),
                         Edit(start=attr.start_byte, end=attr.end_byte, text=error)),
                  applicability="safe", why=f"`{name}` is opened first, and its error read as Godot 4 reports it")
        self.report(member, "static-on-instance", msg, fix=fix)

    def user_member(self, member: Node, name: str, recv: GdType, n_args: int) -> None:
        path = recv.v4
        found = self.c.typer.declared_by(path, name)
        if found is not None and found[1].kind == "func" and n_args >= 0:
            model = self.c.scripts.model(found[0])
            f = next((x for x in model.functions if x.name == name), None) if model is not None else None
            if f is not None and not f.rest and not (
                    sum(1 for d in f.params.values() if d.value is None) <= n_args <= len(f.params)):
                self.report(member, "call-arity", f"`{name}()` takes {len(f.params)} parameter(s) at most "
                                                  f"({sum(1 for d in f.params.values() if d.value is None)} "
                                                  f"required); this call passes {n_args}")
        if name in self.c.project_members() or found is not None:
            return  # declared by the script, a base, or a script that may extend it
        engine = self.c.typer.engine_base(path)
        engine = "RefCounted" if engine == "Reference" and not self.api.has_class(V4, engine) else engine
        if not engine or not self.api.has_class(V4, engine):
            return
        e = self.api.lookup(V4, engine, name)
        if e is not None and e.kind == "method" and n_args >= 0 and not e.accepts(n_args):
            self.arity(member, f"{e.class_name}.{name}", e, n_args)
        if e is not None or self.api.lookup(V4, "GDScript", name) is not None or name.startswith("_"):
            return  # a preloaded script is also a GDScript resource (`get_base_script()`)
        if self.api.lookup(V4, engine, name) is not None or name == "new" or self.api.defined_below(V4, engine, name):
            return
        if successor(name, self.api) is None and not self.api.defined_anywhere(V3, name):
            return  # no Godot 3 name: an undocumented member (`script`) or API newer than the docs
        self.report(member, "unknown-member", f"the script {path} (a {engine}) has no member `{name}`")

    def signal_member(self, dot: Node, member: Node, recv: GdType) -> None:
        """`x.connect(...)` where `x` is a method: a Callable has no `connect`."""
        # the receiver of `.connect` is the member left of this dot: its own dot types it
        prev = dot.prev_sibling
        if prev is None or prev.type != "identifier":
            return
        left = prev.prev_sibling
        holder = self.dots.get(left.start_byte) if left is not None and left.type == "." else None
        if holder is None or not holder[0].known or holder[0].guessed or holder[0].user:
            return
        cls4 = holder[0].v4
        if not cls4 or not self.api.has_class(V4, cls4):
            return
        sig = _text(prev)
        e = self.api.lookup(V4, cls4, sig)
        if e is not None and e.kind == "method":
            self.report(prev, "not-a-signal", f"{cls4}.{sig} is a method in Godot 4, not a signal")

    # ------------------------------------------------------------ accessors

    def accessors(self, root: Node) -> None:
        """Code migrated from Godot 3: a property whose `setget` did not run inside the class now does. Its fix
        (safe) is the backing-field form the maintainers of ports write: `var _x = v` holds the value, every bare
        use in the class reads and writes `_x` as Godot 3 did, and `x`'s accessors call the same functions."""
        origin = self.c.godot3_origin.get(self.path)
        if origin is None:
            return
        for node in root.children:
            if node.type != "variable_statement":
                continue
            sg = next((c for c in node.children if c.type == "setget"), None)
            name = _text(node.child_by_field_name("name"))
            if sg is None or not _setget_in(origin, name):
                continue
            setter = next((_text(c) for c in sg.named_children if c.type == "setter"), "")
            getter = next((_text(c) for c in sg.named_children if c.type == "getter"), "")
            inside = [n for n in self.own_refs.get(name, []) if self._function_of(n) not in (setter, getter)]
            if not inside:
                continue
            backing = self._free_name(f"_{name.lstrip('_')}")
            fix = self._backing_fix(node, sg, name, backing, setter, getter)
            for n in inside:
                self.report(n, "accessor-in-class",
                            f"Godot 4 runs `{name}`'s accessor here, inside its own class; Godot 3's setget did not "
                            f"(the fix keeps the value in `{backing}`)", fix=fix)

    def _function_of(self, node: Node) -> str:
        cur = node.parent
        while cur is not None and cur.type not in ("function_definition", "constructor_definition"):
            cur = cur.parent
        if cur is None:
            return ""
        return _text(cur.child_by_field_name("name")) or "_init"

    def _free_name(self, want: str) -> str:
        taken = set(self.model.members) | set(self.c.project_members())
        name = want
        while name in taken:
            name = "_" + name
        return name

    def _backing_fix(self, decl: Node, sg: Node, name: str, backing: str, setter: str, getter: str) -> Fix:
        head = self.source[decl.start_byte:sg.start_byte].decode("utf-8", "replace").rstrip().rstrip(":").rstrip()
        value = decl.child_by_field_name("value")
        typ = decl.child_by_field_name("type")
        type_text = f": {_text(typ)}" if typ is not None and typ.type != "inferred_type" else ""
        annotations = head[: head.index("var")] if "var" in head else ""
        bol = self.source.rfind(b"\n", 0, decl.start_byte) + 1
        indent = self.source[bol:decl.start_byte].decode()
        inner = indent + "\t"
        store = f"var {backing}{type_text}" + (f" = {_text(value)}" if value is not None else "")
        prop = [f"{annotations}var {name}{type_text}:",
                f"{inner}set(value):", f"{inner}\t" + (f"{setter}(value)" if setter else f"{backing} = value"),
                f"{inner}get:", f"{inner}\treturn " + (f"{getter}()" if getter else backing)]
        eol = self.source.find(b"\n", sg.end_byte)
        eol = len(self.source) if eol < 0 else eol
        tail = self.source[sg.end_byte:eol].decode("utf-8", "replace")
        comment = f"  {tail.strip()}" if tail.strip().startswith("#") else ""  # the line's comment stays on it
        end = eol if comment else sg.end_byte
        edits = [Edit(start=decl.start_byte, end=end, text=f"{store}{comment}\n{indent}" + "\n".join(prop))]
        edits += [Edit(start=n.start_byte, end=n.end_byte, text=backing) for ns in (self.own_refs.get(name, []),)
                  for n in ns]
        return Fix(edits=tuple(sorted(edits, key=lambda e: e.start)), applicability="safe",
                   why=f"`{backing}` holds the value, so code in the class uses it directly as Godot 3 did")


def _function_of_node(node: Node) -> int | None:
    """The start byte of the function holding `node` (None outside any function)."""
    cur = node.parent
    while cur is not None and cur.type not in ("function_definition", "constructor_definition"):
        cur = cur.parent
    return cur.start_byte if cur is not None else None


def _error_scopes(root: Node) -> tuple[bool, set[int | None]]:
    """(whether scopes can be trusted at all, the functions whose names cannot be): an error node inside a
    function spoils that function; one outside every function may have moved statements out of theirs."""
    broken: set[int | None] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            at = _function_of_node(n)
            if at is None:
                return False, broken
            broken.add(at)
            continue
        if n.has_error:
            stack.extend(n.children)
    return True, broken


def _setget_in(text: str, name: str) -> bool:
    return re.search(rf"^[^\n#]*\bvar\s+{re.escape(name)}\b[^\n]*\bsetget\b", text, re.M) is not None


def successor(name: str, api: ApiIndex, *, cls: str = "", kinds: Iterable[str] | None = None) -> str | None:
    """The one Godot 4 name the converter's tables give a Godot 3 name, when 4.x defines it and not the old."""
    if name in _VALUE_CHANGES:
        return None  # `extents` is half of `size`, `rect_rotation` degrees: a rename alone changes the value
    rows = [r for r in changes.member_renames().get(name, ()) if not kinds or r.kind in kinds]
    # a row the converter leaves off (too common a word: a Dictionary key, a script's own property) counts only
    # on a stated class, when no row is on, and when the old name is a Godot 3 member of a class it names
    # (`instance` on PackedScene, not `window_title` on 4.x's Window)
    rows = [r for r in rows if r.enabled] or [
        r for r in rows if cls and any(api.lookup(V3, c, name) is not None for c in r.classes)]
    news = {r.new for r in rows if "." not in r.new}
    if len(news) == 1:
        new = news.pop()
        named = {c for r in rows for c in r.classes}
        gap = bool(named) and not any(api.has_class(V4, c) for c in named)  # the docs lack the class (XR*)
        # on a stated class the successor is that class's or a subclass's (`Material` -> `ShaderMaterial`'s)
        if cls and api.lookup(V4, cls, new) is None and not api.defined_below(V4, cls, new) and not gap:
            pass
        elif api.defined_anywhere(V4, new) or api.lookup(V4, "@GlobalScope", new) is not None or gap:
            return new
    renamed = changes.renamed(kind="global_function") | changes.renamed(kind="class") | changes.renamed(
        kind="constant")
    new = renamed.get(name)
    if new and "." not in new and (api.has_class(V4, new) or api.defined_anywhere(V4, new)):
        return new
    cls_new = api.class_renames.get(name)
    if cls_new and api.has_class(V4, cls_new):
        return cls_new
    return None


# ---------------------------------------------------------------- projects


def check_files(files: Mapping[str, str], api: ApiIndex, *, godot3_origin: Mapping[str, str] | None = None,
                only: Iterable[str] | None = None) -> CheckReport:
    """Check every `.gd` of a project (path -> text); `only` limits the report to those scripts."""
    from agent.judge.project import build_project_context

    ctx = build_project_context(dict(files), api)
    assert ctx.scripts is not None
    checker = Checker(ctx.scripts, api, autoloads=ctx.autoloads, godot3_origin=godot3_origin, typer=ctx.typer)
    wanted = set(only) if only is not None else None
    out, lines = [], 0
    for path in sorted(files):
        if not path.endswith(".gd") or (wanted is not None and path not in wanted):
            continue
        lines += (files[path] or "").count("\n") + 1
        out.append(FileCheck(path=path, diagnostics=checker.check(path)))
    return CheckReport.of(out, lines, api.complete_v4)


def apply_fixes(text: str, diagnostics: Iterable[Diagnostic], *, unsafe: bool = False) -> str:
    """`text` with the fixes' edits applied (the safe ones, and the unsafe too when asked); overlaps are skipped."""
    edits = sorted({e for d in diagnostics if d.fix and (unsafe or d.fix.applicability == "safe")
                    for e in d.fix.edits}, key=lambda e: (e.start, e.end))
    data = text.encode()
    out, last = bytearray(), 0
    for e in edits:
        if e.start < last:
            continue
        out += data[last:e.start] + e.text.encode()
        last = e.end
    out += data[last:]
    return out.decode()


def certain_rename(name: str, api: ApiIndex, declared_by_project: bool) -> str | None:
    """The Godot 4 name of a Godot 3 member whatever its receiver: no 4.x class defines `name`, the project does
    not declare it, and the converter's tables give it one successor that 4.x defines. None when not certain."""
    if declared_by_project or not api.complete_v4 or api.defined_anywhere(V4, name):
        return None
    return successor(name, api)


__all__ = ["Checker", "apply_fixes", "certain_rename", "check_files", "successor"]
