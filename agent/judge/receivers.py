"""Resolve what a member use is called on, and in which role, before any rename applies.

`$MessageLabel.hide()` is a *method call* on a Label (the scene says so), not a use of the
Godot 3 *signal* `hide`; `camera.translation` is a property access on whatever `camera` was
declared as. Everything runs on the lexer's masked text (comments and strings never count);
node paths are read from the original text at the same offsets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

Role = str  # "call" | "property" | "signal" | "constant" | "class"

_VAR_TYPED = re.compile(r"\b(?:var|const)\s+([A-Za-z_]\w*)\s*:\s*([A-Z]\w*)\b")
_VAR_NEW = re.compile(r"\b(?:var|const)\s+([A-Za-z_]\w*)\s*:?=\s*([A-Z]\w*)\s*(?:\.\s*new\s*)?\(")
_VAR_NODE = re.compile(r"\bvar\s+([A-Za-z_]\w*)\s*(?::\s*\w+\s*)?:?=\s*(?:\$|get_node\s*\(\s*\")")
_PARAM_TYPED = re.compile(r"[(,]\s*([a-z_]\w*)\s*:\s*([A-Z]\w*)\b")
_SCALAR_TYPED = re.compile(r"(?:\b(?:var|const)\s+|[(,]\s*)([A-Za-z_]\w*)\s*:\s*(int|float|bool)\b")
_SCALAR_INIT = re.compile(r"\b(?:var|const)\s+([A-Za-z_]\w*)\s*:?=\s*(-?\d+(\.\d*)?|true|false)[ \t]*$", re.M)
_RANGE_LOOP = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+range\s*\(")
_SIGNAL_FUNCS = ("connect", "disconnect", "is_connected", "emit_signal", "has_signal")


_VAR_LITERAL = re.compile(r"\b(?:var|const)\s+([A-Za-z_]\w*)\s*:?=\s*([\[{])")


def declared_classes(masked: str) -> dict[str, str]:
    """name -> class as the masked code declares it: `var f: File`, typed parameters, `X.new()`, `X(...)`,
    and list or dictionary literals (`var items = []`). The first declaration of a name wins; nothing
    is checked against an API index, so a project's own class name may come back too."""
    out: dict[str, str] = {}
    for rx in (_VAR_TYPED, _PARAM_TYPED, _VAR_NEW):
        for m in rx.finditer(masked):
            out.setdefault(m.group(1), m.group(2))
    for m in _VAR_LITERAL.finditer(masked):
        out.setdefault(m.group(1), "Array" if m.group(2) == "[" else "Dictionary")
    return out


@dataclass
class Scope:
    """What one chunk's code lets us know about its names."""

    own_class: str | None = None
    """The class the script extends (self calls and bare names)."""
    var_types: dict[str, str] = field(default_factory=dict)
    node_types: dict[str, str] = field(default_factory=dict)
    """Relative node path -> node type, from the project's scenes."""
    classes: frozenset[str] = frozenset()
    """Class names either version documents (a capitalized receiver is a class only if known)."""
    member_type: Callable[[str, str], str | None] | None = None
    """(type, member) -> the type a property holds or a method returns, from the API index: `a.b.c` chains."""
    node_names: Mapping[str, str] = field(default_factory=dict)
    """Node name -> type for a node no scene types (`ApiIndex.node_name_types`): a `$Button` is a Button."""
    element_type: Callable[[str, str], str | None] | None = None
    """(type, method) -> the class of the items it returns (4.x `Array[Node]`): `for c in get_children()`."""
    scalar_types: dict[str, str] = field(default_factory=dict)
    """Names declared `int`, `float` or `bool` (typed, or initialised with a literal, or a `range` loop)."""
    user_classes: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    """The project's `class_name`s -> (the engine class they extend, the names their scripts declare)."""
    dot_types: dict[int, str] = field(default_factory=dict)
    """Offset of a `.` in the chunk -> the engine type left of it, typed on the script's model
    (`agent.gdscript.typer`): members declared anywhere in the file, casts, scenes, return types.
    '' marks a member of the project's own object (`level.rebuild()`): no engine type at all."""

    def engine_type(self, name: str, masked: str, dot: int) -> str | None:
        """`name` as an engine class for the member after `dot`: a project class is its engine base,
        unless its scripts declare that member (`var root: Node25D` above `root.get_position_in_parent()`)."""
        if name not in self.user_classes:
            return name
        base, declared = self.user_classes[name]
        member = re.match(r"\s*\.\s*([A-Za-z_]\w*)", masked[dot:])
        return None if member is None or member.group(1) in declared else base

    def node_type(self, path: str) -> str | None:
        """A node path's type: the scene's, else what its last name spells (`node_names`).

        Nodes keep their type's name unless renamed, and a name that is a node class in 3.4 and 4.x says
        the same in either version; a 3.4-only name (`AnimatedSprite`) may be a converted Godot 4 node.
        """
        path = path.strip("/")
        if path in self.node_types:
            return self.node_types[path]
        return self.node_names.get(path.rsplit("/", 1)[-1])


