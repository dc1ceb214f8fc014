"""The API index: which Godot version *defines* each (class, member, kind).

Built at ingest from the 3.4 XML reference and the 4.x class-reference chunks, stored in
`godot_rag.api_index` / `godot_rag.api_classes` (sql/040), and read back whole into an
`ApiIndex` for judging. A fact here is a definition (a class page documents the member),
never a mention: `Spatial` appears in five 4.x chunks and is defined by none.

Versions are "3.4" and "4.x". Signatures keep the argument count, how many arguments have
defaults, vararg and the return type; a 4.x property's setter and getter (listed under
Property Descriptions) are methods of their own, so `Input.get_mouse_mode` is a 4.x name.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

V3 = "3.4"
V4 = "4.x"
MEMBER_KINDS = ("method", "property", "signal", "constant", "enum", "theme-property", "annotation", "constructor")


def per_version_type(v3: str, v4: str) -> str:
    """A type the versions disagree on, as one name: `Physics2DDirectSpaceState|PhysicsDirectSpaceState2D`.

    Every lookup below reads a version's own side, so `space.intersect_ray(...)` is checked against
    the 3.4 class in 3.4 and the 4.x class in 4.x. An empty side means no class in that version.
    """
    return v3 if v3 == v4 else f"{v3}|{v4}"


def type_in(version: str, name: str) -> str:
    """The side of a per-version type that `version` uses (a plain name is the same in both)."""
    if "|" not in name:
        return name
    v3, _, v4 = name.partition("|")
    return v3 if version == V3 else v4


def type_label(name: str) -> str:
    """How a (possibly per-version) type reads in a rationale: the 3.4 side when there is one."""
    return type_in(V3, name) or type_in(V4, name)


@dataclass(frozen=True)
class ApiEntry:
    """One definition: `member` is empty for the class itself (kind `class`)."""

    version: str
    class_name: str
    member: str
    kind: str
    arg_count: int = 0
    default_count: int = 0
    vararg: bool = False
    return_type: str = ""
    accessor_of: str = ""
    """For a property's setter/getter: the property's name."""
    signature: str = ""
    chunk_id: str = ""
    source_url: str = ""

    @property
    def required_args(self) -> int:
        return self.arg_count - self.default_count

    @property
    def is_static(self) -> bool:
        """`Image create(...) static`: called on the class, returning a new object (4.x qualifiers)."""
        return bool(re.search(r"\)[\w\s]*\bstatic\b[\w\s]*$", self.signature))

    @property
    def later_minor(self) -> str:
        """"3.5" or "3.6" for a 3.x definition that 3.4 lacked (agent/ingest/minors.py), else ''."""
        m = re.search(r"\(Godot (3\.\d+)\)$", self.signature) if self.version == V3 else None
        return m.group(1) if m else ""

    def accepts(self, n: int) -> bool:
        """Whether a call with `n` arguments fits this signature."""
        return self.required_args <= n and (self.vararg or n <= self.arg_count)

    def as_row(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ClassEntry:
    """A class as one version documents it, with its parent."""

    version: str
    class_name: str
    inherits: str
    chunk_id: str = ""
    source_url: str = ""


# ---------------------------------------------------------------- building rows


def _split_args(args: str) -> list[str]:
    """Top-level arguments of a signature; a comma inside brackets or quotes (`delim: String = ","`) is no split."""
    out, depth, cur, quote = [], 0, [], ""
    for ch in args:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


_SIG = re.compile(r"^(?:(?P<ret>[\w@.]+(?:\[[\w@., ]+\])?) )?(?P<name>@?[A-Za-z_]\w*)\((?P<args>.*)\)(?P<q>(?: \w+)*)$")
_ACCESSOR = re.compile(r"^\s*[-*] (?P<ret>[\w.]+(?:\[[\w., ]+\])?) (?P<name>[A-Za-z_]\w*)\((?P<args>[^)]*)\)")
_ENUM_VALUE = re.compile(r"^(?P<type>[\w.]+) (?P<name>[A-Z_][A-Z0-9_]*) = `", re.M)
_CONST = re.compile(r"^(?P<name>[A-Z_][A-Z0-9_]*) = `")
_PROP = re.compile(r"^(?P<type>[\w.]+(?:\[[\w., ]+\])?) (?P<name>[A-Za-z_][\w/]*)")
_INHERITS = re.compile(r"^Inherits: ([^\n]+)", re.M)


def _sig_entry(version: str, cls: str, kind: str, first: str, chunk: dict) -> ApiEntry | None:
    m = _SIG.match(first.strip())
    if not m:
        return None
    args = _split_args(m.group("args"))
    real = [a for a in args if a != "..."]
    return ApiEntry(version, cls, m.group("name"), kind, arg_count=len(real),
                    default_count=sum(1 for a in real if "=" in a), vararg="vararg" in (m.group("q") or "") or "..." in args,
                    return_type=m.group("ret") or "", signature=first.strip(), chunk_id=chunk["chunk_id"],
                    source_url=chunk["source_url"])


def rows_from_chunks(chunks: Iterable[dict], version: str) -> tuple[list[ApiEntry], list[ClassEntry]]:
    """Definitions read off class-reference chunks (one chunk per member, as the chunker cuts pages)."""
    entries: list[ApiEntry] = []
    classes: list[ClassEntry] = []
    for c in chunks:
        if c.get("doc_type") != "class_reference":
            continue
        md = c.get("metadata") or {}
        title = md.get("page_title") or ""
        kind = md.get("member_kind")
        symbol = c.get("symbol") or ""
        content = c.get("content") or ""
        if md.get("window", 1) == 1 and kind is None and symbol == title and md.get("anchor", "").startswith("class-"):
            m = _INHERITS.search(content)
            parent = m.group(1).split("<")[0].strip() if m else ""
            classes.append(ClassEntry(version, title, parent, c["chunk_id"], c["source_url"]))
            entries.append(ApiEntry(version, title, "", "class", chunk_id=c["chunk_id"], source_url=c["source_url"]))
            continue
        if not kind or "." not in symbol:
            continue
        cls, name = symbol.split(".", 1)
        if kind == "enum":
            for ev in _ENUM_VALUE.finditer(content):
                entries.append(ApiEntry(version, cls, ev.group("name"), "constant", return_type=ev.group("type"),
                                        chunk_id=c["chunk_id"], source_url=c["source_url"]))
            if md.get("window", 1) == 1:
                entries.append(ApiEntry(version, cls, name, "enum", chunk_id=c["chunk_id"], source_url=c["source_url"]))
            continue
        if md.get("window", 1) != 1:
            continue
        first = content.split("\n", 1)[0]
        if kind in ("method", "signal", "annotation", "constructor"):
            e = _sig_entry(version, cls, kind, first, c)
            if e:
                entries.append(e)
        elif kind in ("property", "theme-property"):
            m = _PROP.match(first)
            entries.append(ApiEntry(version, cls, name, kind, return_type=m.group("type") if m else "",
                                    signature=first, chunk_id=c["chunk_id"], source_url=c["source_url"]))
            if kind == "property":
                for line in content.split("\n")[1:6]:
                    a = _ACCESSOR.match(line)
                    if a:
                        n = len(_split_args(a.group("args")))
                        entries.append(ApiEntry(version, cls, a.group("name"), "method", arg_count=n,
                                                return_type=a.group("ret"), accessor_of=name, signature=line.strip(" -*"),
                                                chunk_id=c["chunk_id"], source_url=c["source_url"]))
        elif kind == "constant":
            m = _CONST.match(first)
            if m:
                entries.append(ApiEntry(version, cls, m.group("name"), "constant", signature=first,
                                        chunk_id=c["chunk_id"], source_url=c["source_url"]))
        elif kind == "operator":
            continue
    return _unique(entries), classes


def is_constructor(e: ApiEntry) -> bool:
    """4.x lists constructors apart; 3.4 lists them as methods named as their class."""
    return e.kind == "constructor" or (e.kind == "method" and e.member == e.class_name)


def _unique(entries: list[ApiEntry]) -> list[ApiEntry]:
    """One definition per (class, member, kind), except constructors: each overload is its own."""
    seen: dict[tuple, ApiEntry] = {}
    for e in entries:
        overload = e.signature if is_constructor(e) else ""
        seen.setdefault((e.version, e.class_name, e.member, e.kind, overload), e)
    return list(seen.values())


# ---------------------------------------------------------------- the in-memory index


class ApiIndex:
    """Lookups over both versions' definitions, walking each version's inheritance chain."""

    COMPLETE_V4_CLASSES = 500
    """A 4.x side with fewer classes is a subset: absence from it proves nothing."""

    def __init__(self, entries: Iterable[ApiEntry], classes: Iterable[ClassEntry], *, complete_v4: bool | None = None,
                 class_renames: dict[str, str] | None = None):
        self._members: dict[tuple[str, str, str], list[ApiEntry]] = defaultdict(list)
        self._by_name: dict[tuple[str, str], list[ApiEntry]] = defaultdict(list)
        self._by_class: dict[tuple[str, str], list[ApiEntry]] = defaultdict(list)
        self._parents: dict[str, dict[str, str]] = defaultdict(dict)
        self._classes: dict[tuple[str, str], ApiEntry] = {}
        self._names: frozenset[str] | None = None
        self._shared_nodes: dict[str, str] | None = None
        self._guessed: set[str] = set()
        self._complete = complete_v4
        self.class_renames = dict(class_renames or {})
        """3.4 class -> its 4.x name, from the knowledge base's class-rename mappings (`AnimatedSprite` -> `AnimatedSprite2D`)."""
        for c in classes:
            self._parents[c.version][c.class_name] = c.inherits
        for e in entries:
            if e.kind == "class":
                self._classes[(e.version, e.class_name)] = e
                continue
            self._members[(e.version, e.class_name, e.member)].append(e)
            self._by_name[(e.version, e.member)].append(e)
            self._by_class[(e.version, e.class_name)].append(e)

    def __len__(self) -> int:
        return sum(len(v) for v in self._members.values()) + len(self._classes)

    @property
    def empty(self) -> bool:
        return not self._classes

    @property
    def complete_v4(self) -> bool:
        """Whether a class missing from the 4.x side is really gone (not just outside a corpus subset)."""
        if self._complete is None:
            self._complete = sum(1 for v, _ in self._classes if v == V4) >= self.COMPLETE_V4_CLASSES
        return self._complete

    def only_in_3(self, name: str) -> bool:
        """A class the 3.4 reference defines and a complete 4.x reference does not."""
        return self.complete_v4 and self.has_class(V3, name) and not self.has_class(V4, name)

    def versions(self) -> set[str]:
        return {v for v, _ in self._classes}

    def class_names(self) -> frozenset[str]:
        """Every class either version documents."""
        if self._names is None:
            self._names = frozenset(c for _, c in self._classes)
        return self._names

    def node_name_types(self) -> dict[str, str]:
        """What a node no scene types is, by its name: the class itself where both versions document it as
        a node (`Button`, `Timer`), the 3.4 class alone where 4.x has the name but not as a node (`Tween`:
        a Godot 4 node cannot be one), and the class per version where 4.x renamed it (`AnimatedSprite`
        is 3.4's AnimatedSprite and 4.x's AnimatedSprite2D: a converted Godot 4 project keeps the node's
        name, so only a member one side lacks says which version the code is)."""
        if self._shared_nodes is None:
            nodes = [c for v, c in self._classes if v == V3 and self.has_class(V4, c) and self.is_a(V3, c, "Node")]
            types = {c: c if self.is_a(V4, c, "Node") else per_version_type(c, "") for c in nodes}
            for old, new in self.class_renames.items():
                if self.only_in_3(old) and self.is_a(V3, old, "Node") and self.has_class(V4, new) \
                        and self.is_a(V4, new, "Node"):
                    types[old] = per_version_type(old, new)
                    self._guessed.add(types[old])
            self._shared_nodes = types
        return self._shared_nodes

    def named_by_another_node(self, version: str, name_type: str, member: str, kinds: Iterable[str] | None) -> bool:
        """Whether a node named after a renamed class (`$Light`, typed `Light|Light3D`) may be another node
        class of `version` that has `member`: a Godot 4 `$Light` may be a PointLight2D with `shadow_color`.
        Then the name proves nothing about `member`. False for types not read off a node's name."""
        if name_type not in self._guessed:
            return False
        side = self.chain(version, type_in(version, name_type))
        return any(e.class_name not in side and self.is_a(version, e.class_name, "Node")
                   for e in self.definers(version, member, kinds))

    def has_class(self, version: str, name: str) -> bool:
        return (version, type_in(version, name)) in self._classes

    def class_entry(self, version: str, name: str) -> ApiEntry | None:
        return self._classes.get((version, type_in(version, name)))

    def chain(self, version: str, name: str) -> list[str]:
        """`name` and its ancestors in `version` (just `[name]` when the class is unknown there)."""
        out = [type_in(version, name)]
        parents = self._parents.get(version, {})
        while (p := parents.get(out[-1])) and p not in out and len(out) < 40:
            out.append(p)
        return out

    def is_a(self, version: str, name: str, ancestor: str) -> bool:
        return ancestor in self.chain(version, name)

    def lookup(self, version: str, cls: str, member: str, kinds: Iterable[str] | None = None) -> ApiEntry | None:
        """The definition `cls` (or an ancestor) has for `member` in `version`, if any."""
        wanted = set(kinds) if kinds else None
        for c in self.chain(version, cls):
            for e in self._members.get((version, c, member), ()):
                if wanted is None or e.kind in wanted:
                    return e
        return None

    def all_lookup(self, version: str, cls: str, member: str, kinds: Iterable[str] | None = None) -> list[ApiEntry]:
        wanted = set(kinds) if kinds else None
        return [e for c in self.chain(version, cls) for e in self._members.get((version, c, member), ())
                if wanted is None or e.kind in wanted]

    def members_of(self, version: str, cls: str) -> list[ApiEntry]:
        """What `cls` itself (not its ancestors) defines in `version`, in document order."""
        return list(self._by_class.get((version, type_in(version, cls)), ()))

    def defined_anywhere(self, version: str, member: str, kinds: Iterable[str] | None = None) -> bool:
        wanted = set(kinds) if kinds else None
        return any(wanted is None or e.kind in wanted for e in self._by_name.get((version, member), ()))

    def defined_below(self, version: str, cls: str, member: str, kinds: Iterable[str] | None = None) -> bool:
        """Whether a subclass of `cls` defines `member`: a value typed `Viewport` may be a `Window` with `size`."""
        base = type_in(version, cls)
        return any(e.class_name != base and self.is_a(version, e.class_name, base)
                   for e in self.definers(version, member, kinds))

    def definers(self, version: str, member: str, kinds: Iterable[str] | None = None) -> list[ApiEntry]:
        wanted = set(kinds) if kinds else None
        return [e for e in self._by_name.get((version, member), ()) if wanted is None or e.kind in wanted]


