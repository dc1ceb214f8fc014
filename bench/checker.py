"""The GDScript 4 checker on Godot 4 projects by others: false errors per 1,000 lines, mutations caught, speed.

The issue's bar: "the checker reports <= 0.2 false errors per 1,000 lines on Godot 4 projects by others, and
catches >= 95% of the mutations". Each DIR holds project folders (DIR/<project>/**, a sources.tsv beside them);
a project is every .gd, .tscn, .tres and project.godot under its folder, the `.godot/` cache left out.

1. False errors. `agent.gdscript.checker.check_files` on each whole project: lines of script, errors, warnings,
   diagnostics by rule, seconds. An error is false unless bench/checker_leftovers.tsv lists it (project, path,
   line, rule, why): a hand-checked Godot 3 leftover or bug that Godot 4 really fails on or runs wrong (a member
   the 4.x class lacks on a value whose type is certain, a call to what does not exist). Reported: errors per
   1,000 lines before and after the listed ones are taken out, every remaining false error, and listed rows the
   checker no longer reports (the list is stale there).
2. Mutations. Scripts the checker reports no error on (and no `syntax` warning: lines it says it did not check)
   get one mutation each; the checker then runs on the mutated script in its project (`Checker.check_text`).
   A mutation is caught when an error not present before sits on, or within 2 lines of, a line where Godot 4
   fails: the mutated line, and for a deleted declaration the lines that use the name. Sites are found on
   the script model's tree-sitter tree (`ScriptModel.tree`), each kind only where it makes sense:

   - `local-var-deleted`: a local `var` declared once in its function and used after it (the line becomes `pass`);
   - `member-deleted`: a one-line member `var`/`const` no base declares, used bare in the script's functions;
   - `godot3-member`: `.new_name` back to the Godot 3 name of the converter's enabled member renames
     (agent/data/changes/member_renames.json) that no 4.x class and no project script defines; a method on
     any receiver, a property only on a receiver the typer types as the rename's class (or bare in a script
     of that class);
   - `godot3-class`: a class back to its Godot 3 name (renames_3_to_4.json `class_renames`, enabled, a name
     4.x lacks) in `extends`, a type annotation or `X.new()`;
   - `base-property-redeclared`: `var <prop>` appended, <prop> a property of the script's engine base (4.x);
   - `arity-engine-method`: a call of an inherited engine method (bare or on `self`) with one fixed signature,
     given one argument fewer (at its minimum) or one more (at its maximum);
   - `arity-own-function`: the same on a call of the script's own function;
   - `await-dropped`: `await` dropped before a call of the script's own coroutine whose value is used;
   - `emit-on-method`: `sig.emit(...)` on a function of the script instead of the signal;
   - `emit-signal-unknown`: `emit_signal("sig")` -> `emit_signal("no_such_signal_x")`;
   - `super-missing`: `super.f()` -> `super.f_does_not_exist()`;
   - `g3-onready`, `g3-export`, `g3-yield`, `g3-var-param`, `g3-parent-call`: Godot 3 grammar back
     (`onready var`, `export var`, `yield(x, "s")` for `await x.s`, `func f(var a`, `.f(` for `super.f(`);
   - `godot3-global-function`: a renamed global function back (`deg_to_rad(` -> `deg2rad(`, ...).

   Sites are drawn per kind with `--seed` (one per script first, so big projects do not fill a kind alone),
   `--per-kind` of each. Reported per kind: tried, caught, share, errors only elsewhere in the script, and
   3 uncaught examples (path:line and the mutated line) for the engineers improving the checker.
3. Speed: checker seconds per 1,000 lines of script (step 1, whole projects; step 2, one script in context).

    GODOT_RAG_HOME=.godot_rag_home .venv/bin/python bench/checker.py /work/dev/g4 /work/dev/g4b
        [--seed 7] [--per-kind 40] [--leftovers bench/checker_leftovers.tsv] [--out F.json]

The knowledge base is the one of GODOT_RAG_HOME (its API index only).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tree_sitter import Node  # noqa: E402

from bench.portsdata import dev_sources  # noqa: E402
from agent import changes  # noqa: E402
from agent.apiindex import V3, V4, ApiIndex, read_index  # noqa: E402
from agent.gdscript.checker import Checker, check_files  # noqa: E402
from agent.gdscript.model import FunctionModel  # noqa: E402
from agent.judge.project import build_project_context  # noqa: E402
from agent.settings import Settings, default_renames_file  # noqa: E402
from agent.storage.db import make_pool  # noqa: E402

LEFTOVERS = Path(__file__).with_name("checker_leftovers.tsv")
KINDS = ("local-var-deleted", "member-deleted", "godot3-member", "godot3-class", "base-property-redeclared",
         "arity-engine-method", "arity-own-function", "await-dropped", "emit-on-method", "emit-signal-unknown",
         "super-missing", "g3-onready", "g3-export", "g3-yield", "g3-var-param", "g3-parent-call",
         "godot3-global-function")
NEAR = 2
"""An error counts for a mutation on its line or this many lines either side."""
_GLOBALS = ("@GlobalScope", "@GDScript")


# ---------------------------------------------------------------- projects


def project_files(project: Path) -> dict[str, str]:
    """Every .gd, .tscn, .tres and project.godot of the project (path relative to it), `.godot/` left out."""
    out = {}
    for p in sorted(project.rglob("*")):
        rel = p.relative_to(project)
        if p.is_file() and ".godot" not in rel.parts[:-1] and (p.suffix in (".gd", ".tscn", ".tres")
                                                               or p.name == "project.godot"):
            out[rel.as_posix()] = p.read_text(encoding="utf-8", errors="replace")
    return out


def projects_of(dirs: list[Path]) -> list[Path]:
    return sorted((p for d in dirs for p in d.iterdir() if p.is_dir()), key=lambda p: p.name)


def project_checker(files: dict[str, str], api: ApiIndex) -> Checker:
    """The checker `check_files` builds for a project, kept to check mutated scripts in the same context."""
    ctx = build_project_context(files, api)
    assert ctx.scripts is not None
    return Checker(ctx.scripts, api, autoloads=ctx.autoloads)


def read_leftovers(path: Path) -> dict[tuple[str, str, int, str], str]:
    """(project, path, line, rule) -> why, for each hand-checked real error."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as f:
        return {(r["project"], r["path"], int(r["line"]), r["rule"]): r["why"]
                for r in csv.DictReader(f, delimiter="\t")}