def scope_of(code: str, masked: str, context: str, *, own_class: str | None, node_types: dict[str, str],
             classes: frozenset[str], node_names: Mapping[str, str] | None = None,
             user_classes: dict[str, tuple[str, frozenset[str]]] | None = None) -> Scope:
    """Variable types declared in the chunk (and its surrounding context): typed, constructed, `$` nodes."""
    scope = Scope(own_class=own_class, node_types=dict(node_types), classes=classes,
                  node_names=node_names or {}, user_classes=dict(user_classes or {}))
    scalars: dict[str, set[str]] = {}
    for text in (context, masked):
        for m in _VAR_TYPED.finditer(text):
            scope.var_types.setdefault(m.group(1), m.group(2))
        for m in _PARAM_TYPED.finditer(text):
            scope.var_types.setdefault(m.group(1), m.group(2))
        for m in _VAR_NEW.finditer(text):
            if m.group(2) in classes or m.group(2) in scope.user_classes:
                scope.var_types.setdefault(m.group(1), m.group(2))
        for m in _SCALAR_TYPED.finditer(text):
            scalars.setdefault(m.group(1), set()).add(m.group(2))
        for m in _SCALAR_INIT.finditer(text):
            literal = m.group(2)
            scalars.setdefault(m.group(1), set()).add("bool" if literal in ("true", "false")
                                                      else "float" if m.group(3) else "int")
        for m in _RANGE_LOOP.finditer(text):
            scalars.setdefault(m.group(1), set()).add("int")
    # a name declared twice as different types (a member and a local) is not known
    scope.scalar_types = {n: t.pop() for n, t in scalars.items() if len(t) == 1 and n not in scope.var_types}
    for m in _VAR_NODE.finditer(masked):  # `onready var label = $Label`: the node's type when the scene has it
        rest = code[m.end():]
        path = re.match(r"([\w/]+)", rest) if code[m.end() - 1] == "$" else re.match(r"([^\"]+)\"", rest)
        node = scope.node_type(path.group(1)) if path else None
        if node:
            scope.var_types.setdefault(m.group(1), node)
    return scope


_VAR_INIT = re.compile(r"^[ \t]*(?:@?onready\s+)?var\s+([A-Za-z_]\w*)\s*:?=[ \t]*(\S[^\n]*?)[ \t]*$", re.M)
_FOR_IN = re.compile(r"^[ \t]*for\s+([A-Za-z_]\w*)\s+in\s+(\S[^\n]*?)\s*:", re.M)
_IS_CLASS = re.compile(r"(?<![\w.])([a-z_]\w*)\s+is\s+([A-Z]\w*)\b")
_CHAIN = re.compile(r"[A-Za-z_]\w*(?:\(\))?(?:\s*\.\s*[A-Za-z_]\w*(?:\(\))?)*")


def infer_var_types(code: str, masked: str, scope: Scope) -> None:
    """`var space = get_world_2d().direct_space_state`: an untyped variable takes its initializer's type.

    Only a plain call/member chain counts (`a + b.c` says nothing), read in code order so a later
    initializer can use an earlier variable; per-version types stay per version. A variable the
    code tests with `x is Class` (one class only) is taken to be that class.
    """
    for m in _VAR_INIT.finditer(masked):
        name, expr = m.group(1), m.group(2)
        if name in scope.var_types:
            continue
        literal = literal_type(expr)
        if literal:
            scope.var_types[name] = literal
            continue
        collapsed = expr
        while (shorter := re.sub(r"\([^()]*\)", "()", collapsed)) != collapsed:
            collapsed = shorter
        if not _CHAIN.fullmatch(collapsed) or ("." not in collapsed and "(" not in collapsed):
            continue
        found = receiver_type(code, masked, m.end(2), scope)
        if found:
            scope.var_types[name] = found
    loops: dict[str, set[str | None]] = {}
    for m in _FOR_IN.finditer(masked):  # `for child in get_children():` -- the loop variable is a Node
        loops.setdefault(m.group(1), set()).add(_item_type(code, masked, m.start(2), m.end(2), scope))
    for name, types in loops.items():  # every loop over that name agrees, or nothing is known
        if name not in scope.var_types and len(types) == 1 and None not in types:
            scope.var_types[name] = types.pop()
    narrowed: dict[str, set[str]] = {}
    for m in _IS_CLASS.finditer(masked):
        narrowed.setdefault(m.group(1), set()).add(m.group(2))
    for name, types in narrowed.items():  # `if event is InputEventKey:` (one class only: an elif chain says less)
        (only,) = types if len(types) == 1 else (None,)
        if only in scope.classes or only in scope.user_classes:
            scope.var_types[name] = only


