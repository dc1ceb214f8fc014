"""What every finding rule shares: the records, the context a rule reads, and the role and receiver helpers.

A rule module imports from here (and from `arguments`), never from another rule, so each reads alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from agent.retrieve.mapping_table import MappingRow, row_of
from agent.apiindex import V3, V4, type_label
from agent.judge.lexer import Lexed
from agent.judge.project import ProjectContext
from agent.judge.receivers import NamedUse, Scope, receiver_type, role_at
from agent.judge.syntax_rules import SyntaxRule
from agent.models import Chunk, EvidenceBundle, RetrievalHit

GD_CUES = re.compile(r"^\s*(func\s+\w+\s*\(.*\)\s*(->\s*\w+\s*)?:|extends\s+\w+|@\w+|signal\s+\w+)",
                     re.MULTILINE)
"""Lines only GDScript writes (a typed `func` head, `extends`, an annotation, a `signal`)."""


@dataclass
class Finding:
    """One version cue found in code position."""

    version: Literal["godot3", "godot4"]
    kind: Literal["syntax", "api"]
    name: str
    text: str
    line: int
    rule: SyntaxRule | None = None
    mapping: RetrievalHit | None = None
    start: int = -1
    """Offset of the match in the chunk's code_text (to cut out the whole call or statement)."""
    weak: bool = False
    """An unresolved receiver whose member no 4.x class defines: lowers confidence, never the verdict alone."""
    receiver: str | None = None
    """The resolved type the member was used on, when known."""
    named_at: int = -1
    """Offset of the opening quote when the member is named by a string (`call_deferred("update")`)."""
    edit: tuple[int, int, str] | None = None
    """A typed edit of the chunk's code (start, end, replacement) that is this finding's whole fix."""
    signal_gone: str | None = None
    """`SceneTree.network_peer_connected`: the signal a string `connect` names, which the receiver's 4.x class lacks."""


@dataclass
class CodeFacts:
    """What the chunk's code contains, independent of any judge."""

    lexed: Lexed
    is_gdscript: bool
    identifiers: set[str]
    declared: set[str]
    godot3: list[Finding] = field(default_factory=list)
    godot4: list[Finding] = field(default_factory=list)
    unsafe: list[str] = field(default_factory=list)
    noise: list[str] = field(default_factory=list)
    scope: Scope | None = None
    named: list[NamedUse] = field(default_factory=list)
    """Members named by string literals (`call_deferred("change_scene", p)`), in code order."""

    @property
    def godot3_syntax(self) -> list[Finding]:
        return [f for f in self.godot3 if f.kind == "syntax"]

    @property
    def godot3_api(self) -> list[Finding]:
        return [f for f in self.godot3 if f.kind == "api"]

    @property
    def godot3_strong(self) -> list[Finding]:
        """Godot 3 API findings that may decide a verdict (weak ones only add to one)."""
        return [f for f in self.godot3 if f.kind == "api" and not f.weak]

    @property
    def has_godot_cues(self) -> bool:
        return bool(self.godot3 or self.godot4 or GD_CUES.search(self.lexed.masked))


MemberUse = tuple[re.Match[str], str, str, str]
"""(match of `.member`, receiver class, member, role)."""


@dataclass
class FindContext:
    """What a rule reads: the chunk, its facts so far (lexed, declared names, scope), evidence and project.

    Rules read the facts and never write their finding lists; the orchestrator does that.
    """

    chunk: Chunk
    facts: CodeFacts
    evidence: EvidenceBundle
    project: ProjectContext | None = None

    @property
    def chunk_file(self) -> str:
        return self.chunk.source_file

    @cached_property
    def mapping_rows(self) -> list[MappingRow]:
        """The evidence's api_mapping rows, each parsed once into its typed record, in evidence order."""
        return [row_of(h) for h in self.evidence.api_mapping_evidence]

    @cached_property
    def member_uses(self) -> list[MemberUse]:
        """Resolved `.member` uses, computed once per chunk: call_form and godot4_cues both read them."""
        return resolved_member_uses(self.facts, self.project)


MAX_USES_PER_RULE = 12
"""Every Godot 3 use becomes its own migration item (each line that must change), up to this many per rule
or API and chunk; one Godot 4 use per rule is enough for a verdict."""

ROLE_KINDS = {"call": ("method",), "property": ("property",), "signal": ("signal",),
              "constant": ("constant", "enum")}
"""The kinds a use in a role can be. A theme item is no `.name` property: `panel.margin_left` is not
MarginContainer's theme constant."""
GLOBAL_SCOPES = ("@GlobalScope", "@GDScript")

MEMBER_USE = re.compile(r"\.\s*([A-Za-z_]\w*)\b")


