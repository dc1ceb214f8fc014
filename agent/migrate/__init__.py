"""The migration engine: a snippet, a file or a whole project in its Godot 4 form, validated, never in place.

    migrate_files(files, kb) -> ProjectMigration

1. The project's context is built once from all its files (extends chains, scenes, autoloads, the scripts'
   models), with the knowledge base's exact lookups (`kb`: every mapping row by name, pages by symbol).
2. Each script is planned chunk by chunk and composed (`agent.migrate.script`); scenes, resources and
   project.godot are rewritten from their data (`agent.migrate.resources`).
3. The migrated project gets a context of its own, and every changed script is validated on it: parsed and
   judged again; a rewrite that fails goes back to its original lines plus a TODO, and the file is composed
   again. Running the migration on its own output changes nothing (tests/migrate, bench/migrate.py).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from agent.judge.project import ProjectContext, build_project_context, res_resolver
from agent.migrate.model import (TODO_TAG, FileMigration, MigrationSummary, MigrationTodo, ProjectMigration)
from agent.migrate.resources import migrate_project_godot, migrate_resource, scene_root_types
from agent.gdscript.checker import Checker
from agent.gdscript.grammar import godot4_grammar_error, line_start
from agent.migrate.safe_edits import COMMENTED, comment_out, enum_commas
from agent.migrate.shaders import SHADER_SUFFIXES, gdshader_path, migrate_embedded, migrate_shader_code
from agent.migrate.script import compose, file_migration, parse_errors, plan_script, validate_script

__all__ = ["TODO_TAG", "FileMigration", "MigrationSummary", "ProjectMigration", "migrate_files", "migrate_snippet",
           "migration_context"]

SNIPPET_PATH = "snippet.gd"


def migration_context(files: dict[str, str], kb: ProjectContext | None) -> ProjectContext:
    """The project's context over `files`, with the knowledge base's index, mapping rows and pages."""
    ctx = build_project_context(files, kb.api if kb is not None else None)
    if kb is not None:
        ctx.mappings, ctx.pages = kb.mappings, kb.pages
    return ctx


def _kind(path: str) -> str | None:
    if path.endswith(".gd"):
        return "gdscript"
    if path.endswith(SHADER_SUFFIXES):
        return "shader"
    if path.endswith(".tscn"):
        return "scene"
    if path.endswith(".tres"):
        return "resource"
    if path.rsplit("/", 1)[-1] == "project.godot":
        return "project_config"
    return None


def _resource_failures(text: str) -> list[str]:
    """A migrated scene or resource must name only resources it declares."""
    declared = set(re.findall(r'^\[(?:ext|sub)_resource\b[^\]\n]*\bid="([^"]+)"', text, re.M))
    used = set(re.findall(r'\b(?:Ext|Sub)Resource\("([^"]+)"\)', text))
    missing = sorted(used - declared)
    return [f"resource ids used but not declared: {', '.join(missing[:5])}"] if missing else []


def _migrate_shader_file(path: str, text: str, godot4_project: bool, taken: set[str]) -> FileMigration:
    result = migrate_shader_code(text)
    new_path = gdshader_path(path)
    if new_path != path and new_path in taken:  # never over a file of the project's own
        result.todos.append((1, f"{new_path} exists already: rename this file to .gdshader by hand"))
        new_path = path
    if godot4_project and not result.godot3 and new_path == path:
        return FileMigration(path=path, kind="shader", status="unchanged")
    changed = result.text != text or new_path != path
    todos = [MigrationTodo(line=line, reason=reason) for line, reason in result.todos]
    return FileMigration(path=path, kind="shader", new_path=new_path if new_path != path else None,
                         status="todo" if todos else "migrated" if changed else "unchanged",
                         migrated=result.text if changed else None, edits=result.edits, todos=todos)


def _migrate_resource_file(path: str, kind: str, text: str, godot4_project: bool = False,
                           root_type=None) -> FileMigration:
    result = migrate_project_godot(text) if kind == "project_config" else migrate_resource(path, text, root_type)
    if kind != "project_config":  # shader code a scene or resource holds (`code = "shader_type ..."`)
        result.text, shader_edits, shader_todos = migrate_embedded(result.text)
        result.edits += shader_edits
        result.godot3 += shader_edits
        result.todos += [(1, f"shader code: {t}") for t in shader_todos]
    if godot4_project and kind != "project_config" and not result.godot3:
        # a format=2 file a Godot 4 project keeps (its types already Godot 4's): Godot 4 loads it as it is
        return FileMigration(path=path, kind=kind, status="unchanged")
    failures = _resource_failures(result.text) if kind != "project_config" else []
    if failures:
        return FileMigration(path=path, kind=kind, status="todo", failures=failures,
                             todos=[MigrationTodo(line=1, reason="left as it was: " + failures[0])])
    changed = result.text != text
    todos = [MigrationTodo(line=line, reason=reason) for line, reason in result.todos]
    return FileMigration(path=path, kind=kind, status="todo" if todos else "migrated" if changed else "unchanged",
                         migrated=result.text if changed else None, edits=result.edits, todos=todos)


_VALIDATION_ROUNDS = 4
"""Validation rounds at most: each gives back what the last round's give-backs made wrong (rarely more than 2)."""


