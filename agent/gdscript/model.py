"""One script's declarations on the tree-sitter AST: what each name in it is, and where.

Built once per script per run (`ScriptModel.build`) and shared by every chunk of the script: a
chunk is a span of the model, so a function sees the members declared anywhere in its file, their
declared types and initializers, its own parameters and locals, and the script's `extends`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from tree_sitter import Node

from agent.parse.gdscript import _parser

DeclKind = Literal["var", "const", "func", "signal", "enum", "class", "param", "local", "loop"]

_VAR_STATEMENTS = {"variable_statement": "var", "export_variable_statement": "var",
                   "onready_variable_statement": "var", "const_statement": "const"}
_PARAMS = {"identifier", "typed_parameter", "default_parameter", "typed_default_parameter"}
_BLOCKS = {"body", "if_statement", "elif_clause", "else_clause", "for_statement", "while_statement",
           "match_statement", "match_body", "pattern_section"}


@dataclass(frozen=True)
class Decl:
    """One declared name."""

    name: str
    kind: DeclKind
    line: int
    """1-based line of the declaration."""
    type_text: str = ""
    """The declared type as written (`UndoRedo`, `Array[Node]`); '' when untyped."""
    value: Node | None = field(default=None, compare=False, hash=False)
    """The initializer (a default value for a parameter, the iterable for a loop variable)."""
    onready: bool = False
    inferred: bool = False
    """Declared with `:=`: Godot 4 must infer a type from the initializer, or the script does not load."""


@dataclass
class FunctionModel:
    """A function (or a lambda's enclosing function) with its parameters and locals."""

    name: str
    first_line: int
    last_line: int
    static: bool
    return_type: str
    params: dict[str, Decl] = field(default_factory=dict)
    rest: str = ""
    """The variadic parameter's name (`func f(...args)`, Godot 4.5): any number of arguments more."""
    locals: dict[str, list[Decl]] = field(default_factory=dict)
    """Every local of the name in line order: a later `var x` in another block may hold another type."""


@dataclass
class ScriptModel:
    """A script (or an inner class) as the AST declares it."""

    extends: str = ""
    """What follows `extends`: a class name or a quoted `res://` path ('' when it extends nothing said)."""
    class_name: str = ""
    members: dict[str, Decl] = field(default_factory=dict)
    functions: list[FunctionModel] = field(default_factory=list)
    inner: dict[str, ScriptModel] = field(default_factory=dict)
    enum_values: set[str] = field(default_factory=set)
    """Names of the script's enum values (a named enum's too): constants of its own."""
    tree: object = field(default=None, repr=False)
    """The tree-sitter tree the Decl nodes point into (kept alive with the model)."""
    source: bytes = b""

    @classmethod
    def build(cls, text: str) -> ScriptModel:
        src = text.encode("utf-8")
        tree = _parser().parse(_COMMENT_LINE.sub(_blank, src))
        model = _class_body(tree.root_node.children, cls(tree=tree, source=src))
        return model

    def function_at(self, line: int) -> FunctionModel | None:
        """The column-0 function holding 1-based `line`, if any."""
        for f in self.functions:
            if f.first_line <= line <= f.last_line:
                return f
        return None

    def declares(self, name: str) -> bool:
        return name in self.members or name in self.enum_values


_COMMENT_LINE = re.compile(rb"^[ \t]*#[^\n]*", re.M)


def _blank(m: re.Match[bytes]) -> bytes:
    """A comment-only line as spaces of the same length: tree-sitter-gdscript ends a block at a comment written
    left of the block's indentation (`#\tprint(x)` at column 0 inside a loop), Godot does not. Offsets stay."""
    return b" " * len(m.group(0))


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _var_decl(node: Node, kind: DeclKind) -> Decl | None:
    name = node.child_by_field_name("name")
    if name is None:
        return None
    typ = node.child_by_field_name("type")
    typ = None if typ is not None and typ.type == "inferred_type" else typ  # `:=` infers; it names no type
    if typ is None and node.type == "export_variable_statement":  # Godot 3 `export(PackedScene) var s`: the hint types it
        args = node.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        typ = first if first is not None and first.type in ("identifier", "type") else None
    onready = node.type == "onready_variable_statement" or any(
        c.type == "annotations" and b"onready" in c.text for c in node.children)
    inferred = any(c.type == "inferred_type" for c in node.children)
    return Decl(_text(name), kind, _line(node), _text(typ), node.child_by_field_name("value"), onready, inferred)


def _class_body(children: list[Node], model: ScriptModel) -> ScriptModel:
    for node in children:
        t = node.type
        if t == "extends_statement":
            model.extends = _text(next((c for c in node.children if c.type != "extends"), None)).strip()
        elif t == "class_name_statement":
            name = node.child_by_field_name("name")
            model.class_name = _text(name)
            ext = next((c for c in node.children if c.type == "extends_statement"), None)
            if ext is not None and not model.extends:
                model.extends = _text(ext.children[-1]).strip()
        elif t in _VAR_STATEMENTS:
            d = _var_decl(node, _VAR_STATEMENTS[t])  # type: ignore[arg-type]
            if d is not None:
                model.members.setdefault(d.name, d)
        elif t == "function_definition" or t == "constructor_definition":
            f = _function(node)
            model.functions.append(f)
            model.members.setdefault(f.name, Decl(f.name, "func", f.first_line, f.return_type))
        elif t == "signal_statement":
            name = node.child_by_field_name("name")
            if name is not None:
                model.members.setdefault(_text(name), Decl(_text(name), "signal", _line(node)))
        elif t == "enum_definition":
            name = node.child_by_field_name("name")
            if name is not None:
                model.members.setdefault(_text(name), Decl(_text(name), "enum", _line(node)))
            body = node.child_by_field_name("body")
            for e in (body.children if body is not None else ()):
                if e.type == "enumerator" and e.children:
                    model.enum_values.add(_text(e.children[0]))
        elif t == "class_definition":
            name = node.child_by_field_name("name")
            if name is None:
                continue
            inner = ScriptModel(tree=model.tree, source=model.source)
            ext = node.child_by_field_name("extends")
            inner.extends = _text(ext.children[-1]).strip() if ext is not None and ext.children else ""
            body = node.child_by_field_name("body")
            model.inner[_text(name)] = _class_body(body.children if body is not None else [], inner)
            model.members.setdefault(_text(name), Decl(_text(name), "class", _line(node)))
        elif t in ("annotations", "annotation"):
            continue
    return model


def _function(node: Node) -> FunctionModel:
    name = _text(node.child_by_field_name("name")) or "_init"
    ret = node.child_by_field_name("return_type")
    f = FunctionModel(name, _line(node), node.end_point[0] + 1,
                      any(c.type == "static_keyword" or c.text == b"static" for c in node.children[:2]),
                      _text(ret) if ret is not None else "")
    params = node.child_by_field_name("parameters")
    for p in (params.children if params is not None else ()):
        if p.type == "variadic_parameter":  # `...args` or `...args: Array`
            inner = next((c for c in p.children if c.type in ("identifier", "typed_parameter")), None)
            ident = inner if inner is None or inner.type == "identifier" else next(
                (c for c in inner.children if c.type == "identifier"), None)
            f.rest = _text(ident) or "..."
            continue
        if p.type not in _PARAMS:
            continue
        if p.type == "identifier":
            f.params[_text(p)] = Decl(_text(p), "param", _line(p))
            continue
        ident = next((c for c in p.children if c.type == "identifier"), None)
        typ = p.child_by_field_name("type") or next((c for c in p.children if c.type == "type"), None)
        typ = None if typ is not None and typ.type == "inferred_type" else typ
        value = p.child_by_field_name("value")
        if value is None and p.type in ("default_parameter", "typed_default_parameter"):
            value = p.children[-1]
        if ident is not None:
            f.params[_text(ident)] = Decl(_text(ident), "param", _line(p), _text(typ), value)
    body = node.child_by_field_name("body")
    if body is not None:
        _locals(body, f)
    return f


def _locals(node: Node, f: FunctionModel) -> None:
    for c in node.children:
        if c.type in ("variable_statement", "const_statement"):
            d = _var_decl(c, "local")
            if d is not None:
                f.locals.setdefault(d.name, []).append(d)
        elif c.type == "for_statement":
            var = c.child_by_field_name("left")
            if var is not None and var.type == "identifier":
                f.locals.setdefault(_text(var), []).append(
                    Decl(_text(var), "loop", _line(c), "", c.child_by_field_name("right")))
        if c.type in _BLOCKS or c.type.endswith("_statement") or c.type.endswith("_clause"):
            if c.type not in ("variable_statement", "const_statement", "expression_statement", "return_statement"):
                _locals(c, f)
