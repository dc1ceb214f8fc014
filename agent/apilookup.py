"""One API name looked up in both versions: which defines it, with what signature, and what replaces it in 4.x.

A front door's "is `move_and_slide` Godot 3 or 4?" is answered from what the judge itself reads: the API
index (`agent.apiindex`: a version defines a name when its class page documents it, not when a page
mentions it) and the api_mapping rows (`agent.retrieve.mapping_table`: what a finding cites). Both are read
once per database and looked up in memory here, so a lookup adds no query and cannot disagree with a verdict.
"""

from __future__ import annotations

import re

from typing import Literal

from pydantic import BaseModel, Field

from agent.apiindex import V3, V4, ApiEntry, ApiIndex
from agent.retrieve.mapping_table import MappingTable
from agent.retrieve.search import anchored_url

Version = Literal["3.4", "4.x"]
MAX_DEFINERS = 12
"""Classes listed per version for a bare member (`get_name` is defined by dozens)."""


class Definition(BaseModel):
    """Where one version's class reference defines the name."""

    version: Version
    class_name: str
    member: str = ""
    """Empty for the class itself."""
    kind: str
    signature: str = ""
    return_type: str = ""
    url: str
    """The class-reference page with the member's anchor."""
    evidence_id: str
    """The docs chunk that defines it (what a citation names)."""


class Replacement(BaseModel):
    """An api_mapping row about the name: what Godot 4 has instead, and how sure the knowledge base is."""

    mapping_id: str
    source_api: str
    target_api: str | None
    change_type: str
    status: str
    """candidate | approved (rejected rows are never shown)."""
    derived: bool
    """Derived from the API index (3.4 documents it, 4.x documents the target) rather than a documented change."""
    evidence_ids: list[str] = Field(default_factory=list)


class ApiLookup(BaseModel):
    """What the knowledge base knows about one name, per version."""

    name: str
    class_name: str | None
    member: str | None
    defined_in: list[Version]
    """Versions whose class reference defines the name (for a class's member, on the class or an ancestor)."""
    definitions: list[Definition]
    successors: list[str]
    """The 4.x names that replace it (from the mapping rows and the class renames), when it changed."""
    successor_definitions: list[Definition]
    """The 4.x definitions of those successors, with their signatures."""
    replacements: list[Replacement]
    forms: list[str] = Field(default_factory=list)
    """What the migration engine writes for it: a Godot 4 expression per call form (`{0}` the first argument,
    `{recv}` the receiver), or the change in words where the form needs a person."""


def _definition(entry: ApiEntry) -> Definition:
    return Definition(version=entry.version, class_name=entry.class_name, member=entry.member, kind=entry.kind,
                      signature=entry.signature, return_type=entry.return_type,
                      url=anchored_url(entry.source_url, entry.chunk_id), evidence_id=entry.chunk_id)


def split_name(index: ApiIndex, name: str) -> tuple[str | None, str | None]:
    """(class, member) of `Class.member`, `Class` (a class either version documents) or a bare `member`."""
    name = name.strip().removesuffix("()")
    if "." in name:
        cls, member = name.split(".", 1)
        return cls, member
    if name in index.class_names():
        return name, None
    return None, name


def _defined(index: ApiIndex, version: str, cls: str | None, member: str | None) -> list[ApiEntry]:
    if cls and member:
        first: dict[str, ApiEntry] = {}  # the nearest definition of each kind (a class's own before its ancestors')
        for e in index.all_lookup(version, cls, member):
            first.setdefault(e.kind, e)
        return list(first.values())
    if cls:
        entry = index.class_entry(version, cls)
        return [entry] if entry else []
    return index.definers(version, member or "")[:MAX_DEFINERS]


