"""Mechanical Godot 3 -> 4 rewrites of one chunk (renames and fixed syntax), or None.

Only rewrites that need no judgement are made; if anything Godot 3 remains after
rewriting, no code is suggested at all (a half-migrated suggestion would mislead).
Comments and strings are never touched: matches are located on the masked text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from contextvars import ContextVar

from agent import changes
from agent.judge.lexer import lex
from agent.judge.snippets import close_paren, split_args
from agent.judge.templates import callable_of, moved_signal_path, template_edit
from agent.judge.syntax_rules import (BASIS_FROM_EULER, GDSCRIPT_RULES, GLOBAL_FUNCTION_RENAMES, NODEPATH_AT,
                                     STRING_FROM, declared_variables, rule_matches)

_SIMPLE_TYPES = {"int", "float", "bool", "String", "Vector2", "Vector3", "Color", "NodePath", "PackedScene",
                 "Texture", "Texture2D", "Resource", "Array", "Dictionary", "AudioStream", "Font", "Curve"}
# The renames every rewrite applies, by the syntax rule that finds them (agent/data/changes/renames.json)
_POOL = changes.renamed(rule="pool_array")
_RECT = changes.renamed(rule="rect_properties")
_OS_TIME = changes.renamed(rule="os_time")
_OS_TIME_CLASS = changes.moved("os_time").cls
_IDENT_ONLY = re.compile(r"[A-Za-z_]\w*")


def _sub_in_code(text: str, pattern: re.Pattern[str], repl, *, keep_strings: bool = False) -> str:
    """Apply `pattern` on the masked text (comments, and strings unless kept, blanked); edit the original.

    Kept strings are read (a signal name in `connect("sig", ...)`), but a match never starts inside one.
    """
    lexed = lex(text)
    view = lexed.no_comments if keep_strings else lexed.masked
    out, last = [], 0
    for m in pattern.finditer(view):
        if keep_strings and lexed.masked[m.start()] != text[m.start()]:
            continue  # `x = "is_connected('a', self, 'b')"` is text, not a call
        out.append(text[last : m.start()])
        out.append(repl(m, text[m.start() : m.end()]))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


_NUMBER = r"-?\d+(?:\.\d+)?"
_EXPORT_STRING_KINDS = {"FILE": "@export_file", "DIR": "@export_dir", "MULTILINE": "@export_multiline",
                        "GLOBAL_FILE": "@export_global_file", "GLOBAL_DIR": "@export_global_dir"}
_EXPORT_FLAG_KINDS = {f"LAYERS_{k}": f"@export_flags_{k.lower()}" for k in
                      ("2D_PHYSICS", "2D_RENDER", "2D_NAVIGATION", "3D_PHYSICS", "3D_RENDER", "3D_NAVIGATION")}
_CLASS_RENAMES = {**changes.renamed(kind="class"), **changes.renamed(rule="pool_array")}


def _export_annotation(hint: str) -> tuple[str, str]:
    """(annotation, type) of a Godot 3 `export(hint)`: `int, 1, 100` -> (`@export_range(1, 100)`, `int`)."""
    parts = [p.strip() for p in re.split(r",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", hint)] if hint else []
    if not parts:
        return "@export", ""
    head, rest = parts[0], parts[1:]
    if head in ("int", "float") and rest and all(re.fullmatch(_NUMBER, p) for p in rest) and 2 <= len(rest) <= 3:
        return f"@export_range({', '.join(rest)})", head
    if head in ("int", "String") and rest and all(re.fullmatch(r'"[^"\n]*"', p) for p in rest):
        return f"@export_enum({', '.join(rest)})", head  # a String var keeps the chosen name, an int its index
    if head == "float" and rest[:1] == ["EXP"] and all(re.fullmatch(_NUMBER, p) for p in rest[1:]) \
            and 2 <= len(rest[1:]) <= 3:
        return f"@export_range({', '.join(rest[1:])}, \"exp\")", head
    if head == "float" and rest == ["EASE"]:
        return "@export_exp_easing", head
    if head == "int" and len(rest) >= 2 and rest[0] == "FLAGS" and all(re.fullmatch(r'"[^"\n]*"', p) for p in rest[1:]):
        return f"@export_flags({', '.join(rest[1:])})", head
    if head == "int" and len(rest) == 1 and rest[0] in _EXPORT_FLAG_KINDS:
        return _EXPORT_FLAG_KINDS[rest[0]], head
    if head == "String" and rest and rest[0] in _EXPORT_STRING_KINDS and all(re.fullmatch(r'"[^"\n]*"', p)
                                                                              for p in rest[1:]):
        return _EXPORT_STRING_KINDS[rest[0]] + (f"({', '.join(rest[1:])})" if rest[1:] else ""), head
    if head == "Color" and rest == ["RGB"]:
        return "@export_color_no_alpha", head
    if head == "Color" and rest == ["RGBA"]:
        return "@export", head
    if head == "Array" and len(rest) == 1 and re.fullmatch(r"[A-Za-z_]\w*", rest[0]):
        return "@export", f"Array[{_CLASS_RENAMES.get(rest[0], rest[0])}]"
    if not rest and re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?", head):
        return "@export", _CLASS_RENAMES.get(head, head)  # a class, a built-in type or an enum of the script
    raise _NotMechanical(f"export hint {hint!r}")


def _group(m: re.Match[str], orig: str, k: int) -> str:
    """Group `k` of a match on the masked text, as the original text has it (comments and strings kept)."""
    return orig[m.start(k) - m.start():m.end(k) - m.start()] if m.group(k) is not None else ""


def _export(m: re.Match[str], orig: str) -> str:
    annotation, typ = _export_annotation(_group(m, orig, 3).strip())
    own_type, inferred = m.group(5), m.group(6)
    if own_type or not typ:  # `export(int) var x: int = 1`, `export var x := 1`: the declaration types itself
        return f"{_group(m, orig, 1)}{annotation} var {m.group(4)}{_group(m, orig, 5)}{_group(m, orig, 6)}"
    return f"{_group(m, orig, 1)}{annotation} var {m.group(4)}: {typ}" + (" =" if inferred else "")


_RPC_FORMS = changes.syntax().rpc_annotations


def _rpc(m: re.Match[str], orig: str) -> str:
    return f"{m.group(1)}{_RPC_FORMS[m.group(2)]}\n{m.group(1)}func"


def _super_calls(code: str) -> str:
    """`return .f(x)` -> `return super.f(x)`: the parent call's dot, found by the syntax rule itself."""
    rule = next(r for r in GDSCRIPT_RULES if r.name == "super_dot_call")
    dots = [at for _, at in rule_matches(rule, lex(code).masked)]
    for at in sorted(dots, reverse=True):
        code = code[:at] + "super" + code[at:]
    return code


class _NotMechanical(Exception):
    """Raised inside a rewrite step that would need judgement."""


_INIT_SUPER = re.compile(r"^([ \t]*)((?:static[ \t]+)?func[ \t]+_init[ \t]*\()", re.M)