_INNERMOST = re.compile(r"[\[{(][^\[\]{}()]*[\]})]")
_LITERAL_TYPES = {"[": "Array", "{": "Dictionary"}


def literal_type(expr: str) -> str | None:
    """`[...]` is an Array, `{...}` a Dictionary and `"..."` (or `"..." % x`) a String in both versions.

    The whole initializer must be the literal (`[a, b][0]` or `[] + x` say nothing); a line that
    only opens one (`var d = {` continued below) is that literal. Strings are blank in the masked text.
    """
    text, before = expr.strip(), None
    while text != before:
        if text in _LITERAL_TYPES or _INNERMOST.fullmatch(text):
            return _LITERAL_TYPES.get(text[0])
        before, text = text, _INNERMOST.sub("0", text)  # innermost first: `[1, [2], {}]` -> `[1, 0, 0]`
    return "String" if re.fullmatch(r"(\"\"\"|'''|\"|')[ ]*\1(\s*%\s*[\w.]+)?", text) else None


def _item_type(code: str, masked: str, start: int, end: int, scope: Scope) -> str | None:
    """The class of the items of the call `masked[start:end]` returns (`get_children()`: Node), if known."""
    if scope.element_type is None or masked[end - 1] != ")":
        return None
    k = _match_back(masked, end - 1)
    call = re.search(r"(\.\s*)?([A-Za-z_]\w*)\s*$", masked[start:k]) if k > start else None
    if call is None:
        return None
    owner = receiver_type(code, masked, start + call.start(1), scope) if call.group(1) else scope.own_class
    return scope.element_type(owner, call.group(2)) if owner else None


def _match_back(masked: str, j: int) -> int:
    """Offset of the `(` matching the `)` at j, or -1."""
    depth = 0
    for k in range(j, -1, -1):
        c = masked[k]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                return k
    return -1


def receiver_type(code: str, masked: str, dot: int, scope: Scope) -> str | None:
    """The type of the expression left of the `.` at offset `dot`, when the code makes it known.

    The script model's type comes first; the masked-text reading below covers what it leaves
    unresolved (a chunk judged without its project, a name guessed from a node's name).
    """
    typed = scope.dot_types.get(dot)
    if typed is not None:
        return typed or None  # '': a member of the project's own object, no engine class to guess
    j = dot - 1
    while j >= 0 and code[j] in " \t":  # the original text: a `$Node` path is blank in the masked copy
        j -= 1
    if j < 0:
        return None
    if masked[j] == ")":
        k = _match_back(masked, j)
        if k < 0:
            return None
        e = k - 1
        while e >= 0 and masked[e] in " \t":
            e -= 1
        s = e
        while s >= 0 and (masked[s].isalnum() or masked[s] in "_."):
            s -= 1
        callee = re.sub(r"\s+", "", masked[s + 1 : e + 1])
        if callee == "get_node":
            m = re.match(r"\(\s*[\"']([^\"']+)[\"']", code[k:j + 1])
            return scope.node_type(m.group(1)) if m else None
        head, _, tail = callee.partition(".")
        if tail == "new" and head in scope.user_classes:
            return scope.engine_type(head, masked, dot)
        if tail == "new" and head in scope.classes:
            return head
        if not tail and head in scope.classes:
            return head  # Vector2(...), a constructor
        if scope.member_type is None or not callee:
            return None
        if not tail and s >= 0 and masked[s] != "." and scope.own_class:
            return scope.member_type(scope.own_class, head)  # get_tree(): a method of the script's class
        if "." in callee:  # label.get_font(...), get_viewport().get_texture(): the return type on the receiver's
            dot_at = masked.rfind(".", s + 1, e + 1)
            owner = receiver_type(code, masked, dot_at, scope)
            return scope.member_type(owner, masked[dot_at + 1 : e + 1].strip()) if owner else None
        return None
    if code[j].isalnum() or code[j] in "_/":
        s = j
        while s >= 0 and (code[s].isalnum() or code[s] in "_/"):
            s -= 1
        if s >= 0 and code[s] in "$%":
            return scope.node_type(code[s + 1 : j + 1])
        name = masked[s + 1 : j + 1].strip()
        if s >= 0 and masked[s] == ".":  # a member of a member: `a.b` has the type of b on a's type
            if scope.member_type is None:
                return None
            owner = receiver_type(code, masked, s, scope)
            return scope.member_type(owner, name) if owner else None
        if name == "self":
            return scope.own_class
        if name in scope.var_types:
            return scope.engine_type(scope.var_types[name], masked, dot)
        if name[:1].isupper() and name in scope.classes:
            return name
    return None