# ---------------------------------------------------------------- 1. false errors


def false_errors(projects: list[Path], api: ApiIndex, leftovers: dict) -> tuple[dict, dict[str, list[str]]]:
    """Per project: counts, seconds, the errors listed as real and the false ones; and its clean scripts."""
    results, clean = {}, {}
    for project in projects:
        files = project_files(project)
        t0 = time.perf_counter()
        report = check_files(files, api)
        seconds = time.perf_counter() - t0
        errors = [d for f in report.files for d in f.diagnostics if d.severity == "error"]
        real = [d for d in errors if (project.name, d.path, d.line, d.rule) in leftovers]
        false = [d for d in errors if (project.name, d.path, d.line, d.rule) not in leftovers]
        reported = {(project.name, d.path, d.line, d.rule) for d in errors}
        results[project.name] = {
            "lines": report.lines, "scripts": len(report.files), "errors": report.errors,
            "warnings": report.warnings, "real": len(real), "false": len(false), "seconds": seconds,
            "by_rule": report.by_rule,
            "false_errors": [f"{d.path}:{d.line} [{d.rule}] {d.message}" for d in false],
            "stale_leftovers": [f"{k[1]}:{k[2]} [{k[3]}]" for k in leftovers if k[0] == project.name
                                and k not in reported]}
        clean[project.name] = [f.path for f in report.files
                               if f.errors == 0 and not any(d.rule == "syntax" for d in f.diagnostics)]
        r = results[project.name]
        print(f"{project.name:50s} {r['lines']:7d} lines {r['errors']:3d} errors ({r['real']} real, "
              f"{r['false']} false) {r['warnings']:3d} warnings {1000 * seconds / max(1, r['lines']):.3f} s/1k",
              flush=True)
    return results, clean


# ---------------------------------------------------------------- 2. mutation sites