def _rewrite_init_super(code: str) -> str:
    """`func _init(a).(a, 1):` -> `func _init(a):` + `super(a, 1)` as the body's first statement."""
    masked = lex(code).masked
    for m in list(_INIT_SUPER.finditer(masked))[::-1]:
        close = close_paren(masked, m.end() - 1)
        dot = re.compile(r"[ \t]*\.[ \t]*\(").match(masked, close) if close > 0 else None
        if dot is None:
            continue
        end = close_paren(masked, dot.end() - 1)
        colon = re.compile(r"([ \t]*(?:->[ \t]*\w+[ \t]*)?:)[ \t]*(?:#[^\n]*)?\n").match(masked, end) if end > 0 else None
        if colon is None:
            continue
        body = re.match(r"(?:[ \t]*\n)*([ \t]+)\S", code[colon.end():])
        if body is None or len(body.group(1)) <= len(m.group(1)):
            continue
        args = code[dot.end():end - 1]
        code = (code[:close] + code[end:colon.end()] + f"{body.group(1)}super({args})\n" + code[colon.end():])
        masked = lex(code).masked
    return code


_EXPORT_VAR = re.compile(r"^([ \t]*)export(\s*\(([^)\n]*)\))?\s+var\s+([A-Za-z_]\w*)([ \t]*:[ \t]*[A-Za-z_][\w.\[\]]*)?"
                         r"([ \t]*:=)?", re.M)
_SETGET = re.compile(r"^([ \t]*)((?:@\w+(?:\([^)\n]*\))?[ \t]+)*var\s+[^\n]*?)[ \t]+setget[ \t]+(\w*)[ \t]*"
                     r"(?:,[ \t]*(\w+))?[ \t]*$", re.M)


def _export_step(code: str) -> str:
    return _sub_in_code(code, _EXPORT_VAR, _export)


def _onready_step(code: str) -> str:
    return _sub_in_code(code, re.compile(r"^([ \t]*)onready(\s+var\b)", re.M), lambda m, o: f"{m.group(1)}@onready{m.group(2)}")


def _tool_step(code: str) -> str:
    return _sub_in_code(code, re.compile(r"^([ \t]*)tool[ \t]*$", re.M), lambda m, o: f"{m.group(1)}@tool")


def _rpc_step(code: str) -> str:
    return _sub_in_code(code, re.compile(rf"^([ \t]*)({'|'.join(_RPC_FORMS)})[ \t]+func\b", re.M), _rpc)


def _yield_step(code: str) -> str:
    return _rewrite_calls(code, _YIELD, _await)


def _icon_step(code: str) -> str:
    # class_name X, "res://icon.svg" -> @icon("res://icon.svg") on the line above class_name X
    code = _sub_in_code(code, re.compile(r"^([ \t]*)class_name[ \t]+(\w+)[ \t]*,[ \t]*(([\"'])[^\"'\n]*\4)", re.M),
                        lambda m, o: f"{m.group(1)}@icon({m.group(3)})\n{m.group(1)}class_name {m.group(2)}",
                        keep_strings=True)
    return _hoist_icon(code)


def _nodepath_step(code: str) -> str:
    return _sub_in_code(code, _NODEPATH_AT, lambda m, o: "^")  # @"A/B" -> ^"A/B"


def _setget_step(code: str) -> str:
    return _sub_in_code(code, _SETGET, _setget)


def _statement_steps() -> tuple:
    """The line rules the whole rewrite runs first: annotations, parent calls, `_init` super, awaits."""
    return (_export_step, _onready_step, _tool_step, _rpc_step, _super_calls, _rewrite_init_super,
            _rewrite_function_state, _yield_step)


def _grammar_steps() -> tuple:
    """The line rules that change grammar only: what a chunk left to a person still gets (`syntax_edits`)."""
    return (*_statement_steps(), _icon_step, _nodepath_step, _setget_step)


def _rewrite_lines(code: str, *, with_setget: bool = True, declared: set[str] = frozenset(),
                   taken: set[str] = frozenset()) -> str:
    for step in _statement_steps():
        code = step(code)
    code = _rewrite_move_and_slide(code)
    code = _sub_in_code(code, _STRING_CONNECT, _connect, keep_strings=True)
    code = _icon_step(code)
    code = _rewrite_thread_start(code)
    code = _rewrite_file_new(code)
    code = _rewrite_json_parse(code, declared | taken)
    code = _rewrite_rigid_body_mode(code)
    code = _rewrite_tween_groups(code, declared | taken)
    code = _rewrite_tween(code)
    code = _rewrite_os_window(code)
    code = _rewrite_is_variable(code)
    code = _nodepath_step(code)
    code = _sub_in_code(code, _BASIS_FROM_EULER, lambda m, o: "Basis.from_euler(")
    code = _rewrite_string_from(code)
    if with_setget:  # Godot 4 runs the setter on in-class access too (the item's caveat says so)
        code = _setget_step(code)
    for old, new in {**_POOL, **_RECT}.items():
        code = _sub_in_code(code, re.compile(rf"\b{old}\b"), lambda m, o, new=new: new)
    for old, new in GLOBAL_FUNCTION_RENAMES.items():
        if old in declared:
            continue  # the script's own `func stepify()`
        code = _sub_in_code(code, re.compile(rf"(?<![\w.]){old}(?=\s*\()"),
                            lambda m, o, new=new: o if re.search(r"\bfunc\s+$", m.string[: m.start()]) else new)
    for old, new in _OS_TIME.items():
        code = _sub_in_code(code, re.compile(rf"\b{_OS_TIME_CLASS}\s*\.\s*{old}\b"), lambda m, o, new=new: new)
    return code


_NODEPATH_AT = re.compile(NODEPATH_AT)
_BASIS_FROM_EULER = re.compile(BASIS_FROM_EULER)
_IS_VARIABLE = re.compile(r"(?<![\w.$%])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s+is\s+([a-z_]\w*)\b(?!\s*[.(\[])")


_STRING_FROM = re.compile(STRING_FROM)


_WHOLE_FLOAT = re.compile(r"(?:ceil|floor|round)\s*\(")


def _rewrite_string_from(code: str) -> str:
    """`String(x)` -> `str(x)`: the same value in Godot 3 for any one argument, and valid in Godot 4. A whole
    float (`String(ceil(v))`) printed `5` in Godot 3 and prints `5.0` through Godot 4's `str`: it becomes
    `str(int(ceil(v)))`, the text Godot 3 showed."""
    for start in reversed([m.start() for m in _STRING_FROM.finditer(lex(code).masked)]):
        # from the last: a later edit leaves an earlier start in place, but moves its closing parenthesis
        masked = lex(code).masked
        m = _STRING_FROM.match(masked, start)
        if m is None:
            continue
        open_at = masked.index("(", m.end())
        close = close_paren(masked, open_at)
        if close <= 0:
            continue
        inner = masked[open_at + 1 : close - 1]
        depth, top_comma = 0, False
        for c in inner:
            depth += c in "([{"
            depth -= c in ")]}"
            top_comma |= c == "," and depth == 0
        if top_comma:
            continue
        arg = code[open_at + 1 : close - 1]
        lead = len(arg) - len(arg.lstrip())
        whole = _WHOLE_FLOAT.match(inner[lead:])
        if whole and close_paren(masked, open_at + 1 + lead + whole.end() - 1) == close - 1 - (
                len(arg) - len(arg.rstrip())):
            arg = f"int({arg.strip()})"
        code = code[: m.start()] + f"str({arg})" + code[close:]
    return code