# `await` and one chain of names, node paths, calls and subscripts ending here (no operators, no `and`/`if`;
# spaces stay allowed: a masked `$"Path"` or `$Node` is blanked to spaces)
_AWAITED = re.compile(r"\bawait\s+((?:[\w$%/.\"' ]|\([^()\n]*\)|\[[^\[\]\n]*\])+)$")
_NOT_A_CHAIN = re.compile(r"\b(and|or|not|if|else|in|is|as)\b")


def role_at(masked: str, end: int) -> Role:
    """Role of a member name ending at `end`: a call, a signal (`.x.connect(`, `.x.emit(`, `await .x`) or a property."""
    rest = masked[end : end + 40]
    if re.match(r"\s*\(", rest):
        return "call"
    if re.match(r"\s*\.\s*(connect|disconnect|emit|is_connected)\s*\(", rest):
        return "signal"
    line = masked[masked.rfind("\n", 0, end) + 1 : end]
    awaited = _AWAITED.search(line)
    if awaited and not _NOT_A_CHAIN.search(awaited.group(1)) and not re.match(r"[ \t]*[.(\[]", rest):
        return "signal"  # `await $Button.pressed`: what is awaited last is a signal
    return "property"


def signal_string_uses(masked: str, strings: list[tuple[str, str, int]]) -> dict[str, int]:
    """Signal names used as strings: `connect("hide", ...)`, `emit_signal("hide")` -> name: offset."""
    out: dict[str, int] = {}
    for _, content, start in strings:
        before = masked[max(0, start - 40) : start]
        if re.search(r"\b(" + "|".join(_SIGNAL_FUNCS) + r")\s*\(\s*$", before) and re.fullmatch(r"\w+", content):
            out.setdefault(content, start)
    return out


# Godot's calls by name: the first argument is a string naming a method or a property of the receiver.
# (`rpc("f")` names the script's own function; `Dictionary.get("key")` is no member: only an Object counts.)
BY_NAME_ROLES: dict[str, Role] = {"call": "call", "call_deferred": "call", "callv": "call", "has_method": "call",
                                  "set": "property", "get": "property", "set_deferred": "property"}
_BY_NAME_CALL = re.compile(r"(?:(\.)\s*|(?<![\w.$%@]))(" + "|".join(BY_NAME_ROLES) + r")\s*\(\s*$")


@dataclass(frozen=True)
class NamedUse:
    """`get_tree().call_deferred("change_scene", path)`: a member named by a string literal."""

    name: str
    role: Role
    quote: int
    """Offset of the string's opening quote."""
    call: int
    """Offset of the by-name function (`call_deferred`)."""
    dot: int
    """Offset of the `.` before that function, or -1: a bare call on the script's own object."""


def by_name_uses(masked: str, strings: list[tuple[str, str, int]]) -> list[NamedUse]:
    """Members named as the first, whole argument of `call`, `call_deferred`, `has_method`, `set`, `get`, ..."""
    out: list[NamedUse] = []
    for prefix, content, quote in strings:
        if prefix or not re.fullmatch(r"[A-Za-z_]\w*", content):
            continue
        base = max(0, quote - 60)
        m = _BY_NAME_CALL.search(masked, base, quote)
        if not m or not re.match(r"\s*[,)]", masked[quote + len(content) + 2 : quote + len(content) + 40]):
            continue
        out.append(NamedUse(content, BY_NAME_ROLES[m.group(2)], quote, m.start(2), m.start(1) if m.group(1) else -1))
    return out


def is_continuation(masked: str, start: int) -> bool:
    """A line starting with `.` continues an expression (Godot 4 chains) unless it follows a finished statement.

    Inside brackets it always continues; after a line that opens a block (`:`) it is a statement
    (the Godot 3 `.method()` parent call); after another line it continues when it is indented
    deeper than that line or that line ends with `\\` or an operator.
    """
    depth = 0
    for c in masked[:start]:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
    if depth > 0:
        return True
    line_start = masked.rfind("\n", 0, start) + 1
    own_indent = len(masked[line_start:start].expandtabs(4)) - len(masked[line_start:start].expandtabs(4).lstrip())
    prev_end = line_start - 1
    while prev_end > 0:
        prev_start = masked.rfind("\n", 0, prev_end) + 1
        prev = masked[prev_start:prev_end]
        if prev.strip():
            stripped = prev.rstrip()
            if stripped.endswith(":"):
                return False
            if stripped.endswith(("\\", "(", ",", "+", "-", "*", "/", "=", "and", "or")):
                return True
            prev_indent = len(prev.expandtabs(4)) - len(prev.expandtabs(4).lstrip())
            return own_indent > prev_indent
        prev_end = prev_start - 1
    return False