@dataclass(frozen=True)
class Mutation:
    kind: str
    project: str
    path: str
    edits: tuple[tuple[int, int, str], ...]
    """Byte ranges of the script and their replacements (non-overlapping)."""
    line: int
    """1-based line of the mutation (lines keep their numbers: a deleted line stays, emptied)."""
    expect: tuple[int, ...]
    """Lines where Godot 4 fails: the mutated line, and where a deleted name is used."""
    note: str = ""

    def apply(self, text: str) -> str:
        data = text.encode()
        for start, end, new in sorted(self.edits, reverse=True):
            data = data[:start] + new.encode() + data[end:]
        return data.decode("utf-8", "replace")


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _walk(node: Node, skip: tuple[str, ...] = ()) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed([c for c in n.children if c.type not in skip]))


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _args(node: Node | None) -> list[Node]:
    return [c for c in node.named_children if c.type not in ("comment", "line_continuation")] if node else []


def _bare(node: Node) -> bool:
    """An identifier that names something itself (not the member right of a `.`)."""
    prev = node.prev_sibling
    return node.type == "identifier" and (prev is None or prev.type != ".")


def _callee(node: Node) -> tuple[str, Node, Node | None] | None:
    """A call's function name, its name node and its arguments: `f(...)` or `self.f(...)`."""
    if node.type == "call" and node.children and node.children[0].type == "identifier":
        return _text(node.children[0]), node.children[0], node.child_by_field_name("arguments") or next(
            (c for c in node.children if c.type == "arguments"), None)
    if node.type == "attribute" and len(node.children) == 3 and _text(node.children[0]) == "self" \
            and node.children[2].type == "attribute_call":
        part = node.children[2]
        return _text(part.children[0]), part.children[0], next((c for c in part.children if c.type == "arguments"),
                                                               None)
    return None