def _rewrite_is_variable(code: str) -> str:
    """`p_obj is p_type` with a declared variable `p_type` -> `is_instance_of(p_obj, p_type)`."""
    variables = declared_variables(lex(code).masked)
    return _sub_in_code(code, _IS_VARIABLE, lambda m, o: f"is_instance_of({m.group(1)}, {m.group(2)})"
                        if m.group(2) in variables else o)


def is_variable_test(code: str, is_at: int) -> tuple[str, str] | None:
    """(`p_obj is p_type`, `is_instance_of(p_obj, p_type)`) for the `is` test starting at offset `is_at`."""
    line_start = code.rfind("\n", 0, is_at) + 1
    for m in _IS_VARIABLE.finditer(lex(code).masked, line_start):
        if m.start(0) <= is_at < m.end(0):
            old = code[m.start(0) : m.end(0)]
            return old, f"is_instance_of({m.group(1)}, {m.group(2)})"
        if m.start(0) > is_at:
            break
    return None


# obj.connect("sig", target, "method"[, [binds][, flags]]) -> obj.sig.connect(target.method[.bind(...)][, flags]);
# disconnect / is_connected take the same three arguments in Godot 3 and a Callable in Godot 4
_STRING_CONNECT = re.compile(
    r"((?:[\w$]+\s*\.\s*)*)(?<![\w])(connect|disconnect|is_connected)\(\s*([\"'])(\w+)\3\s*,\s*([\w.]+)\s*,"
    r"\s*([\"'])(\w+)\6\s*(?:,\s*\[([^\]\n]*)\]\s*)?(?:,\s*([\w.|\s]+?)\s*)?\)")


def _connect(m: re.Match[str], orig: str) -> str:
    obj, call, sig, target, method, binds, flags = (m.group(1) or "", m.group(2), m.group(4), m.group(5),
                                                   m.group(7), (m.group(8) or "").strip(), m.group(9))
    if call != "connect" and (binds or flags):
        raise _NotMechanical(f"{call} with extra arguments")
    callee = method if target == "self" else f"{target}.{method}"
    callee += f".bind({binds})" if binds else ""
    before = m.string[max(0, m.start() - 40):m.start()]
    receiver = re.search(r"([\w$]+\(\s*\))\s*\.\s*$", before) if not obj else None
    moved = moved_signal_path(receiver.group(1), sig) if receiver else None
    if moved:  # `get_tree().connect("network_peer_connected", ...)`: the signal is the multiplayer API's now
        sig = moved
    return f"{obj}{sig}.{call}({callee}" + (f", {_connect_flags(flags)}" if flags else "") + ")"


_CONNECT_FLAGS = changes.renamed(rule="connect_string_method", kind="constant")


def _connect_flags(flags: str) -> str:
    """Godot 3 connect flags in their Godot 4 spelling (`CONNECT_ONESHOT` -> `CONNECT_ONE_SHOT`)."""
    def one(m: re.Match[str]) -> str:
        owner, name = m.group(1) or "", m.group(2)
        if name.isdigit():
            return name
        if name not in _CONNECT_FLAGS:
            raise _NotMechanical(f"connect flag {name}")
        return owner + _CONNECT_FLAGS[name]
    return re.sub(r"(Object\s*\.\s*)?(\w+)", one, flags.strip())


def _hoist_icon(code: str) -> str:
    """Godot 4 wants `@icon` before `extends` (Godot 3 allowed `class_name X, "icon"` after it)."""
    lines = code.split("\n")
    icon = next((k for k, line in enumerate(lines) if re.match(r"[ \t]*@icon\(", line)), None)
    extends = next((k for k, line in enumerate(lines) if re.match(r"[ \t]*extends\b", line)), None)
    if icon is None or extends is None or extends > icon:
        return code
    lines.insert(extends, lines.pop(icon))
    return "\n".join(lines)


def _rewrite_calls(code: str, name: re.Pattern[str], build) -> str:
    """Replace each call `name(args)` (located on the masked text) by `build(match, args, orig_call)`."""
    masked = lex(code).masked
    out, last = [], 0
    for m in name.finditer(masked):
        if m.start() < last:
            continue
        open_at = m.end() - 1
        close = close_paren(masked, open_at)
        if close < 0:
            continue
        args = split_args(code[open_at + 1 : close - 1], masked[open_at + 1 : close - 1])
        repl = build(m, args, code[m.start() : close])
        if repl is None:
            continue
        out.append(code[last : m.start()])
        out.append(repl)
        last = close
    out.append(code[last:])
    return "".join(out)


_YIELD = re.compile(r"(?<![\w.])yield\s*\(")
_SIGNAL_NAME = re.compile(r"([\"'])(\w+)\1")


_COMPLETED = "completed"
"""GDScriptFunctionState's signal: `yield(f(), "completed")` waits for the coroutine `f()` to return."""
_CALL_EXPR = re.compile(r"[\w$%][\w.$%/\[\]\s]*\(.*\)\s*", re.S)


def _await(m: re.Match[str], args: list[str], call: str) -> str | None:
    """`yield(obj, "signal")` -> `await obj.signal`, whatever commas `obj` holds (`create_timer(1.0, false)`);
    `yield(f(x), "completed")` -> `await f(x)` (Godot 4 awaits the coroutine itself)."""
    if len(args) != 2 or not args[0] or not (name := _SIGNAL_NAME.fullmatch(args[1])):
        return None
    if name.group(2) == _COMPLETED:
        if _CALL_EXPR.fullmatch(args[0]) and not args[0].startswith("("):
            return f"await {args[0]}"
        # `yield(state, "completed")` on a value: most often a GDScriptFunctionState kept from an earlier call,
        # which Godot 4 cannot await later (the call itself must be awaited): a person decides
        raise _NotMechanical("yield on the completion of a value kept from an earlier call")
    return f"await {args[0]}.{name.group(2)}"


_STATE_WAIT = re.compile(r"^([ \t]*)(?:([A-Za-z_]\w*)[ \t]*=[ \t]*)?yield[ \t]*\([ \t]*([A-Za-z_]\w*)[ \t]*,[ \t]*"
                         r"([\"'])completed\4[ \t]*\)[ \t]*(?:#[^\n]*)?(?:\n|$)", re.M)
"""`yield(r, "completed")` (or `r = yield(r, "completed")`) as a statement of its own."""
_STATE_TEST = re.compile(r"^([ \t]*)if[ \t]+([A-Za-z_]\w*)[ \t]+is[ \t]+GDScriptFunctionState[ \t]*:[ \t]*(?:#[^\n]*)?\n"
                         r"([ \t]+)(?:\2[ \t]*=[ \t]*)?yield[ \t]*\([ \t]*\2[ \t]*,[ \t]*([\"'])completed\4[ \t]*\)[ \t]*"
                         r"(?:#[^\n]*)?(?:\n|$)", re.M)