def lookup_api(index: ApiIndex, table: MappingTable | None, name: str, version: str = "both") -> ApiLookup:
    """Definitions per version (`version`: "3.4", "4" / "4.x" or "both"), the mapping rows and the 4.x successors."""
    cls, member = split_name(index, name)
    versions = {"3.4": [V3], "4": [V4], "4.x": [V4]}.get(version, [V3, V4])
    definitions = [_definition(e) for v in versions for e in _defined(index, v, cls, member)]
    exact = f"{cls}.{member}" if cls and member else (cls or member or "")
    rows = [r for r in (table.named([exact]) if table is not None else []) if r.status != "rejected"]
    successors = [r.target_api for r in rows if r.target_api and r.change_type != "removed"]
    renamed = index.class_renames.get(cls or "")
    if renamed:
        successors.append(f"{renamed}.{member}" if member else renamed)
    engine, forms = engine_successors(index, cls, member)
    successors = [s for s in dict.fromkeys([*successors, *engine]) if s != name]
    successor_definitions = []
    for s in successors:
        s_cls, s_member = split_name(index, s)
        successor_definitions += [_definition(e) for e in _defined(index, V4, s_cls, s_member)]
    return ApiLookup(
        name=name, class_name=cls, member=member,
        defined_in=sorted({d.version for d in definitions}),  # type: ignore[arg-type]
        definitions=definitions, successors=successors,
        successor_definitions=list({d.evidence_id: d for d in successor_definitions}.values()),
        replacements=[Replacement(mapping_id=r.mapping_id, source_api=r.source_api, target_api=r.target_api,
                                  change_type=r.change_type, status=r.status, derived=r.derived,
                                  evidence_ids=list(r.hit.metadata.get("evidence_chunk_ids") or []))
                      for r in rows],
        forms=forms,
    )


_CALLED = re.compile(r"(?:\b([A-Z]\w*)\.)?([a-z_]\w*)\(")


def _called(index: ApiIndex, text: str) -> list[str]:
    """The calls a form or note writes (`JSON.parse_string`, `tween_property`) that 4.x defines."""
    return [f"{c}.{m}" if c else m for c, m in _CALLED.findall(text)
            if (index.lookup(V4, c, m) if c else index.defined_anywhere(V4, m))]


def engine_successors(index: ApiIndex, cls: str | None, member: str | None) -> tuple[list[str], list[str]]:
    """(4.x names, forms) the migration engine knows for `cls.member` or a bare member: the member renames
    (the checker's `successor`), the call forms (agent/data/changes/calls.json), the Tween node's methods and the
    removed rows' notes. The names are those 4.x defines."""
    from agent import changes
    from agent.gdscript.checker import successor
    from agent.judge.templates import call_forms

    if not member:
        return [], []
    names: list[str] = []
    forms: list[str] = []
    target_cls = index.class_renames.get(cls or "", cls or "")
    if (new := successor(member, index, cls=target_cls if cls else "")) is not None:
        names.append(f"{target_cls}.{new}" if cls and index.lookup(V4, target_cls, new) else new)
    for api, row in call_forms().items():
        a_cls, _, a_member = api.rpartition(".")
        if a_member == member and (not cls or a_cls in (cls, "@GDScript", "@GlobalScope")):
            for n, form in sorted(row["forms"].items()):
                forms.append(form if n == "" else f"{form}  ({n} argument(s))")
                names += _called(index, form)
    tween = changes.syntax().tween_node  # the Tween node's interpolations: methods of create_tween()'s Tween
    if member in tween.interpolations and cls in (None, "Tween"):
        names.append(f"Tween.{tween.interpolations[member]}")
    if member in tween.ends and cls in (None, "Tween"):
        names.append(f"Tween.{tween.finished}")
    for r in changes.removed():
        if r.old == member and r.note and (not cls or not r.classes or cls in r.classes):
            forms.append(r.note)
            names += _called(index, r.note)
    qualified = {n.rsplit(".", 1)[-1] for n in names if "." in n}
    return list(dict.fromkeys(n for n in names if "." in n or n not in qualified)), list(dict.fromkeys(forms))