class Sites:
    """Where each kind of mutation makes sense in one project's clean scripts."""

    def __init__(self, project: str, checker: Checker, api: ApiIndex, rng: random.Random, tables: dict) -> None:
        self.project = project
        self.c = checker
        self.api = api
        self.rng = rng
        self.t = tables
        self.members = checker.project_members()

    def of(self, path: str) -> list[Mutation]:
        """Every mutation site of one script, in the order of the kinds' finders."""
        model = self.c.scripts.model(path)
        if model is None or model.tree is None:
            return []
        self.path, self.model = path, model
        self.src = model.source
        self.root = model.tree.root_node  # type: ignore[attr-defined]
        base = self.c.typer.engine_base(path)
        base = "RefCounted" if base == "Reference" else base
        self.engine = base if base and self.api.has_class(V4, base) else ""
        self.funcs = [(n, f) for n in self.root.children if n.type == "function_definition"
                      and (f := model.function_at(_line(n))) is not None]
        self._nodes: list[tuple[Node, FunctionModel]] | None = None
        self._uses: dict[int, dict[str, list[tuple[int, int]]]] = {}
        out: list[Mutation] = []
        for finder in (self.local_var_deleted, self.member_deleted, self.godot3_member, self.godot3_class,
                       self.base_property, self.arity, self.await_dropped, self.emits, self.supers,
                       self.grammar, self.global_functions):
            out += finder()
        return out

    # ------------------------------------------------------------ helpers

    def m(self, kind: str, edits: list[tuple[int, int, str]], node: Node | int, expect: list[int] | None = None,
          note: str = "") -> Mutation:
        line = node if isinstance(node, int) else _line(node)
        return Mutation(kind, self.project, self.path, tuple(edits), line, tuple(sorted({line, *(expect or [])})),
                        note)

    def whole_line(self, node: Node) -> tuple[int, int] | None:
        """The byte range of the statement's line without its indentation, when the statement is all of it."""
        if node.start_point[0] != node.end_point[0]:
            return None
        start = self.src.rfind(b"\n", 0, node.start_byte) + 1
        end = self.src.find(b"\n", node.end_byte)
        end = len(self.src) if end < 0 else end
        before, after = self.src[start:node.start_byte], self.src[node.end_byte:end].strip()
        if before.strip() or (after and not after.startswith(b"#")):
            return None
        return node.start_byte, end

    def shadowed(self, name: str, f: FunctionModel | None) -> bool:
        return f is not None and (name in f.params or name in f.locals or name == f.rest)

    def global_name(self, name: str) -> bool:
        return (any(self.api.lookup(V4, g, name) is not None for g in _GLOBALS) or self.api.has_class(V4, name)
                or name in self.c.autoloads or name in self.c.scripts.class_paths)

    def inherited(self, name: str) -> bool:
        return (bool(self.engine) and self.api.lookup(V4, self.engine, name) is not None) \
            or self.inherited_from_script(name)

    def inherited_from_script(self, name: str) -> bool:
        """Declared by a project script this one extends."""
        found = self.c.typer.declared_by(self.path, name)
        return found is not None and found[0] != self.path

    def in_functions(self) -> list[tuple[Node, FunctionModel]]:
        """Every node inside the script's column-0 functions, with its function (walked once per script)."""
        if self._nodes is None:
            self._nodes = [(n, f) for fn, f in self.funcs for n in _walk(fn)]
        return self._nodes

    def bare_uses(self, fn: Node) -> dict[str, list[tuple[int, int]]]:
        """A function's bare identifiers: name -> (byte offset, line) of each."""
        if fn.start_byte not in self._uses:
            out: dict[str, list[tuple[int, int]]] = defaultdict(list)
            for n in _walk(fn):
                if _bare(n):
                    out[_text(n)].append((n.start_byte, _line(n)))
            self._uses[fn.start_byte] = out
        return self._uses[fn.start_byte]

    # ------------------------------------------------------------ kinds

    def local_var_deleted(self) -> list[Mutation]:
        out = []
        for fn, f in self.funcs:
            body = fn.child_by_field_name("body")
            for st in _walk(body, skip=("lambda",)) if body is not None else ():
                if st.type != "variable_statement":
                    continue
                name = _text(st.child_by_field_name("name"))
                span = self.whole_line(st)
                if (span is None or len(f.locals.get(name, [])) != 1 or name in f.params or name in self.model.members
                        or self.inherited(name) or self.global_name(name)):
                    continue
                uses = sorted({line for at, line in self.bare_uses(fn).get(name, ()) if at > st.end_byte})
                if uses:
                    out.append(self.m("local-var-deleted", [(span[0], span[1], "pass")], st, uses,
                                      f"deleted `{_text(st)}` (used on line {uses[0]})"))
        return out

    def member_deleted(self) -> list[Mutation]:
        out = []
        for st in self.root.children:
            if st.type not in ("variable_statement", "const_statement"):
                continue
            name = _text(st.child_by_field_name("name"))
            span = self.whole_line(st)
            if span is None or self.inherited(name) or self.global_name(name):
                continue
            uses = sorted({line for fn, f in self.funcs if not self.shadowed(name, f)
                           for _, line in self.bare_uses(fn).get(name, ())})
            if uses:
                out.append(self.m("member-deleted", [(st.start_byte, span[1], "")], st, uses,
                                  f"deleted `{_text(st)}` (used on line {uses[0]})"))
        return out

    def _renamed_class(self, cls4: str, rows) -> list:
        """The rows whose classes `cls4` is (a 3.x class name counts by its 4.x successor)."""
        return [r for r in rows if any(self.api.is_a(V4, cls4, self.api.class_renames.get(c, c)) for c in r.classes)]

    def godot3_member(self) -> list[Mutation]:
        out = []
        renames = self.t["members"]
        dots = self.c.typer.dot_types(self.path)
        for n, f in self.in_functions():
            if n.type == "attribute" and _text(n.children[0]) not in ("super",):
                kids = n.children
                for i in range(1, len(kids) - 1, 2):
                    dot, part = kids[i], kids[i + 1]
                    member = part if part.type == "identifier" else (part.children[0] if part.children else part)
                    kind = "method" if part.type == "attribute_call" else "property"
                    rows = [r for r in renames.get((_text(member), kind), ()) if r.old not in self.members]
                    if kind == "property":
                        recv = dots.get(dot.start_byte, (None, ""))[0]
                        ok = recv is not None and recv.known and not recv.guessed and not recv.user and recv.v4
                        rows = self._renamed_class(recv.v4, rows) if ok else []
                    if rows:
                        old = self.rng.choice(sorted({r.old for r in rows}))
                        out.append(self.m("godot3-member", [(member.start_byte, member.end_byte, old)], member))
            elif _bare(n) and self.engine and not self.shadowed(_text(n), f) and _text(n) not in self.model.members:
                name = _text(n)
                call = n.parent is not None and n.parent.type == "call" and n.parent.children[0] == n
                kind = "method" if call else "property"
                rows = [r for r in renames.get((name, kind), ()) if r.old not in self.members]
                rows = self._renamed_class(self.engine, rows) if self.api.lookup(V4, self.engine, name) else []
                if rows and not self.inherited_from_script(name):
                    old = self.rng.choice(sorted({r.old for r in rows}))
                    out.append(self.m("godot3-member", [(n.start_byte, n.end_byte, old)], n))
        return out

    def godot3_class(self) -> list[Mutation]:
        out = []
        olds = self.t["classes"]
        for n in _walk(self.root):
            targets: list[Node] = []
            if n.type == "type":
                targets = [x for x in _walk(n) if x.type == "identifier"]
            elif n.type == "attribute" and len(n.children) >= 3 and n.children[0].type == "identifier" \
                    and n.children[2].type == "attribute_call" and _text(n.children[2].children[0]) == "new":
                targets = [n.children[0]]
            for x in targets:
                old = olds.get(_text(x))
                if old and old not in self.c.scripts.class_paths:
                    out.append(self.m("godot3-class", [(x.start_byte, x.end_byte, old)], x))
        return out

    def base_property(self) -> list[Mutation]:
        if not self.engine:
            return []
        props = sorted({e.member for c in self.api.chain(V4, self.engine) for e in self.api.members_of(V4, c)
                        if e.kind == "property" and e.member.isidentifier() and not e.member.startswith("_")
                        and not self.model.declares(e.member) and not self.inherited_from_script(e.member)})
        if not props:
            return []
        prop = self.rng.choice(props)
        text = self.src.decode("utf-8", "replace")
        lead = "" if text.endswith("\n") else "\n"
        line = text.count("\n") + (1 if lead else 0) + 1
        return [self.m("base-property-redeclared", [(len(self.src), len(self.src), f"{lead}var {prop}\n")], line,
                       note=f"{self.engine}.{prop}")]

    def arity(self) -> list[Mutation]:
        out = []
        own = {f.name: f for f in self.model.functions}
        for n, f in self.in_functions():
            call = _callee(n)
            if call is None:
                continue
            name, name_node, args_node = call
            if args_node is None or self.shadowed(name, f) or any(self.api.lookup(V4, g, name) for g in _GLOBALS):
                continue
            given = _args(args_node)
            if name in own:
                g = own[name]
                if g.rest or name == "_init":
                    continue
                low, high, kind = sum(1 for d in g.params.values() if d.value is None), len(g.params), "own-function"
            elif self.engine and not self.inherited_from_script(name) and name not in self.model.members:
                entries = self.api.all_lookup(V4, self.engine, name, ("method",))
                shapes = {(e.required_args, e.arg_count, e.vararg) for e in entries}
                if len(shapes) != 1 or entries[0].vararg:
                    continue
                low, high, kind = entries[0].required_args, entries[0].arg_count, "engine-method"
            else:
                continue
            if not low <= len(given) <= high:
                continue
            choices = ["add"] * (len(given) == high) + ["drop"] * (len(given) == low and low > 0)
            if not choices:
                continue
            how = self.rng.choice(choices)
            if how == "add":
                at = given[-1].end_byte if given else args_node.children[0].end_byte
                edit = (at, at, ", null" if given else "null")
            elif len(given) == 1:
                edit = (args_node.children[0].end_byte, args_node.children[-1].start_byte, "")
            else:
                edit = (given[-2].end_byte, given[-1].end_byte, "")
            edit_line = self.src[:edit[0]].count(b"\n") + 1
            out.append(self.m(f"arity-{kind}", [edit], name_node, [edit_line],
                              f"{how} an argument ({name} takes {low}..{high}, the call passed {len(given)})"))
        return out

    def _coroutines(self) -> set[str]:
        return {f.name for fn, f in self.funcs if any(x.type == "await_expression" for x in _walk(
            fn.child_by_field_name("body") or fn, skip=("lambda",)))}

    def await_dropped(self) -> list[Mutation]:
        out = []
        coroutines = self._coroutines()
        for n, f in self.in_functions():
            if n.type != "await_expression" or n.parent is None or n.parent.type == "expression_statement":
                continue
            inner = n.named_children[0] if n.named_children else None
            if inner is not None and inner.type == "call" and _text(inner.children[0]) in coroutines \
                    and not self.shadowed(_text(inner.children[0]), f):
                out.append(self.m("await-dropped", [(n.start_byte, inner.start_byte, "")], n))
        return out

    def emits(self) -> list[Mutation]:
        out = []
        signals = {k for k, d in self.model.members.items() if d.kind == "signal"}
        methods = sorted(f.name for f in self.model.functions if f.name != "_init")
        for n, f in self.in_functions():
            if n.type == "attribute" and len(n.children) >= 3 and _text(n.children[0]) in signals \
                    and n.children[2].type == "attribute_call" and _text(n.children[2].children[0]) == "emit" \
                    and methods and not self.shadowed(_text(n.children[0]), f):
                sig = n.children[0]
                out.append(self.m("emit-on-method", [(sig.start_byte, sig.end_byte, self.rng.choice(methods))], sig))
            call = _callee(n)
            if call is not None and call[0] == "emit_signal":
                first = next(iter(_args(call[2])), None)
                if first is not None and first.type == "string":
                    quote = 1 + (_text(first)[:1] in "&^")
                    out.append(self.m("emit-signal-unknown", [(first.start_byte + quote, first.end_byte - 1,
                                                               "no_such_signal_x")], first))
        return out

    def supers(self) -> list[Mutation]:
        out = []
        for n, _ in self.in_functions():
            if n.type == "attribute" and len(n.children) == 3 and _text(n.children[0]) == "super" \
                    and n.children[2].type == "attribute_call":
                name = n.children[2].children[0]
                out.append(self.m("super-missing", [(name.end_byte, name.end_byte, "_does_not_exist")], name))
                out.append(self.m("g3-parent-call", [(n.children[0].start_byte, n.children[0].end_byte, "")], n))
        return out

    def grammar(self) -> list[Mutation]:
        out = []
        for st in self.root.children:
            ann = next((c for c in st.children if c.type == "annotations"), None) \
                if st.type == "variable_statement" else None
            notes = [a for a in ann.children if a.type == "annotation"] if ann is not None else []
            var = next((c for c in st.children if c.type == "var"), None)
            if len(notes) == 1 and var is not None and var.start_point[0] == notes[0].start_point[0] \
                    and len(notes[0].children) == 2:
                word = _text(notes[0].children[1])
                if word in ("onready", "export"):
                    out.append(self.m(f"g3-{word}", [(notes[0].start_byte, notes[0].end_byte, word)], st))
        for n, _ in self.in_functions():
            inner = n.named_children[0] if n.type == "await_expression" and n.named_children else None
            if inner is not None and inner.type == "attribute" and inner.children[-1].type == "identifier" \
                    and len(inner.children) >= 3 and n.start_point[0] == n.end_point[0]:
                recv = self.src[inner.start_byte:inner.children[-2].start_byte].decode("utf-8", "replace")
                out.append(self.m("g3-yield", [(n.start_byte, n.end_byte,
                                                f'yield({recv}, "{_text(inner.children[-1])}")')], n))
        for fn, _ in self.funcs:
            params = [p for p in _args(fn.child_by_field_name("parameters")) if p.type != "variadic_parameter"]
            if params:
                out.append(self.m("g3-var-param", [(params[0].start_byte, params[0].start_byte, "var ")], params[0]))
        return out

    def global_functions(self) -> list[Mutation]:
        out = []
        for n, f in self.in_functions():
            if n.type == "call" and n.children and n.children[0].type == "identifier":
                name = _text(n.children[0])
                old = self.t["functions"].get(name)
                if old and old not in self.members and not self.shadowed(name, f) and name not in self.model.members:
                    out.append(self.m("godot3-global-function", [(n.children[0].start_byte, n.children[0].end_byte,
                                                                  old)], n))
        return out