def _rewrite_function_state(code: str) -> str:
    """`var r = f()` + `if r is GDScriptFunctionState: r = yield(r, "completed")` (or a bare
    `yield(r, "completed")`) -> `var r = await f()`.

    Godot 3's way to wait for a call that may be a coroutine; Godot 4 awaits the call (a plain value comes back
    at once). Only when the assignment is the statement right before and the test has nothing else.
    """
    masked = lex(code).masked
    found = [(m, m.group(2), True) for m in _STATE_TEST.finditer(code)]
    found += [(m, m.group(3), False) for m in _STATE_WAIT.finditer(code) if m.group(2) in (None, m.group(3))]
    for m, name, test in sorted(found, key=lambda f: f[0].start(), reverse=True):
        indent = m.group(1)
        if test and (len(m.group(3)) <= len(indent) or masked[m.end(1):m.end(1) + 2] != "if"):
            continue
        if masked[m.end(1):m.end(1) + 1] != code[m.end(1):m.end(1) + 1]:
            continue  # inside a string
        if not test and m.group(2) is None and re.search(rf"(?<![\w.$%]){name}\b", masked[m.end():]):
            continue  # the state object itself read later: not the call's value
        after = code[m.end():]
        nxt = next((ln for ln in after.split("\n") if ln.strip()), "")
        if test and (len(nxt) - len(nxt.lstrip()) > len(indent) and nxt.strip()
                     or re.match(rf"{indent}(elif|else)\b", nxt)):
            continue  # more in the test's block, or a branch for the other case
        assign = None
        for a in re.finditer(rf"^{indent}(?:var[ \t]+)?{name}[ \t]*(?::[ \t]*[\w.]+[ \t]*)?=(?!=)[ \t]*", masked[:m.start()],
                             re.M):
            assign = a
        if assign is None:
            continue
        value = masked[assign.end():m.start()].rstrip()
        depth, flat = 0, True
        for ch in value:
            depth += ch in "([{"
            depth -= ch in ")]}"
            flat &= depth > 0 or ch != "\n"
        if depth or not flat or not value or not _CALL_EXPR.fullmatch(value):
            continue
        end = assign.end() + len(value)
        code = code[:assign.end()] + "await " + code[assign.end():end] + "\n" + code[m.end():]
        masked = lex(code).masked
    return code


_MAS_ARGUMENTS = changes.syntax().move_and_slide_arguments
"""move_and_slide's Godot 3 arguments and the CharacterBody properties they became (None: dropped)."""
_VELOCITY = _MAS_ARGUMENTS[0].new


def _rewrite_move_and_slide(code: str) -> str:
    """`[var] A = [R.]move_and_slide(B, up, ...)` -> R's velocity/up_direction/... properties + `R.move_and_slide()`.

    The receiver (`owner.move_and_slide(v, UP)` in a state script) keeps its properties; `_with_snap`'s snap
    vector becomes `floor_snap_length` (its length: Godot 4 snaps along -up_direction, and not while jumping).
    """
    lines = code.split("\n")
    masked = lex(code).masked.split("\n")
    rx = re.compile(r"^(\s*)(?:(var\s+)?([A-Za-z_][\w.]*)\s*(?::\s*\w+\s*)?=\s*)?"
                    r"((?:[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*|get_parent\(\))\s*\.\s*)?move_and_slide(_with_snap)?\s*\(")
    out: list[str] = []
    for line, view in zip(lines, masked):
        m = rx.match(view)
        close = close_paren(view, m.end() - 1) if m else -1
        if not m or close < 0 or view[close:].strip():
            out.append(line)
            continue
        indent, decl, target = m.group(1), m.group(2), m.group(3)
        recv = re.sub(r"\s+", "", m.group(4) or "")
        args = split_args(line[m.end() : close - 1], view[m.end() : close - 1])
        snap = args.pop(1) if m.group(5) and len(args) >= 2 else None
        if m.group(5) and snap is None or not args or len(args) > len(_MAS_ARGUMENTS):
            out.append(line)
            continue
        velocity = recv + _VELOCITY
        new = [] if args[0] == velocity else [f"{velocity} = {args[0]}"]
        if snap is not None:
            new.append(f"{recv}floor_snap_length = " + (f"{snap}.length()" if re.fullmatch(r"[\w.]+", snap)
                                                         else f"({snap}).length()"))
        new += [f"{recv}{a.new} = {value}" for a, value in zip(_MAS_ARGUMENTS[1:], args[1:]) if a.new]
        new.append(f"{recv}move_and_slide()")
        if target and target != velocity:
            new.append(f"{decl or ''}{target} = {velocity}")
        out += [indent + n for n in new]
    return "\n".join(out)


def _rewrite_thread_start(code: str) -> str:
    """`t.start(self, "f"[, data])` -> `t.start(f)` / `t.start(f.bind(data))`."""
    def build(m, args, orig):
        if len(args) not in (2, 3) or args[0] != "self" or not re.fullmatch(r'"\w+"|\'\w+\'', args[1]):
            return None
        fn = args[1].strip("\"'")
        return f"{m.group(1)}start({fn}.bind({args[2]}))" if len(args) == 3 else f"{m.group(1)}start({fn})"
    return _rewrite_calls(code, re.compile(r"(\.\s*)start\s*\("), build)


def _property_path(literal: str) -> str:
    """`"rect_position"` -> `"position"`: a property path string whose property only one 3.4 class family had,
    under its Godot 4 name (agent/data/changes/resources.json); any other string stays as it is."""
    m = re.fullmatch(r'(["\'])([A-Za-z_]\w*)((?::\w+)*)\1', literal.strip())
    data = changes.resource_changes()
    if m is None or m.group(2) not in data.unique:
        return literal
    # a script's name first: `rect_rotation` is `rotation_degrees` (the scene file stores `rotation` in radians)
    new = _RECT.get(m.group(2)) or data.properties[m.group(2)][0][0]
    return f"{m.group(1)}{new}{m.group(3)}{m.group(1)}"


_TWEEN = changes.syntax().tween_node
_TWEEN_CALL = re.compile(r"^([ \t]*)((?:\$[\w/]+|%\w+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*))\s*\.\s*"
                         rf"({changes.alternation(_TWEEN.interpolations)})\s*\(", re.M)


