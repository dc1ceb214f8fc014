"""Per-project context for judging: each script's `extends`, the node types its scenes give
`$Path` / `get_node("...")`, and the API index of both Godot versions.

`build_project_context` is a pure function of the project's files (path -> text), so the
graph can build it once per run and every chunk's judge reads the same facts. The
receiver of a member use (`$MessageLabel.hide()`, `var f: File`, `Input.get_mouse_mode()`)
is resolved from these facts before any rename is applied.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent.apiindex import ApiIndex
from agent.gdscript.typer import ProjectScripts, Typer
from agent.judge.call_sites import ParamTypes, member_types, param_types
from agent.judge.lexer import identifiers, lex
from agent.judge.syntax_rules import written_in
from agent.models import RetrievalHit
from agent.retrieve.mapping_table import MappingTable

_EXTENDS = re.compile(r"^\s*extends\s+([A-Za-z_]\w*|\"[^\"]+\"|'[^']+')", re.M)
_CLASS_NAME = re.compile(r"^\s*(?:@\w+(?:\([^)\n]*\))?\s+)*class_name\s+([A-Za-z_]\w*)(?:\s*,[^\n]*)?(?:\s+extends\s+([A-Za-z_]\w*))?", re.M)
_SECTION = re.compile(r"^\[(\w+)((?:[^\[\]]|\[[^\[\]]*\])*)\]\s*$", re.M)
"""A `[node ...]` header; its `groups=[...]` may span lines."""
_ATTR = re.compile(r'(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s\]]+(?:\(\s*[^)]*\))?)')
_INNER_CLASS = re.compile(r"^\s*class\s+([A-Za-z_]\w*)", re.M)
_MEMBER_VAR = re.compile(r"^(?:(?:@\w+(?:\([^)\n]*\))?|onready|export(?:\([^)\n]*\))?)[ \t]+)*var[ \t][^\n]*", re.M)
"""A script-level `var` line (column 0, with its annotations or Godot 3 keywords)."""
_STRING_CONST = re.compile(r"^const[ \t]+([A-Za-z_]\w*)[ \t]*(?::[ \t]*String[ \t]*)?:?=[ \t]*([\"'])(\w+)\2[ \t]*(?:#.*)?$",
                           re.M)
_DECLARES = re.compile(r"^\s*(?:(?:static|onready|remote|master|puppet|remotesync|mastersync|puppetsync)\s+"
                       r"|export\b(?:\s*\([^)\n]*\))?\s*|@\w+(?:\([^)\n]*\))?\s+)*"
                       r"(?:func|var|const|signal|enum|class)\s+([A-Za-z_]\w*)", re.M)
"""A script's own names, Godot 3's `onready var`/`export(int) var` and Godot 4's `@onready var` included."""
_ENUM_BODY = re.compile(r"^\s*enum\s*\w*\s*\{([^}]*)\}", re.M)
_ENUM_VALUE = re.compile(r"(?:^|,)\s*([A-Za-z_]\w*)")
_AUTOLOAD = re.compile(r"^\[autoload\]\s*$(.*?)(?=^\[|\Z)", re.M | re.S)
_AUTOLOAD_NAME = re.compile(r"^([A-Za-z_]\w*)\s*=", re.M)
_AUTOLOAD_SCRIPT = re.compile(r"^([A-Za-z_]\w*)\s*=\s*\"\*?(res://[^\"]+\.gd)\"", re.M)
_ASSIGN_NEW = re.compile(r"^[ \t]+(?:self[ \t]*\.[ \t]*)?([a-z_]\w*)[ \t]*=[ \t]*([A-Z]\w*)[ \t]*"
                         r"(?:\.[ \t]*new[ \t]*)?\(", re.M)
"""`image_texture = ImageTexture.new()` in a function body: a member assigned a constructed object."""
_LOCAL_VAR = re.compile(r"^[ \t]+(?:var|const)[ \t]+([A-Za-z_]\w*)"
                        r"|^[ \t]*(?:static[ \t]+)?func[ \t]+\w+[ \t]*\(([^)]*)\)", re.M)
"""A function's local `var` or its parameters: a bare assignment there may be to the local."""
_SCRIPT_PROP = re.compile(r"^script\s*=\s*ExtResource\(\s*\"?([^\")\s]+)\"?\s*\)", re.M)