def own_class(chunk: Chunk, project: ProjectContext | None) -> str | None:
    """The class the chunk's script extends: the project's resolved chain, else the file's `extends`."""
    if project is not None and project.script_class(chunk.source_file):
        return project.script_class(chunk.source_file)
    m = re.search(r"^\s*extends\s+([A-Za-z_]\w*)", f"{chunk.surrounding_context}\n{chunk.code_text}", re.M)
    return m.group(1) if m else None


def line_of(text: str, offset: int) -> int:
    """1-based line of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1


def derived_from_index(md: dict) -> bool:
    """A row the API index derived (what only 3.4 documents): it says a name is gone, not what a change is."""
    return (md.get("provenance") or {}).get("source") == "api_index"


def without_derived(evidence: EvidenceBundle) -> EvidenceBundle:
    """The bundle with only the curated and converter mappings (the rows that document a change)."""
    return evidence.model_copy(update={"api_mapping_evidence": [
        h for h in evidence.api_mapping_evidence if not derived_from_index(h.metadata)]})


def signal_renames(facts: CodeFacts) -> dict[str, str]:
    """`hide` -> `hidden`: the signal renames among the chunk's Godot 3 API findings (signal uses only)."""
    out: dict[str, str] = {}
    for f in facts.godot3_api:
        if f.mapping is None:
            continue
        row = row_of(f.mapping)
        new = str(row.target_api or "").rsplit(".", 1)[-1]
        if row.roles == ("signal",) and "." not in f.name and new.isidentifier():
            out[f.name] = new
    return out


def own_name(facts: CodeFacts, member: str, receiver: str | None) -> bool:
    """A `.member` the script declares, on a receiver that may be the script itself.

    `other.save()` may call the script's own `func save()`; `new_queue.remove(i)` on an Array
    literal is Array's, whatever the script declares.
    """
    own = facts.scope.own_class if facts.scope else None
    return member in facts.declared and (receiver is None or receiver == own)


def project_declares(project: ProjectContext | None, name: str) -> bool:
    """The project names `name` itself: a script's function, variable, constant, signal, enum or inner class,
    a `class_name`, or an autoload (open-rpg's `Camera`, Pixelorama's `enum Tabs`)."""
    return project is not None and name in project.own_names


def is_dictionary(receiver: str | None) -> bool:
    """A Dictionary's `.key` reads a key, never a class member (in either version)."""
    return bool(receiver) and type_label(receiver) == "Dictionary"


def in_scope(project: ProjectContext | None, receiver: str | None, row: MappingRow, role: str) -> bool:
    """Whether a class-scoped rename may apply to a use on `receiver` (unknown receivers: yes, as before).

    Out of its classes, a rename still applies where the index shows the same change on the receiver:
    its 3.4 class has the old member and its 4.x class the new one (`empty -> is_empty` is listed for
    Array; a String changed the same way).
    """
    api = project.api if project else None
    if api is None or receiver is None or not row.classes:
        return True
    if any(api.is_a(V3, receiver, c) or api.is_a(V4, receiver, c) for c in row.classes):
        return True
    source, target = row.source_api, str(row.target_api or "")
    if "." in source or not target or not re.fullmatch(r"\w+", target):
        return False
    kinds = ROLE_KINDS.get(role)
    return (api.lookup(V3, receiver, source, kinds) is not None
            and api.lookup(V4, receiver, target, kinds) is not None)


def _engine_class_before(masked: str, dot: int, api, declared: set[str]) -> bool:
    """The receiver before `dot` is an engine class by name (`ResourceSaver.save`), not the script's own."""
    m = re.search(r"(?<![\w.$%@])([A-Z]\w*)\s*$", masked[:dot])
    name = m.group(1) if m else ""
    return bool(name) and name not in declared and (api.has_class(V3, name) or api.has_class(V4, name))


def resolved_member_uses(facts: CodeFacts, project: ProjectContext | None) -> list[MemberUse]:
    """(match, receiver, member, role) for each `.member` whose receiver is a class both versions document.

    `self.x` and members the script declares are left out: the script may define them itself.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    out: list[MemberUse] = []
    for m in MEMBER_USE.finditer(masked):
        member = m.group(1)
        if masked[max(0, m.start() - 4) : m.start()] == "self":
            continue
        receiver = receiver_type(text, masked, m.start(), facts.scope)
        if own_name(facts, member, receiver) \
                and not _engine_class_before(masked, m.start(), api, facts.declared):
            continue  # `other.save()` may be the script's own `func save()`; `ResourceSaver.save()` is not
        if receiver is None or not (api.has_class(V3, receiver) and api.has_class(V4, receiver)):
            continue
        role = role_at(masked, m.end())
        if any(api.named_by_another_node(v, receiver, member, ROLE_KINDS.get(role)) for v in (V3, V4)):
            continue  # a Godot 3 `$Camera` may be a Camera2D with `position`: the name proves nothing
        out.append((m, receiver, member, role))
    return out