def _tweener(kind: str, args: list[str], tween: str) -> str | None:
    """One Tween node interpolation as the created Tween's tweener (None: an argument list it never took)."""
    trans_ease_delay = ("set_trans", "set_ease", "set_delay")
    tweener = _TWEEN.interpolations[kind]
    if kind.endswith("property") and 5 <= len(args) <= 8:  # (object, property, from, to, duration, ...)
        obj, prop, start, final, dur, *rest = args
        start_at = "" if start.strip() == "null" else f".from({start})"  # null: from the value it has then
        head = f"{tween}.{tweener}({obj}, {_property_path(prop)}, {final}, {dur}){start_at}"
    elif kind.endswith("method") and 5 <= len(args) <= 8:  # (object, method, from, to, duration, ...)
        obj, method, start, final, dur, *rest = args
        head = f"{tween}.{tweener}({callable_of(obj, method)}, {start}, {final}, {dur})"
    elif kind.endswith("callback") and 3 <= len(args) <= 8:  # (object, duration, method, arguments...)
        obj, dur, method, *bound = args
        bound_args = f".bind({', '.join(bound)})" if bound else ""
        return f"{tween}.{tweener}({callable_of(obj, method)}{bound_args}).set_delay({dur})"
    else:
        return None
    return head + "".join(f".{m}({v})" for m, v in zip(trans_ease_delay, rest))


def _rewrite_tween_groups(code: str, declared: set[str] = frozenset()) -> str:
    """A Tween node's interpolations, its `start()` and the awaits on its end, in one block of one function ->
    one `create_tween()` (parallel, as the node ran them), its tweeners, and `await tween.finished`.

    Only when the function does nothing else with the node (`is_active()`, `stop_all()` in the same code
    leave the calls to `_rewrite_tween` and the judge, which keeps them for a person).
    """
    lexed = lex(code)
    view, masked = lexed.no_comments, lexed.masked
    for recv in dict.fromkeys(m.group(2) for m in _TWEEN_CALL.finditer(view)):
        uses = list(re.finditer(rf"(?<![\w.$%/]){re.escape(recv)}(?![\w/])\s*(?:\.\s*(\w+))?", view))
        calls = [m for m in _TWEEN_CALL.finditer(view) if m.group(2) == recv]
        indent = calls[0].group(1)
        done = [u for u in uses if u.group(1) in _TWEEN.ends]
        starts = [u for u in uses if u.group(1) == "start"]
        if not starts or any(u.group(1) not in (*_TWEEN.interpolations, "start", *_TWEEN.ends) for u in uses) \
                or any(c.group(1) != indent for c in calls) or len(done) > 1 \
                or done and (done[0].group(1) != _TWEEN.ends[0] and len(calls) > 1
                             or not re.search(r"\bawait\s+$", view[view.rfind("\n", 0, done[0].start()) + 1:done[0].start()])):
            continue
        first = view.rfind("\n", 0, calls[0].start()) + 1
        last = max(u.end() for u in uses)
        block = view[first:view.find("\n", last) if "\n" in view[last:] else len(view)]
        if any(ln.strip() and len(ln) - len(ln.lstrip()) < len(indent) for ln in block.split("\n")):
            continue  # the node's uses leave the block the first interpolation is in
        tween = next((n for n in ("tween", "created_tween")
                      if n not in declared and not re.search(rf"(?<![\w.$%]){n}\b", masked)), None)
        if tween is None:
            continue
        edits: list[tuple[int, int, str]] = []
        for c in calls:
            close = close_paren(masked, c.end() - 1)
            if close < 0 or masked[close:masked.find("\n", close) if "\n" in masked[close:] else len(masked)].strip():
                break
            args = split_args(code[c.end():close - 1], masked[c.end():close - 1])
            new = _tweener(c.group(3), args, tween)
            if new is None:
                break
            edits.append((c.start() + len(indent), close, new))
        else:
            for u in starts:
                line_start = view.rfind("\n", 0, u.start()) + 1
                line_end = view.find("\n", u.end())
                line_end = len(view) if line_end < 0 else line_end
                if view[line_start:u.start()].strip() or not re.fullmatch(r"\s*\(\s*\)\s*", view[u.end():line_end]):
                    break
                edits.append((line_start if line_end < len(view) else line_start - 1, line_end + 1, ""))
            else:
                edits += [(u.start(), u.end(), f"{tween}.{_TWEEN.finished}") for u in done]
                parallel = ".set_parallel(true)" if len(calls) > 1 else ""
                edits.append((first, first, f"{indent}var {tween} := create_tween(){parallel}\n"))
                for a, b, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
                    code = code[:a] + new + code[b:]
                return _rewrite_tween_groups(code, declared)  # the next node's group, on the new text
    return code


def _rewrite_tween(code: str) -> str:
    """Tween node `interpolate_property(obj, prop, from, to, t[, trans, ease, delay])` -> `create_tween().tween_property()`."""
    done = []
    def build(m, args, orig):
        new = _tweener("interpolate_property", args, "create_tween()")  # each call its own Tween, run at once
        if new is not None:
            done.append(m.group(1))
        return new
    view_rx = re.compile(r"((?:\$[\w/]+|%\w+|[A-Za-z_]\w*)\s*\.\s*)?interpolate_property\s*\(")
    # receivers like `$Tween` are blanked in the masked text, so locate them on the comment-free text
    lexed = lex(code)
    masked = lexed.masked
    out, last = [], 0
    for m in view_rx.finditer(lexed.no_comments):
        if masked[m.end() - 1] != "(" or m.start() < last:
            continue
        close = close_paren(masked, m.end() - 1)
        if close < 0:
            continue
        args = split_args(code[m.end() : close - 1], masked[m.end() : close - 1])
        repl = build(m, args, code[m.start() : close])
        if repl is None:
            continue
        out += [code[last : m.start()], repl]
        last = close
    out.append(code[last:])
    code = "".join(out)
    for receiver in {r.rstrip(". \t") for r in done if r}:  # the Tween node's start(): tweens now start by themselves
        code = re.sub(rf"^[ \t]*{re.escape(receiver)}\s*\.\s*start\(\s*\)[ \t]*\n?", "", code, flags=re.M)
    return code


_OS_WINDOW = changes.moved("os_window")
_OS_WINDOW_PROPS = {p.old: (p.get, p.set) for p in changes.syntax().os_window_properties}
"""OS window property -> (the DisplayServer call that reads it, the one that writes it: `{}` is the value)."""
_OS_WINDOW_METHODS = changes.renamed(rule="os_window")


def _rewrite_os_window(code: str) -> str:
    """OS window/screen properties and methods -> their DisplayServer calls."""
    old, new = _OS_WINDOW.cls, _OS_WINDOW.to

    def assign(m, orig):
        return f"{m.group(1)}{new}." + _OS_WINDOW_PROPS[m.group(2)][1].format(m.group(3).strip())
    props = changes.alternation(_OS_WINDOW_PROPS)
    code = _sub_in_code(code, re.compile(rf"^(\s*){old}\s*\.\s*({props})\s*=(?!=)([^\n]+)$", re.M), assign,
                        keep_strings=True)
    code = _sub_in_code(code, re.compile(rf"\b{old}\s*\.\s*({props})\b(?!\s*=[^=])"),
                        lambda m, o: f"{new}." + _OS_WINDOW_PROPS[m.group(1)][0])
    methods = changes.alternation(_OS_WINDOW_METHODS)
    return _sub_in_code(code, re.compile(rf"\b{old}\s*\.\s*({methods})\s*\("),
                        lambda m, o: f"{_OS_WINDOW_METHODS[m.group(1)]}(")