@dataclass
class ProjectContext:
    """What judging one chunk may know about the rest of its project."""

    extends: dict[str, str] = field(default_factory=dict)
    """Script path -> the class it extends (a resolved `class_name` or `res://` script becomes its base)."""
    scene_nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    """Script path -> {relative node path: node type} from the `.tscn` nodes under the node it is attached to."""
    api: ApiIndex | None = None
    """Definitions of both documented versions; None when the knowledge base has no index."""
    declared: dict[str, frozenset[str]] = field(default_factory=dict)
    """Script path -> names the script and its project base scripts declare (func, var, const, signal)."""
    class_names: frozenset[str] = frozenset()
    """Classes the project declares (`class_name X`, inner `class X`): never an engine class of either version."""
    inherited_vars: dict[str, str] = field(default_factory=dict)
    """Script path -> the member `var` lines of its project base scripts (`var image_texture: ImageTexture`)."""
    string_constants: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per script, its string constants and its project bases' (`const YIELD = 'timeout'` in GUT's test.gd,
    seen by every test that extends it): `yield(yield_for(1), YIELD)` names the `timeout` signal."""
    assigned_types: dict[str, dict[str, str]] = field(default_factory=dict)
    """Script path -> {member: class} for members its (or its bases') functions build as one `Class.new()`."""
    class_bases: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    """`class_name` -> (the engine class its script extends, the names that script and its bases declare)."""
    autoloads: frozenset[str] = frozenset()
    """Names project.godot's [autoload] section gives (`Camera`, `Scenes`): the project's own singletons."""
    gdscript2: frozenset[str] = frozenset()
    """Scripts written in GDScript 2 only grammar (an annotation, `await`, a lambda, ...) and none of GDScript 1's:
    Godot 4 scripts, whose `func drop_data()` is a method of their own, not a Godot 3 callback."""
    own_names: frozenset[str] = frozenset()
    """Every name the project gives itself: what its scripts declare (enum values too), its `class_name`s and
    its autoloads."""
    param_types: dict[str, ParamTypes] = field(default_factory=dict)
    """Script path -> {function: {untyped parameter: class}} from the script's own calls (`call_sites`)."""
    scripts: ProjectScripts | None = None
    """The project's scripts as `ScriptModel`s (built lazily, once each) and the names that reach them."""
    typer: Typer | None = None
    """Expression types on those models (with the API index); None without an index."""
    pages: Callable[[list[str], list[str]], list[RetrievalHit]] | None = None
    """Docs windows by symbol and by id (`mapping_table.pages_of` on the knowledge base): what a finding cites."""
    mappings: MappingTable | None = None
    _dot_types: dict[tuple[str, int, int], dict[int, str]] = field(default_factory=dict, repr=False)
    """Every api_mapping row by exact name (`agent.retrieve.mapping_table`): detection reads these, not top-k."""

    def dot_types(self, path: str, code: str, start_byte: int) -> dict[int, str]:
        """Offset of each `.` in `code` (the chunk starting at byte `start_byte` of script `path`) -> the
        engine type the script model gives its receiver, where resolved."""
        if self.typer is None or self.scripts is None or self.scripts.model(path) is None:
            return {}
        key = (path, start_byte, len(code))
        if key in self._dot_types:  # the judge, the validator and a second facts pass read the same span
            return self._dot_types[key]
        data = code.encode("utf-8")
        found = self.typer.receivers(path, start_byte, start_byte + len(data))
        ascii_only = len(data) == len(code)
        out: dict[int, str] = {}
        for b, t in found.items():
            at = b - start_byte if ascii_only else len(data[: b - start_byte].decode("utf-8", "ignore"))
            if 0 <= at < len(code) and code[at] == ".":  # the chunk's text is the file's at these bytes
                out[at] = t
        self._dot_types[key] = out
        return out

    def script_class(self, path: str) -> str | None:
        return self.extends.get(path)

    def node_type(self, script: str, node_path: str) -> str | None:
        return self.scene_nodes.get(script, {}).get(node_path.strip("/"))


def _unquote(v: str) -> str:
    return v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v


def _res(path: str) -> str:
    return path.removeprefix("res://")


def res_resolver(paths: Iterable[str]) -> Callable[[str, str], str]:
    """(`res://` path, the file that names it) -> the project file it means.

    `res://` is the folder of the project's `project.godot`, and an upload or a repository often
    holds the project one folder down (`game/project.godot`): a path is read from the root of the
    project that contains the naming file. Without a `project.godot`, the root is the deepest folder
    above the naming file that holds the path, else the path is the one file that ends with it.
    """
    files = set(paths)
    roots = sorted((p.rpartition("/")[0] for p in files if p.rpartition("/")[2] == "project.godot"),
                   key=len, reverse=True)

    def resolve(res_path: str, from_path: str) -> str:
        rel = _res(res_path).lstrip("/")
        for root in roots:
            if not root or from_path.startswith(f"{root}/"):
                return f"{root}/{rel}" if root else rel
        folder = from_path.rpartition("/")[0]
        while folder:
            if f"{folder}/{rel}" in files:
                return f"{folder}/{rel}"
            folder = folder.rpartition("/")[0]
        if rel in files:
            return rel
        ends = [p for p in files if p.endswith(f"/{rel}")]
        return ends[0] if len(ends) == 1 else rel
    return resolve


def _scenes(path: str, text: str, out: dict[str, dict[str, str]], resolve: Callable[[str, str], str]) -> None:
    ext: dict[str, str] = {}
    nodes: list[tuple[str, str, str]] = []  # (path from root, type, script)
    sections = list(_SECTION.finditer(text))
    for i, m in enumerate(sections):
        attrs = {k: _unquote(v) for k, v in _ATTR.findall(m.group(2))}
        body = text[m.end() : sections[i + 1].start() if i + 1 < len(sections) else len(text)]
        if m.group(1) == "ext_resource" and attrs.get("type") == "Script" and "id" in attrs:
            ext[attrs["id"]] = resolve(attrs.get("path", ""), path)
        elif m.group(1) == "node" and "name" in attrs:
            parent = attrs.get("parent")
            node_path = "" if parent is None else (attrs["name"] if parent == "." else f"{parent}/{attrs['name']}")
            sm = _SCRIPT_PROP.search(body)
            nodes.append((node_path, attrs.get("type", ""), ext.get(sm.group(1), "") if sm else ""))
    for base, _, script in nodes:
        if not script:
            continue
        table = out.setdefault(script, {})
        prefix = f"{base}/" if base else ""
        for node_path, node_type, _ in nodes:
            if node_type and node_path and node_path.startswith(prefix) and node_path != base:
                table.setdefault(node_path[len(prefix):], node_type)


def _assigned_members(text: str, api: ApiIndex) -> dict[str, str]:
    """Names the script's functions assign `X.new()` of one engine class only (`tex = ImageTexture.new()`).

    Godot 3 code often declares `var image_texture` untyped (or inherits it) and builds it in
    `_init`. A name any function also declares locally or takes as a parameter is left out
    (the assignment may be to that), and so is one constructed as two different classes.
    """
    masked = lex(text).masked
    local: set[str] = set()
    for m in _LOCAL_VAR.finditer(masked):
        if m.group(1):
            local.add(m.group(1))
        else:
            local.update(p.group(1) for p in re.finditer(r"(?:^|,)\s*([A-Za-z_]\w*)", m.group(2)))
    classes = api.class_names()
    seen: dict[str, set[str]] = {}
    for m in _ASSIGN_NEW.finditer(masked):
        if m.group(2) in classes:
            seen.setdefault(m.group(1), set()).add(m.group(2))
    return {name: next(iter(found)) for name, found in seen.items() if len(found) == 1 and name not in local}


def build_project_context(files: Mapping[str, str], api: ApiIndex | None = None) -> ProjectContext:
    """Extends chains and scene node types of a project (path -> text of its included files)."""
    ctx = ProjectContext(api=api)
    resolve = res_resolver(files)
    raw_extends: dict[str, str] = {}
    class_names: dict[str, str] = {}
    autoload_paths: dict[str, str] = {}
    for path, text in files.items():
        if path.endswith(".gd") and text:
            m = _EXTENDS.search(text)
            if m:
                raw_extends[path] = m.group(1)
            cn = _CLASS_NAME.search(text)
            if cn:
                class_names[cn.group(1)] = path
                if cn.group(2):
                    raw_extends.setdefault(path, cn.group(2))
        elif path.endswith((".tscn", ".tres")) and text:
            _scenes(path, text, ctx.scene_nodes, resolve)
        elif path.rsplit("/", 1)[-1] == "project.godot" and text:
            ctx.autoloads |= {n for section in _AUTOLOAD.findall(text) for n in _AUTOLOAD_NAME.findall(section)}
            autoload_paths.update({n: resolve(p, path) for section in _AUTOLOAD.findall(text)
                                   for n, p in _AUTOLOAD_SCRIPT.findall(section)})

    own = {p: set(_DECLARES.findall(t or "")) for p, t in files.items() if p.endswith(".gd")}
    ctx.gdscript2 = frozenset(p for p, t in files.items() if p.endswith(".gd") and t
                              and written_in(lex(t).masked) == {"godot4"})

    def user_bases(path: str) -> list[str]:
        chain, cur = [], path
        while cur in raw_extends and cur not in chain and len(chain) < 16:
            chain.append(cur)
            base = raw_extends[cur]
            cur = resolve(base.strip("\"'"), cur) if base[:1] in "\"'" else class_names.get(base, "")
        return chain + ([cur] if cur in own and cur not in chain else [])

    assigned = {p: _assigned_members(t or "", api) for p, t in files.items() if api and p.endswith(".gd")}
    for path in own:
        ctx.declared[path] = frozenset().union(*(own.get(p, set()) for p in user_bases(path) or [path]))
        inherited = [line for base in user_bases(path)[1:] for line in _MEMBER_VAR.findall(files.get(base) or "")]
        if inherited:
            ctx.inherited_vars[path] = "\n".join(inherited)
        members: dict[str, str] = {}
        for base in user_bases(path) or [path]:  # the script's own assignments first, then its bases'
            for name, cls in assigned.get(base, {}).items():
                members.setdefault(name, cls)
        if members:
            ctx.assigned_types[path] = members
        constants: dict[str, str] = {}
        for base in user_bases(path) or [path]:  # the script's own constants first, then its bases'
            for name, _, value in _STRING_CONST.findall(files.get(base) or ""):
                constants.setdefault(name, value)
        if constants:
            ctx.string_constants[path] = constants

    if api is not None:
        _infer_param_types(ctx, files, api)

    def engine_base(path: str, seen: set[str]) -> str | None:
        base = raw_extends.get(path)
        if base is None or path in seen:
            return None
        seen.add(path)
        if base[:1] in "\"'":
            return engine_base(resolve(base.strip("\"'"), path), seen)
        if base in class_names:
            return engine_base(class_names[base], seen)
        return base

    for path in raw_extends:
        base = engine_base(path, set())
        if base:
            ctx.extends[path] = base
    for name, path in class_names.items():
        if path in ctx.extends:
            ctx.class_bases[name] = (ctx.extends[path], ctx.declared.get(path, frozenset()))
    ctx.class_names = frozenset(class_names) | frozenset(
        n for p, t in files.items() if p.endswith(".gd") for n in _INNER_CLASS.findall(t or ""))
    enum_values = {v for p, t in files.items() if t and p.endswith(".gd") for body in _ENUM_BODY.findall(lex(t).masked)
                   for v in _ENUM_VALUE.findall(body)}
    ctx.own_names = frozenset().union(*own.values(), ctx.class_names, ctx.autoloads, enum_values)
    ctx.scripts = ProjectScripts(files, class_paths=class_names, autoload_paths=autoload_paths, resolve=resolve,
                                 scene_nodes=ctx.scene_nodes, node_names=api.node_name_types() if api else {})
    ctx.typer = Typer(ctx.scripts, api) if api is not None else None
    return ctx


_SPELLED = re.compile(r"[\"']([A-Za-z_]\w*)[\"']")
"""A name in quotes: a by-name call or connection in a script, a scene's `[connection method="..."]`."""


def _infer_param_types(ctx: ProjectContext, files: Mapping[str, str], api: ApiIndex) -> None:
    """Each script's untyped parameters that every call in the script passes one class (`call_sites`)."""
    masked = {p: lex(t or "").masked for p, t in files.items() if p.endswith(".gd")}
    users = Counter(n for m in masked.values() for n in set(identifiers(m)))
    spelled = {n for t in files.values() for n in _SPELLED.findall(t or "")}

    def used_elsewhere(name: str) -> bool:  # every script holds its own names once
        return users[name] > 1 or name in spelled

    for path, text in masked.items():
        members = member_types(text, "\n".join(_MEMBER_VAR.findall(text)))
        found = param_types(text, api, members, used_elsewhere)
        if found:
            ctx.param_types[path] = found


# ---------------------------------------------------------------- the graph's entry point

_RUNS: OrderedDict[str, ProjectContext] = OrderedDict()
_RUNS_KEPT = 8


def _knowledge_base(retriever: Any) -> tuple[str, Any] | None:
    """(a key naming the retriever's database, its pool's connection factory), or None without a pool."""
    pool = getattr(retriever, "pool", None)
    settings = getattr(retriever, "settings", None)
    if pool is None or settings is None:
        return None
    return f"{settings.database_url or ''}|{settings.home}|{settings.database_name}", pool.connection


def api_index_for(retriever: Any) -> ApiIndex | None:
    """The knowledge base's API index through the retriever's pool (read once per database)."""
    kb = _knowledge_base(retriever)
    if kb is None:
        return None
    from agent.apiindex import cached_index

    index = cached_index(*kb)
    return None if index.empty else index


def mapping_table_for(retriever: Any) -> MappingTable | None:
    """Every api_mapping row of the knowledge base, through the retriever's pool (read once per database)."""
    kb = _knowledge_base(retriever)
    if kb is None:
        return None
    from agent.retrieve.mapping_table import cached_table

    return cached_table(*kb)


def pages_for(retriever: Any) -> Callable[[list[str], list[str]], list[RetrievalHit]] | None:
    """Docs windows by symbol and id through the retriever's pool (one short indexed query per call)."""
    kb = _knowledge_base(retriever)
    if kb is None:
        return None
    from agent.retrieve.mapping_table import pages_of

    def fetch(symbols: list[str], ids: list[str]) -> list[RetrievalHit]:
        with kb[1]() as conn:
            return pages_of(conn, symbols, ids)
    return fetch


def with_knowledge_base(project: ProjectContext, retriever: Any) -> ProjectContext:
    """The context with the knowledge base's exact lookups: every mapping row by name, reference pages by symbol."""
    project.mappings = mapping_table_for(retriever)
    project.pages = pages_for(retriever)
    return project


def knowledge_context(retriever: Any) -> ProjectContext | None:
    """A context with no project files, only the knowledge base: what code outside a run (suggested code)
    is judged in, with the same index, mapping rows and script model as the run's chunks."""
    api = api_index_for(retriever)
    return with_knowledge_base(build_project_context({}, api), retriever) if api is not None else None


def snippet_context(path: str, code: str, kb: ProjectContext | None) -> ProjectContext | None:
    """`kb`'s knowledge base around one script of its own (its model types the snippet's receivers)."""
    if kb is None or kb.api is None:
        return None
    ctx = build_project_context({path: code}, kb.api)
    ctx.mappings, ctx.pages = kb.mappings, kb.pages
    return ctx


async def project_context_for(ctx: Any, run_id: str) -> ProjectContext:
    """The run's project context (built once per run from its stored files), with the API index."""
    if run_id in _RUNS:
        _RUNS.move_to_end(run_id)
        kept = _RUNS[run_id]
        if kept.api is not None:  # a resumed run may come through another service: its pool, not the closed one
            kept.pages = pages_for(ctx.retriever)
        return kept
    try:
        expansion = await ctx.store.load_expansion(run_id)
    except KeyError:  # a run stored without its intake: judge its chunks on their own
        files: dict[str, str] = {}
    else:
        files = {f.path: f.text or "" for f in expansion.files if f.included}
    api = await asyncio.to_thread(api_index_for, ctx.retriever)
    built = await asyncio.to_thread(build_project_context, files, api)  # a large project must not stall the loop
    if api is not None:
        await asyncio.to_thread(with_knowledge_base, built, ctx.retriever)
    _RUNS[run_id] = built
    while len(_RUNS) > _RUNS_KEPT:
        _RUNS.popitem(last=False)
    return built