def migrate_files(files: dict[str, str], kb: ProjectContext | None) -> ProjectMigration:
    """Every script, scene, resource, shader and project.godot of `files` (path -> text) in its Godot 4 form.

    Other files are listed as skipped with the reason; nothing is written anywhere.
    """
    ctx = migration_context(files, kb)
    godot4_project = any(_kind(p) == "project_config" and re.search(r"^config_version\s*=\s*5\b", t or "", re.M)
                         for p, t in files.items())
    planned: dict[str, tuple] = {}
    out: list[FileMigration] = []
    root_type = scene_root_types(files, res_resolver(files))
    migrated_text: dict[str, str] = dict(files)
    for path, text in sorted(files.items()):
        kind = _kind(path)
        if kind is None:
            out.append(FileMigration(path=path, kind="resource", status="skipped",
                                     reason="not a script, scene, resource or project.godot"))
        elif kind == "gdscript":
            plans, composed = plan_script(path, text, ctx)
            planned[path] = (plans, composed)
            migrated_text[path] = composed.text
        elif kind == "shader":
            record = _migrate_shader_file(path, text, godot4_project, set(files))
            out.append(record)
            if record.migrated is not None:
                migrated_text[path] = record.migrated
        else:
            record = _migrate_resource_file(path, kind, text, godot4_project, root_type)
            out.append(record)
            if record.migrated is not None:
                migrated_text[path] = record.migrated
    failures: dict[str, list[str]] = {p: [] for p in planned}
    api = kb.api if kb is not None else None
    checked = set(planned) if api is not None and api.complete_v4 else set()
    for _ in range(_VALIDATION_ROUNDS):
        # a rewrite given back to a person can leave others wrong (`var a = AStar.new()` kept: `a.connect_points`
        # in another function is Godot 3 again), so validate again on the project as it now is, until none fails;
        # with a complete API index the Godot 4 checker reads every script too (its safe renames are applied)
        changed = {p for p, (_, composed) in planned.items() if composed.text != files[p]} | checked
        if not changed:
            break
        after = migration_context(migrated_text, kb)
        checker = Checker(after.scripts, api, autoloads=after.autoloads, godot3_origin=files, typer=after.typer) \
            if checked and after.scripts is not None else None
        again = False
        for path in sorted(changed):
            plans, composed = planned[path]
            redo = validate_script(path, files[path], composed, after, checker, gate_unflagged=not godot4_project)
            if redo:
                failures[path] += [f"lines {p.chunk.span.start_line}-{p.chunk.span.end_line}: {p.failure}"
                                   for p in redo if p.failure]
                composed = compose(files[path], plans)
                planned[path], migrated_text[path], again = (plans, composed), composed.text, True
        if not again:
            break
    for path, (plans, composed) in planned.items():
        if composed.text != files[path] or not godot4_project:  # a Godot 4 project's own files stay as they are
            composed = _parses_in_godot4(files[path], plans, composed, failures[path])
        out.append(file_migration(path, files[path], plans, composed, failures[path]))
    result = ProjectMigration.of(_follow_moves(out, files))
    if planned and not checked:
        result.partial = ("the knowledge base's Godot 4 API index is partial or missing: the GDScript 4 checker did "
                          "not gate the scripts")
    return result


_GODOT3_LINE = re.compile(r"^\s*(?:(?:onready|export|remote|master|puppet|remotesync|mastersync|puppetsync|tool)\b"
                          r"|\.[A-Za-z_]|.*\bsetget\b|.*\byield\s*\(|.*[(,]\s*var\s+[A-Za-z_]"
                          r"|.*[\s(,\[=!]\.[A-Za-z_]\w*\s*\("  # `return(.f())`, `in .get_children()`: parent calls
                          r"|.*\bis\s+(?:\(|(?:pre)?load\s*\(|[\w.]*\[))")  # `is preload(...)`: no type in Godot 4