def _setget(m: re.Match[str], orig: str) -> str:
    setter, getter = m.group(3), m.group(4)
    parts = ([f"set = {setter}"] if setter else []) + ([f"get = {getter}"] if getter else [])
    if not parts:
        raise _NotMechanical("empty setget")
    # up to the `setget` keyword the masked view found (not a " setget" in a string), the node path (`$Box`, blank
    # in the masked view) included
    keyword = m.string.rfind("setget", m.start(), m.start(3) if m.group(3) else m.end())
    declaration = orig[m.start(2) - m.start() : keyword - m.start()].rstrip()
    rest = orig[max(m.end(3), m.end(4) if m.group(4) else 0) - m.start():].strip()
    comment = f"  {rest}" if rest.startswith("#") else ""  # the line's comment (blanked in the masked view) stays
    return f"{m.group(1)}{declaration}: {', '.join(parts)}{comment}"


_FILE_CLASSES = changes.renamed(rule="file_class", kind="class")
"""`File` -> `FileAccess`, `Directory` -> `DirAccess` (opened by a static call in Godot 4)."""
_FILE_NEW = re.compile(r"^([ \t]*)var\s+([A-Za-z_]\w*)\s*(?::\s*\w*\s*)?=\s*("
                       + changes.alternation(_FILE_CLASSES) + r")\s*\.\s*new\(\s*\)[ \t]*$", re.M)
_FILE_MEMBERS = {cls: changes.renamed(rule="file_class", cls=cls) for cls in _FILE_CLASSES}
"""`File.READ` -> `FileAccess.READ`: the members of the Godot 3 classes, by class."""


_FILE_OPENERS = frozenset(changes.syntax().file_open_methods)
_FILE_STATICS = changes.syntax().file_statics
_CONTINUES = re.compile(r"(?:[\\(\[{,]|\band|\bor|[-+*/%<>=!&|^])[ \t]*$")
"""A line that does not end its statement: the next line is not a statement's first line."""


def _rewrite_file_new(code: str) -> str:
    """`File`/`Directory` objects -> FileAccess/DirAccess, which Godot 4 opens by a static call.

    `var f = File.new()` + `f.open(p, File.READ)` -> `var f = FileAccess.open(p, FileAccess.READ)` (one
    statement when nothing stands between them, else `var f: FileAccess` and `f = FileAccess.open(...)`); an open
    whose error code is read (`var err = f.open(...)`, `if f.open(...) != OK:`) -> `f = FileAccess.open(...)`
    before that statement and `FileAccess.get_open_error()` in the call's place; on one never opened,
    `dir.dir_exists(p)` -> `DirAccess.dir_exists_absolute(p)` and the other statics of `file_statics`;
    `dir.list_dir_begin(true, true)` -> `dir.list_dir_begin()` (Godot 4 skips `.`/`..` and hidden entries unless
    `include_navigational`/`include_hidden` say otherwise).
    """
    masked = lex(code).masked
    for m in list(_FILE_NEW.finditer(masked))[::-1]:
        indent, name, cls = m.group(1), m.group(2), m.group(3)
        new_cls = _FILE_CLASSES[cls]
        rest = masked[m.end():]
        call_rx = re.compile(rf"(?<![\w.$%]){re.escape(name)}\s*\.\s*(\w+)\s*\(")
        calls = list(call_rx.finditer(rest))
        opens = [c for c in calls if c.group(1) in _FILE_OPENERS]
        if not opens and not indent and not calls:  # a member opened in another function: typed, opened there
            code = code[:m.start()] + f"var {name}: {new_cls}" + code[m.end():]
            masked = lex(code).masked
            continue
        if not opens:  # never opened: every use is one of Godot 4's static calls
            if len(re.findall(rf"(?<![\w.$%]){re.escape(name)}\b", rest)) != len(calls) \
                    or any((cls, c.group(1)) not in _FILE_STATICS for c in calls):
                raise _NotMechanical(f"{cls} used without open() beyond its static calls")
            for c in calls[::-1]:
                at = m.end() + c.start()
                code = code[:at] + _FILE_STATICS[(cls, c.group(1))] + code[m.end() + c.end() - 1:]
            drop = m.end() + (code[m.end():m.end() + 1] == "\n")
            code = code[:m.start()] + code[drop:]
            masked = lex(code).masked
            continue
        if len(opens) > 1:
            raise _NotMechanical(f"{cls} opened twice")
        o = opens[0]
        statics = [c for c in calls if c.start() < o.start() or cls == "File" and c.group(1) == "file_exists"]
        for c in statics[::-1]:
            if (cls, c.group(1)) not in _FILE_STATICS:  # before the open, only a static call has an object to run on
                raise _NotMechanical(f"{cls}.{c.group(1)}() before open()")
            code = code[:m.end() + c.start()] + _FILE_STATICS[(cls, c.group(1))] + code[m.end() + c.end() - 1:]
        if statics:
            masked = lex(code).masked
            o = next(c for c in call_rx.finditer(masked[m.end():]) if c.group(1) in _FILE_OPENERS)
        at, open_paren = m.end() + o.start(), m.end() + o.end() - 1
        close = close_paren(masked, open_paren)
        if close < 0:
            raise _NotMechanical(f"{cls}.open() not closed")
        line_start = masked.rfind("\n", 0, at) + 1
        line_end = masked.find("\n", close)
        line_end = len(masked) if line_end < 0 else line_end
        stmt_indent = re.match(r"[ \t]*", masked[line_start:]).group(0)
        opener = f"{new_cls}.{o.group(1)}({code[open_paren + 1:close - 1]})"
        head, tail = masked[line_start:at].strip(), masked[close:line_end].strip()
        before = masked[:line_start].rstrip("\n").rsplit("\n", 1)[-1]
        if _CONTINUES.search(before) or "\n" in masked[at:close] and (head or tail):
            raise _NotMechanical(f"{cls}.open() inside a statement that spans lines")
        adjacent = not masked[m.end():line_start].strip() and stmt_indent == indent
        declaration = f"{indent}var {name}: {new_cls}"
        if not head and not tail:  # the open is a statement of its own
            if adjacent:
                code = code[:m.start()] + f"{indent}var {name} = {opener}" + code[line_end:]
            else:
                code = code[:m.start()] + declaration + code[m.end():line_start] + f"{stmt_indent}{name} = {opener}" \
                    + code[line_end:]
        elif re.match(r"(?:elif|while|else|for|match)\b", head):
            raise _NotMechanical(f"{cls}.open() in a condition Godot 4 cannot open before")
        elif adjacent:  # its error code is read: open first, read the error of that open
            code = (code[:m.start()] + f"{indent}var {name} = {opener}" + code[m.end():at]
                    + f"{new_cls}.get_open_error()" + code[close:])
        else:
            code = (code[:m.start()] + declaration + code[m.end():line_start] + f"{stmt_indent}{name} = {opener}\n"
                    + code[line_start:at] + f"{new_cls}.get_open_error()" + code[close:])
        masked = lex(code).masked
        code = _list_dir_begin(code, name)
        masked = lex(code).masked
    if re.search(rf"\b({changes.alternation(_FILE_CLASSES)})\s*\.\s*new\s*\(", lex(code).masked):
        raise _NotMechanical("File/Directory.new() not declared in this code")  # 4.x opens statically
    for cls, members in _FILE_MEMBERS.items():
        if members:
            code = _sub_in_code(code, re.compile(rf"\b{cls}\s*\.\s*({changes.alternation(members)})\b"),
                                lambda m, o, members=members: members[m.group(1)])
    return code