# ---------------------------------------------------------------- storage

_ENTRY_COLS = ("version", "class_name", "member", "kind", "arg_count", "default_count", "vararg", "return_type",
               "accessor_of", "signature", "chunk_id", "source_url")


def store_index(conn, entries: list[ApiEntry], classes: list[ClassEntry]) -> None:
    """Replace both tables in one transaction (cheap: no embeddings; the index is derived data)."""
    with conn.transaction():
        conn.execute("DELETE FROM godot_rag.api_index")
        conn.execute("DELETE FROM godot_rag.api_classes")
        with conn.cursor() as cur:
            with cur.copy(f"COPY godot_rag.api_index ({', '.join(_ENTRY_COLS)}) FROM STDIN") as copy:
                for e in entries:
                    copy.write_row(tuple(getattr(e, c) for c in _ENTRY_COLS))
            with cur.copy("COPY godot_rag.api_classes (version, class_name, inherits, chunk_id, source_url) FROM STDIN") as copy:
                for c in classes:
                    copy.write_row((c.version, c.class_name, c.inherits, c.chunk_id, c.source_url))
    _CACHE.clear()


def read_index(conn) -> ApiIndex:
    """Both tables, plus the class renames of `api_mapping` (the ingest stores those before the index)."""
    rows = conn.execute(f"SELECT {', '.join(_ENTRY_COLS)} FROM godot_rag.api_index").fetchall()
    entries = [ApiEntry(**{c: r[c] for c in _ENTRY_COLS}) for r in rows]
    crow = conn.execute("SELECT version, class_name, inherits, chunk_id, source_url FROM godot_rag.api_classes").fetchall()
    classes = [ClassEntry(r["version"], r["class_name"], r["inherits"], r["chunk_id"], r["source_url"]) for r in crow]
    renames = conn.execute(
        "SELECT source_api, target_api FROM godot_rag.api_mapping WHERE change_type = 'rename'"
        " AND status <> 'rejected' AND provenance->>'kind' = 'class' AND target_api IS NOT NULL"
        " ORDER BY confidence = 'verified_from_docs', mapping_id").fetchall()  # the docs' word last: it wins
    return ApiIndex(entries, classes, class_renames={r["source_api"]: r["target_api"] for r in renames})


_CACHE: dict[str, ApiIndex] = {}
_LOCK = threading.Lock()


def cached_index(key: str, conn_factory) -> ApiIndex:
    """One index per database (`key`), read once per process; `store_index` drops the cache."""
    with _LOCK:
        if key not in _CACHE:
            with conn_factory() as conn:
                _CACHE[key] = read_index(conn)
        return _CACHE[key]