def _godot3_grammar_at(text: str, line: int) -> bool:
    """Whether 1-based `line` of `text` holds what only Godot 3's grammar reads (a keyword Godot 4 made an
    annotation, `setget`, `yield`, `.f()`, `var` before a parameter) or what tree-sitter cannot read either.
    Elsewhere gdtoolkit's grammar has a gap of its own (a string over two lines) and the line is valid Godot 4."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        return False
    if _GODOT3_LINE.match(lines[line - 1]):
        return True
    start = line_start(text, line)
    end = start + len(lines[line - 1].encode())
    return any(a <= end and b >= start for a, b in parse_errors(text))


_RES_PATH = re.compile(r"""(["'])(res://[^"'\n]+?|[^"'\n/:]+(?:/[^"'\n/:]+)*?)\.shader\1""")


def _follow_moves(records: list[FileMigration], files: dict[str, str]) -> list[FileMigration]:
    """Every reference to a moved file (`res://x.shader` in a scene, a resource, a script's `preload` or
    project.godot) names its new path (`res://x.gdshader`), in the migrated text of the file that holds it."""
    moved = {r.path: r.new_path for r in records if r.new_path}
    if not moved:
        return records
    resolve = res_resolver(files)
    out = []
    for r in records:
        kind = _kind(r.path)
        if kind is None or kind == "shader":
            out.append(r)
            continue
        text = r.migrated if r.migrated is not None else files[r.path]

        def follow(m: re.Match[str], where: str = r.path) -> str:
            target = m.group(2) + ".shader"
            found = resolve(target, where) if target.startswith("res://") else posixpath.normpath(
                posixpath.join(posixpath.dirname(where), target))
            return m.group(0).replace(".shader" + m.group(1), ".gdshader" + m.group(1)) if found in moved else m.group(0)

        new = _RES_PATH.sub(follow, text)
        if new != text:
            edits = r.edits + sum(1 for a, b in zip(_RES_PATH.findall(text), _RES_PATH.findall(new)) if a != b)
            r = r.model_copy(update={"migrated": new, "edits": edits,
                                     "status": r.status if r.status == "todo" else "migrated"})
        out.append(r)
    return out


def _parses_in_godot4(original: str, plans: list, composed, failures: list[str]):
    """The composed script once gdtoolkit's Godot 4 grammar reads it whole. A rewritten chunk it stops in goes back
    to a person; a line it stops at in a TODO chunk (or in code no rule changed, which becomes a TODO) is kept in
    that chunk as a `# godot3:` comment. What still does not parse after that is a TODO of the file. Enum commas
    are put in over the whole file first: tree-sitter cuts an enum without them into pieces no chunk holds whole."""
    composed = replace(composed, text=enum_commas(composed.text))
    for _ in range(_VALIDATION_ROUNDS * 12):
        err = godot4_grammar_error(composed.text)
        if err is None:
            return composed
        found = composed.plan_at(line_start(composed.text, err.line))
        if found is None:
            break
        plan, offset = found
        if plan.marked or not _godot3_grammar_at(composed.text, err.line):
            break  # a person's chunk already; or a line tree-sitter reads whole (gdtoolkit's own gap): left as is
        if plan.migrated:
            plan.give_up(f"Godot 4's grammar stops at it: {err.message}")
            failures.append(f"line {err.line}: {err.message}")
        else:
            if not plan.todos:
                plan.leave_to_person(f"Godot 4's grammar stops here: {err.message}")
            body = plan.text
            line = body.encode()[:offset].decode("utf-8", "replace").count("\n") + 1
            kept = comment_out(body, line)
            if kept == body:
                break
            plan.body, plan.new = kept, None
            failures.append(f"kept as a `{COMMENTED.strip()}` comment (Godot 4 cannot parse it): {err.message}")
        composed = compose(original, plans)
        composed = replace(composed, text=enum_commas(composed.text))
    err = godot4_grammar_error(composed.text)
    if err is None:
        return composed
    failures.append(f"line {err.line}: Godot 4's grammar stops here ({err.message}); left for a person")
    return replace(composed, todos=[*composed.todos, MigrationTodo(
        line=err.line, reason=f"Godot 4 cannot parse this line ({err.message})")])


def migrate_snippet(code: str, kb: ProjectContext | None, path: str = SNIPPET_PATH) -> FileMigration:
    """One pasted script (or a file on its own) in its Godot 4 form."""
    return migrate_files({path: code}, kb).files[0]