_JSON = changes.syntax().json_parse
_JSON_PARSE = re.compile(rf"(?<![\w.$%]){_JSON.cls}\s*\.\s*{_JSON.parse}\s*\(")


def _rewrite_json_parse(code: str, taken: set[str] = frozenset()) -> str:
    """`JSON.parse(t).result` -> `JSON.parse_string(t)`; `var r = JSON.parse(t)` read through `r.result`,
    `r.error`, `r.error_string`, `r.error_line` -> `var r = JSON.new()`, `var r_error = r.parse(t)` and `r.data`,
    `r_error`, `r.get_error_message()`, `r.get_error_line()` (Godot 4's parse() returns the error)."""
    masked = lex(code).masked
    for m in list(_JSON_PARSE.finditer(masked))[::-1]:
        close = close_paren(masked, m.end() - 1)
        if close < 0:
            continue
        result = re.compile(r"\s*\.\s*result\b").match(masked, close)
        if result:
            code = code[:m.start()] + f"{_JSON.cls}.{_JSON.parse_string}" + code[m.end() - 1:close] + code[result.end():]
            masked = lex(code).masked
            continue
        line_start = masked.rfind("\n", 0, m.start()) + 1
        decl = re.compile(r"([ \t]*)var[ \t]+([A-Za-z_]\w*)[ \t]*(?::[ \t]*\w*[ \t]*)?=[ \t]*$").match(
            masked[:m.start()], line_start)
        line_end = masked.find("\n", close)
        line_end = len(masked) if line_end < 0 else line_end
        if decl is None or masked[close:line_end].strip():
            raise _NotMechanical("JSON.parse() result not held by a variable of its own")
        indent, name = decl.group(1), decl.group(2)
        rest = masked[line_end:]
        uses = list(re.finditer(rf"(?<![\w.$%]){re.escape(name)}\b(\s*\.\s*(\w+))?", rest))
        if any(u.group(2) not in (*_JSON.members, _JSON.error) for u in uses):
            raise _NotMechanical(f"JSON.parse() result {name} used beyond its members")
        error = f"{name}_{_JSON.error}"
        if error in taken or re.search(rf"(?<![\w.$%]){error}\b", masked):
            raise _NotMechanical(f"JSON.parse() error name {error} taken")
        tail = code[line_end:]
        for u in uses[::-1]:
            member = u.group(2)
            new = error if member == _JSON.error else f"{name}.{_JSON.members[member]}"
            tail = tail[:u.start()] + new + tail[u.end():]
        reads_error = any(u.group(2) == _JSON.error for u in uses)
        parse = f"{name}.{_JSON.parse}{code[m.end() - 1:close]}"
        code = (code[:line_start] + f"{indent}var {name} = {_JSON.cls}.new()\n{indent}"
                + (f"var {error} = {parse}" if reads_error else parse) + tail)
        masked = lex(code).masked
    return code


_RIGID = changes.syntax().rigid_body_modes
_RIGID_MODE = re.compile(r"^([ \t]*)((?:[A-Za-z_$][\w$/.]*\.)?)(?:(mode[ \t]*=[ \t]*)|set_mode\([ \t]*)(?:("
                         + changes.alternation(_RIGID["classes"]) + r")\.)?(" + changes.alternation(_RIGID["modes"])
                         + r")[ \t]*(\)?)[ \t]*$", re.M)


def _rewrite_rigid_body_mode(code: str) -> str:
    """`body.mode = RigidBody2D.MODE_STATIC` -> `body.freeze_mode = RigidBody2D.FREEZE_MODE_STATIC` and
    `body.freeze = true` (Godot 4 freezes a body instead of switching its mode); `MODE_RIGID` -> `freeze = false`."""
    masked = lex(code).masked
    for m in list(_RIGID_MODE.finditer(masked))[::-1]:
        indent, _, assigned, cls, mode, closed = m.groups()
        if bool(assigned) == bool(closed):
            continue  # `mode = X)` or `set_mode(X`: not one statement
        prefix = f"{_RIGID['classes'][cls]}." if cls else ""
        lines = [re.sub(r"\b(FREEZE_MODE_\w+)", rf"{prefix}\1", p) for p in _RIGID["modes"][mode]]
        code = code[:m.start()] + "\n".join(f"{indent}{code[m.start(2):m.end(2)]}{p}" for p in lines) + code[m.end():]
    return code


RESHAPED_CALLS = frozenset({"list_dir_begin"})
"""Calls whose Godot 4 arguments the rewrite itself writes (a signature change the judge may let through)."""


def _list_dir_begin(code: str, name: str) -> str:
    """`d.list_dir_begin(skip_navigational, skip_hidden)` -> Godot 4's `list_dir_begin()`, whose defaults skip
    both; what Godot 3 kept (its defaults keep both) becomes `include_navigational`/`include_hidden`."""
    def build(m, args, orig):
        if len(args) > 2:
            return None
        skip_nav, skip_hidden = (list(args) + ["false", "false"])[:2]
        line_start = code.rfind("\n", 0, m.start()) + 1
        own = not lex(code[line_start:m.start()]).masked.strip()
        flags = (("include_navigational", skip_nav), ("include_hidden", skip_hidden))
        sets = [f"{name}.{prop} = {_negated(skip)}" for prop, skip in flags if skip != "true"]
        if sets and not own:
            raise _NotMechanical("list_dir_begin(...) inside a statement")
        pad = code[line_start:m.start()]
        return "".join(f"{s}\n{pad}" for s in sets) + f"{name}.list_dir_begin()"
    return _rewrite_calls(code, re.compile(rf"(?<![\w.$%]){re.escape(name)}\s*\.\s*list_dir_begin\s*\("), build)


def _negated(flag: str) -> str:
    return {"true": "false", "false": "true"}.get(flag, f"not ({flag})")


REFUSAL: ContextVar[str] = ContextVar("rewrite_refusal", default="")
"""Why the last `mechanical_rewrite` in this context returned None (the bench's TODO census reads it)."""
_WORD_AT = re.compile(r"[\"']?\w*")


def _refuse(reason: str) -> None:
    REFUSAL.set(reason)
    return None


def rename_in(fragment: str, old: str, new: str) -> str | None:
    """`fragment` with the identifier `old` (code positions only, not after `$`/`%`) renamed to `new`."""
    out = _sub_in_code(fragment, re.compile(rf"(?<![\w$%]){re.escape(old)}\b"), lambda m, o: new)
    return out if out != fragment else None


_SIGNAL_USE = r"(?=\s*\.\s*(?:connect|disconnect|emit|is_connected)\s*\()"