def rename_tables(api: ApiIndex) -> dict:
    """The converter's renames a mutation puts back: (new, kind) -> member rows, 4.x class -> 3.x name,
    4.x global function -> 3.x name; each only where Godot 4 has no such old name."""
    members: dict[tuple[str, str], list] = defaultdict(list)
    for rows in changes.member_renames().values():
        for r in rows:
            if r.enabled and r.kind in ("method", "property") and "." not in r.new and r.old.isidentifier() \
                    and r.old != r.new and not api.defined_anywhere(V4, r.old):
                members[(r.new, r.kind)].append(r)
    olds: dict[str, list[str]] = {}
    path = default_renames_file()
    for r in json.loads(path.read_text())["tables"]["class_renames"] if path else ():
        if r.get("enabled") and r["old"].isidentifier() and not api.has_class(V4, r["old"]) \
                and api.has_class(V4, r["new"]):
            olds.setdefault(r["new"], []).append(r["old"])
    # a 4.x class some Godot 3 classes were merged into (Node3D: Spatial, ARVRInterfaceGDNative, ...) goes back
    # to the one 3.4 documents, and the shortest of those
    classes = {new: min(names, key=lambda o: (not api.has_class(V3, o), len(o), o)) for new, names in olds.items()}
    functions = {new: old for old, new in changes.renamed(kind="global_function").items()
                 if not any(api.lookup(V4, g, old) for g in _GLOBALS) and any(api.lookup(V4, g, new) for g in _GLOBALS)}
    return {"members": dict(members), "classes": classes, "functions": functions}