def rename_signals(code: str, signals: Mapping[str, str]) -> str:
    """`hide.connect(f)` -> `hidden.connect(f)`: signal renames apply to signal uses only, never `$Label.hide()`."""
    for old, new in signals.items():
        code = _sub_in_code(code, re.compile(rf"(?<![\w$%]){re.escape(old)}\b{_SIGNAL_USE}"), lambda m, o, n=new: n)
        code = _sub_in_code(code, re.compile(rf"(\bawait\b[^\n]*?\.\s*){re.escape(old)}\b(?!\s*\()"),
                            lambda m, o, n=new: o[: len(m.group(1))] + n)  # `await obj.hide` (from `yield`)
    return code


def syntax_edits(code: str) -> str:
    """`code` with the engine's grammar rules applied one by one (annotations, `super.f()`, `await`, `set =`/
    `get =`, ...), for a chunk left to a person: a rule that needs judgement there leaves its lines as they are."""
    for step in _grammar_steps():
        try:
            code = step(code)
        except _NotMechanical:
            continue
    return code


def rewrite_fragment(fragment: str, declared: set[str] = frozenset()) -> str | None:
    """The Godot 4 form of one statement or call, on one line ('; '-joined), or None if not mechanical."""
    try:
        new = _rewrite_lines(fragment, with_setget=True, declared=declared)
    except _NotMechanical:
        return None
    if new == fragment:
        return None
    masked = lex(new).masked
    if any(r.version == "godot3" and next(rule_matches(r, masked), None) for r in GDSCRIPT_RULES):
        return None
    return "; ".join(part.strip() for part in new.split("\n") if part.strip())


def mechanical_rewrite(code: str, renames: dict[str, str], declared: set[str],
                       placed: dict[int, str] | None = None,
                       signals: Mapping[str, str] | None = None,
                       edits: Sequence[tuple[int, int, str]] = (), uses: Sequence = (),
                       gone: set[str] = frozenset(), gone_classes: set[str] = frozenset(),
                       taken: set[str] = frozenset()) -> str | None:
    """The Godot 4 form of `code`, or None when the migration is not purely mechanical.

    `placed` renames single uses: the offset of a member's name (a use on a resolved receiver,
    `items.remove(0)` on an Array, or an override, `func get_drag_data(p)`), or of the opening quote
    of a by-name use (`call_deferred("update")`), maps to its new member name; an empty name (removed,
    moved to another class, a receiver not known) makes the rewrite not mechanical, and so does a use
    of a renamed member's old name left behind. `signals` are signal renames (`hide` -> `hidden`),
    applied to the rewritten signal uses only. `edits` are typed edits (start, end, replacement) of `code`
    (`var s := max(a, b)` -> `var s: float = max(a, b)`), applied with the placed renames, last first.
    `gone`/`gone_classes`: removed members/classes no use of which may stay; `taken`: the script's names, which
    a new local (`var tween := create_tween()`) must not shadow.
    """
    source = code
    replaced: set[str] = set()  # members renamed in place: none of their uses may stay behind
    changes = [(at, at, member) for at, member in (placed or {}).items()] + [(a, b, r) for a, b, r in edits]
    changes += [(u.begin, u.end, u) for u in uses]  # `uses` (TemplateUse): formed last, on the renamed receiver
    spans = [(a, b) for a, b, _ in changes if b > a]
    if any(a1 < b2 and a2 < b1 for i, (a1, b1) in enumerate(spans) for a2, b2 in spans[i + 1:]):
        return _refuse("two edits of one expression")
    shifts: list[tuple[int, int]] = []  # (offset, length change) of each change made so far (later offsets first)
    for at, end, member in sorted(changes, key=lambda c: (c[0], isinstance(c[2], str)), reverse=True):
        if not isinstance(member, str):  # a TemplateUse: the use again, with the changes inside it applied
            inside = sum(d for o, d in shifts if at <= o < end)
            before = sum(d for o, d in shifts if at <= o < member.start)
            edit = template_edit(member.api, code, member.start + before)
            if edit is None or edit[0] != at or edit[1] != end + inside:
                return _refuse(f"no template form for {member.api}")
            code = code[:at] + edit[2] + code[edit[1]:]
            shifts.append((at, len(edit[2]) - (edit[1] - at)))
            continue
        if end > at:
            code = code[:at] + member + code[end:]
            shifts.append((at, len(member) - (end - at)))
            continue
        if not member:
            return _refuse(f"no Godot 4 member for {_WORD_AT.match(code, at).group(0)!r}")
        if code[at] in "\"'":
            end = code.index(code[at], at + 1)
            shifts.append((at, len(member) - (end - at - 1)))
            code = code[: at + 1] + member + code[end:]
            continue
        name = re.match(r"\w+", code[at:])
        if name is None:
            return _refuse("placed use is not a name")
        if name.group(0) != member:
            replaced.add(name.group(0))
        shifts.append((at, len(member) - name.end()))
        code = code[:at] + member + code[at + name.end():]
    try:
        new = _rewrite_lines(code, declared=declared, taken=taken)
    except _NotMechanical as e:
        return _refuse(str(e) or "a line rule is not mechanical")
    new = rename_signals(new, signals or {})
    for old, target in renames.items():
        if "." in old:
            owner, member = old.rsplit(".", 1)
            pattern = re.compile(rf"\b{re.escape(owner)}\s*\.\s*{re.escape(member)}\b")
        elif old in declared:
            if old[:1].isupper():
                continue
            pattern = re.compile(rf"\.\s*{re.escape(old)}\b")  # `var instance = s.instance()`: the member only
        else:
            pattern = re.compile(rf"(?<![\w$%]){re.escape(old)}\b")
        if not target or not re.fullmatch(r"[A-Za-z_][\w.]*", target):
            return _refuse(f"{old} has no Godot 4 name")  # removed or described API: needs a human
        new = _sub_in_code(new, pattern, lambda m, o, t=target: ("." if o.startswith(".") else "") + t)
    if new == source:
        return _refuse("nothing to rewrite")
    masked = lex(new).masked
    left = next((r.name for r in GDSCRIPT_RULES if r.version == "godot3" and next(rule_matches(r, masked), None)), None)
    if left:
        return _refuse(f"Godot 3 syntax left: {left}")
    for old in renames:
        if old not in declared and re.search(rf"(?<![\w$%.]){re.escape(old.rsplit('.', 1)[-1])}\s*\(", masked) \
                and old.rsplit(".", 1)[-1] != (renames[old] or "").rsplit(".", 1)[-1]:
            return _refuse(f"a call of {old} left")
    if any(re.search(rf"\.\s*{re.escape(o)}\b|(?<![\w$%.]){re.escape(o)}\s*\(", masked) for o in replaced):
        return _refuse("a use of a renamed member left")  # receiver unknown, past the item cap: half-migrated
    left = next((o for o in sorted(gone) if re.search(rf"(?<![\w$%@]){re.escape(o)}\b", masked)), None) or next(
        (c for c in sorted(gone_classes) if re.search(rf"(?<![\w.$%]){re.escape(c)}\b", masked)), None)
    if left:
        return _refuse(f"a removed member left: {left}")  # `tween.start()` that no rewrite took away
    return new