def draw(sites: list[Mutation], n: int, rng: random.Random) -> list[Mutation]:
    """`n` sites at random, one per script before any script gives a second."""
    sites = sorted(sites, key=lambda m: (m.project, m.path, m.edits))
    rng.shuffle(sites)
    first, rest, seen = [], [], set()
    for m in sites:
        (rest if (m.project, m.path) in seen else first).append(m)
        seen.add((m.project, m.path))
    return (first + rest)[:n]


def mutations(projects: list[Path], api: ApiIndex, clean: dict[str, list[str]], seed: int,
              per_kind: int) -> tuple[dict, dict]:
    """Draw the mutations, run the checker on each; per kind: tried, caught, uncaught examples."""
    tables = rename_tables(api)
    by_kind: dict[str, list[Mutation]] = defaultdict(list)
    t0 = time.perf_counter()
    for project in projects:
        files = project_files(project)
        checker = project_checker(files, api)
        finder = Sites(project.name, checker, api, random.Random(f"{seed}:{project.name}"), tables)
        for path in clean.get(project.name, []):
            for m in finder.of(path):
                by_kind[m.kind].append(m)
    found = {k: len(by_kind.get(k, [])) for k in KINDS}
    print(f"\nmutation sites found in {time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in found.items()), flush=True)
    rng = random.Random(seed)
    chosen = [m for k in KINDS for m in draw(by_kind.get(k, []), per_kind, rng)]
    by_project: dict[str, list[Mutation]] = defaultdict(list)
    for m in chosen:
        by_project[m.project].append(m)
    results: dict[str, list[dict]] = defaultdict(list)
    check_s, check_lines = 0.0, 0
    for project in projects:
        if project.name not in by_project:
            continue
        files = project_files(project)
        checker = project_checker(files, api)
        base: dict[str, set] = {}
        for m in by_project[project.name]:
            text = files[m.path]
            mutated = m.apply(text)
            if m.path not in base:
                base[m.path] = {(d.line, d.rule, d.message) for d in checker.check(m.path) if d.severity == "error"}
            before = base[m.path]
            t1 = time.perf_counter()
            after = [d for d in checker.check_text(m.path, mutated) if d.severity == "error"]
            check_s += time.perf_counter() - t1
            check_lines += mutated.count("\n") + 1
            new = [d for d in after if (d.line, d.rule, d.message) not in before]
            near = [d for d in new if any(abs(d.line - x) <= NEAR for x in m.expect)]
            line_text = mutated.split("\n")[m.line - 1].strip() if m.line <= mutated.count("\n") + 1 else ""
            results[m.kind].append({"project": m.project, "path": m.path, "line": m.line, "expect": list(m.expect),
                                    "mutated": line_text, "note": m.note, "caught": bool(near),
                                    "elsewhere": bool(new) and not near,
                                    "errors": [f"{d.line} [{d.rule}] {d.message}" for d in new]})
        print(f"  mutated {project.name}: {len(by_project[project.name])}", flush=True)
    per = {}
    for k in KINDS:
        rows = results.get(k, [])
        caught = sum(r["caught"] for r in rows)
        per[k] = {"sites": found[k], "tried": len(rows), "caught": caught,
                  "share": caught / len(rows) if rows else None,
                  "elsewhere": sum(r["elsewhere"] for r in rows),
                  "uncaught": [r for r in rows if not r["caught"]]}
    timing = {"seconds": check_s, "lines": check_lines}
    return per, timing


# ---------------------------------------------------------------- report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path, help="folders of Godot 4 projects by others (DIR/<project>/**)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--per-kind", type=int, default=40)
    ap.add_argument("--leftovers", type=Path, default=LEFTOVERS)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    pool = make_pool(Settings.from_env(), min_size=1, max_size=2)
    with pool.connection() as conn:
        api = read_index(conn)
    pool.close()
    if api.empty:
        print("the knowledge base has no API index: run `godot-rag ingest` first")
        return 2
    print("dev sources:")
    sources = dev_sources([], args.dirs)
    for s in sources:
        print("  " + "  ".join(f"{k}={v}" for k, v in s.items()))
    if not api.complete_v4:
        print("note: the 4.x reference is partial, so the checker leaves unknown names unreported")
    projects = projects_of(args.dirs)
    leftovers = read_leftovers(args.leftovers)

    print(f"\n== 1. errors on {len(projects)} Godot 4 projects by others ==")
    results, clean = false_errors(projects, api, leftovers)
    lines = sum(r["lines"] for r in results.values())
    errors = sum(r["errors"] for r in results.values())
    real = sum(r["real"] for r in results.values())
    seconds = sum(r["seconds"] for r in results.values())
    kloc = max(1, lines) / 1000
    rules = sum((Counter(r["by_rule"]) for r in results.values()), Counter())
    print(f"total: {lines} lines, {errors} errors ({errors / kloc:.3f}/kloc), {real} of them listed as real "
          f"Godot 3 leftovers or bugs, false errors {errors - real} ({(errors - real) / kloc:.3f}/kloc; bar 0.2); "
          f"warnings {sum(r['warnings'] for r in results.values())}")
    print("diagnostics by rule (errors and warnings): " + ", ".join(f"{k} {v}" for k, v in sorted(rules.items())))
    print(f"false errors ({errors - real}):")
    for name, r in results.items():
        for e in r["false_errors"]:
            print(f"  {name}/{e}"[:220])
    stale = [f"{name}/{s}" for name, r in results.items() for s in r["stale_leftovers"]]
    if stale:
        print(f"listed in {args.leftovers.name} but not reported ({len(stale)}):")
        for s in stale:
            print("  " + s)

    print(f"\n== 2. mutations (seed {args.seed}, up to {args.per_kind} per kind; scripts with no error and no "
          f"syntax warning: {sum(len(v) for v in clean.values())}) ==")
    per, timing = mutations(projects, api, clean, args.seed, args.per_kind)
    print(f"{'kind':26s} {'sites':>6s} {'tried':>6s} {'caught':>7s} {'share':>7s} {'elsewhere':>10s}")
    for k, r in per.items():
        share = f"{100 * r['share']:.0f}%" if r["share"] is not None else "-"
        print(f"{k:26s} {r['sites']:6d} {r['tried']:6d} {r['caught']:7d} {share:>7s} {r['elsewhere']:10d}")
    tried = sum(r["tried"] for r in per.values())
    caught = sum(r["caught"] for r in per.values())
    print(f"overall: {caught}/{tried} caught ({100 * caught / max(1, tried):.1f}%; bar 95%), kinds "
          f"{sum(1 for r in per.values() if r['tried'])}")
    print("uncaught (3 per kind):")
    for k, r in per.items():
        for u in r["uncaught"][:3]:
            extra = f"  [{u['note']}]" if u["note"] else ""
            also = f"  (errors elsewhere: {'; '.join(u['errors'])[:120]})" if u["errors"] else ""
            print(f"  {k:24s} {u['project']}/{u['path']}:{u['line']}  {u['mutated'][:90]}{extra}{also}"[:300])

    print("\n== 3. speed ==")
    print(f"whole projects: {1000 * seconds / max(1, lines):.3f} s per 1,000 lines ({lines} lines, {seconds:.1f} s)")
    print(f"one mutated script in its project: {1000 * timing['seconds'] / max(1, timing['lines']):.3f} s per "
          f"1,000 lines ({tried} scripts, {timing['seconds']:.1f} s)")
    if args.out:
        args.out.write_text(json.dumps({
            "sources": sources, "seed": args.seed, "per_kind": args.per_kind,
            "errors": {"lines": lines, "errors": errors, "listed_real": real, "false": errors - real,
                       "errors_per_kloc": errors / kloc, "false_per_kloc": (errors - real) / kloc,
                       "seconds": seconds, "seconds_per_kloc": 1000 * seconds / max(1, lines),
                       "by_rule": dict(sorted(rules.items())), "stale_leftovers": stale},
            "projects": results,
            "mutations": {"tried": tried, "caught": caught, "share": caught / max(1, tried), "kinds": per,
                          "check_seconds": timing["seconds"], "check_lines": timing["lines"]},
        }, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
