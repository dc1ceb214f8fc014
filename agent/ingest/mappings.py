"""api_mapping records: migration-page facts, the converter rename tables, curated syntax changes.

Every generated row is `candidate` (or `rejected` for rename rows the converter disables
and the docs do not confirm). Only a person promotes a row to `approved` (see review.py),
and the store never overwrites that decision.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from agent.ingest.corpus import Issue
from agent.ingest.evidence import EvidenceIndex
from agent.settings import PROJECT_ROOT

SYNTAX_FILE = PROJECT_ROOT / "agent" / "data" / "syntax_changes.json"
RENAMES_SUPPLEMENT_FILE = PROJECT_ROOT / "agent" / "data" / "renames_supplement.json"
PREFIX = "godot3-to-4"

TABLE_KIND = {
    "enum_renames": "enum",
    "gdscript_function_renames": "method",
    "csharp_function_renames": "csharp-method",
    "gdscript_properties_renames": "property",
    "csharp_properties_renames": "csharp-property",
    "gdscript_signals_renames": "signal",
    "csharp_signals_renames": "csharp-signal",
    "project_settings_renames": "project-setting",
    "project_godot_renames": "project-godot",
    "input_map_renames": "input-map",
    "builtin_types_renames": "builtin-type",
    "shaders_renames": "shader",
    "class_renames": "class",
    "color_renames": "color",
    "theme_override_renames": "theme-override",
}
_HEADING_KIND = {
    "Methods": "method", "Properties": "property", "Enums": "enum", "Signals": "signal",
    "Constants": "constant", "Updating shaders": "shader", "Automatically renamed nodes and resources": "class",
}
_SUBJECT = r"(?P<subj>[A-Z][\w]*(?:(?:, | and )[A-Z][\w]*)*)(?:'s|')"
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(_SUBJECT + r" `(?P<old>[^`]+)`(?: (?:property|method|signal))? is now `(?P<new>[^`]+)`"), "rename"),
    (re.compile(_SUBJECT + r" `(?P<old>[^`]+)`(?: (?:property|method))? was inverted and renamed to `(?P<new>[^`]+)`"), "behavior_change"),
    (re.compile(_SUBJECT + r" `(?P<old>[^`]+)`(?: (?:property|method))? was replaced by `(?P<new>[^`]+)`"), "behavior_change"),
    (re.compile(r"(?<![\w'])`(?P<old>[^`]+)` is now `(?P<new>[^`]+)`"), "rename"),
    (re.compile(r"`(?P<old>[^`]+)` (?:is no longer used and )?should be converted to `(?P<new>[^`]+)`"), "rename"),
    (re.compile(r"`(?P<old>[^`]+)` becomes `(?P<new>[^`]+)`"), "rename"),
]


@dataclass
class MappingDraft:
    """One mapping before it becomes a JSONL record."""

    kind: str
    source_api: str
    target_api: str | None
    change_type: str
    classes: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    match_terms: list[str] = field(default_factory=list)
    negative_patterns: list[str] = field(default_factory=list)
    from_docs: bool = False
    rejected_reason: str | None = None
    provenance: dict = field(default_factory=dict)
    key: str | None = None


def _api(name: str) -> str:
    return name.strip().removesuffix("()").strip()


def _slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9@_./]+", "-", text.lower()).strip("-")
    return s.replace("_", "-").replace("/", "-").replace(".", "-") or "x"


def _last(name: str) -> str:
    return _api(name).rsplit(".", 1)[-1].lower()


# ---------------------------------------------------------------- (a) docs


def docs_mappings(chunks: list[dict]) -> list[MappingDraft]:
    """Rename tables and "X's `a` is now `b`" bullets from the Godot 3 -> 4 migration page."""
    out: list[MappingDraft] = []
    for c in chunks:
        if c["doc_type"] != "migration" or "3.x" not in c.get("godot_version_tags", []):
            continue
        heading = c.get("heading") or ""
        kind_hint = _HEADING_KIND.get(heading)
        header = None
        for line in c["content"].split("\n"):
            if " | " in line and not line.startswith("- "):
                cells = [x.strip() for x in line.split(" | ")]
                if header is None or cells[0] in ("Old name (Godot 3.x)", "Removed node"):
                    header = cells
                    continue
                if header[0].startswith("Old name") and len(cells) >= 2 and re.fullmatch(r"\w+", cells[0]):
                    out.append(MappingDraft("class", cells[0], cells[1], "rename", evidence=[c["chunk_id"]], from_docs=True))
                elif header[0] == "Removed node" and len(cells) >= 2 and re.fullmatch(r"\w+", cells[0]):
                    note = cells[2] if len(cells) > 2 else ""
                    for target in re.split(r"\s+or\s+", cells[1]):
                        out.append(MappingDraft(
                            "removed", cells[0], target.strip(), "removed", evidence=[c["chunk_id"]], from_docs=True,
                            notes=["removed node; closest approximation in Godot 4 is " + target.strip()]
                            + ([note] if note else []),
                        ))
                continue
            for rx, change in _PATTERNS:
                for m in rx.finditer(line):
                    old, new = _api(m.group("old")), _api(m.group("new"))
                    if not old or not new or old == new or " " in old:
                        continue
                    subj = m.groupdict().get("subj") or ""
                    classes = re.findall(r"[A-Z]\w+", subj)
                    kind = kind_hint or _guess_kind(m.group("old"))
                    if heading.startswith("Updating scripts"):
                        kind = _guess_kind(m.group("old"))
                    out.append(MappingDraft(kind, old, new, change, classes=classes, evidence=[c["chunk_id"]], from_docs=True))
                if any(rx.search(line) for rx, _ in _PATTERNS):
                    break
    return _dedupe(out)


def _guess_kind(raw: str) -> str:
    name = _api(raw)
    if raw.strip().endswith(")"):
        return "method"
    if re.fullmatch(r"[A-Z][A-Z0-9_]+", name.rsplit(".", 1)[-1]):
        return "constant"
    if re.fullmatch(r"[A-Z]\w*", name):
        return "class"
    return "property"


def _dedupe(drafts: list[MappingDraft]) -> list[MappingDraft]:
    seen: dict[tuple, MappingDraft] = {}
    for d in drafts:
        key = (d.kind, d.source_api, d.target_api, tuple(d.classes))
        if key in seen:
            seen[key].evidence.extend(e for e in d.evidence if e not in seen[key].evidence)
        else:
            seen[key] = d
    return list(seen.values())


# ---------------------------------------------------------------- (b) converter tables


def renames_mappings(renames_file: Path | None, issues: list[Issue]) -> list[MappingDraft]:
    """Every row of renames_3_to_4.json; disabled rows carry the converter's reason."""
    if renames_file is None:
        issues.append(Issue("warning", "api_mapping", "no renames file; converter tables skipped"))
        return []
    try:
        data = json.loads(Path(renames_file).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        issues.append(Issue("error", "api_mapping", "renames file unreadable", detail=f"{renames_file}: {exc}"))
        return []
    out: list[MappingDraft] = []
    for table, rows in data.get("tables", {}).items():
        kind = TABLE_KIND.get(table, table.removesuffix("_renames").replace("_", "-"))
        for idx, row in enumerate(rows):
            old, new = str(row.get("old", "")), str(row.get("new", ""))
            if not old:
                continue
            classes = [c.strip() for c in str(row.get("classes", "")).split(",") if c.strip()]
            note = str(row.get("note", "") or "")
            d = MappingDraft(
                kind, old, new, "rename", classes=classes,
                provenance={"source": "renames_3_to_4.json", "table": table, "row": idx, "enabled": bool(row.get("enabled", True))},
            )
            if note:
                d.notes.append("converter note: " + note)
            if not row.get("enabled", True):
                d.rejected_reason = "the project converter does not apply this rename automatically" + (f": {note}" if note else "")
            out.append(d)
    return out


def merge_docs_into_renames(docs: list[MappingDraft], renames: list[MappingDraft]) -> list[MappingDraft]:
    """A converter row the docs also state becomes verified_from_docs; docs-only rows stay on their own."""
    index: dict[tuple[str, str], list[MappingDraft]] = {}
    for r in renames:
        if r.target_api:
            index.setdefault((_last(r.source_api), _last(r.target_api)), []).append(r)
    extra: list[MappingDraft] = []
    for d in docs:
        partners = index.get((_last(d.source_api), _last(d.target_api or ""))) if d.change_type == "rename" else None
        if d.kind == "class" and partners:
            partners = [p for p in partners if p.kind in ("class", "builtin-type")] or partners
        if partners:
            for p in partners:
                if d.classes and p.classes and not set(d.classes) & set(p.classes) and len(partners) > 1:
                    continue
                p.from_docs = True
                p.evidence.extend(e for e in d.evidence if e not in p.evidence)
        else:
            extra.append(d)
    return renames + extra


# ---------------------------------------------------------------- (c) curated syntax / removed / behaviour


def curated_mappings(index: EvidenceIndex, issues: list[Issue], path: Path = SYNTAX_FILE) -> list[MappingDraft]:
    """GDScript syntax changes and removed APIs from agent/data/syntax_changes.json, evidence resolved."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: list[MappingDraft] = []
    for entry in data["changes"]:
        ids, missing = index.resolve_all(entry.get("evidence", []))
        for spec in missing:
            issues.append(Issue("warning", "api_mapping", "evidence not in this corpus", record_id=entry["key"], detail=json.dumps(spec)))
        out.append(MappingDraft(
            kind="syntax" if entry["change_type"] == "syntax_change" else entry["change_type"].replace("_", "-"),
            source_api=entry["source_api"],
            target_api=entry.get("target_api"),
            change_type=entry["change_type"],
            evidence=ids,
            notes=[entry.get("notes", "")],
            match_terms=list(entry.get("match_terms", [])),
            negative_patterns=list(entry.get("negative_patterns", [])),
            from_docs=bool(ids),
            provenance={"source": "agent/data/syntax_changes.json", "key": entry["key"]},
            key=entry["key"],
        ))
    return out


# ---------------------------------------------------------------- records


def mapping_id(d: MappingDraft) -> str:
    """Deterministic id: kind, old and new name, and the class scope when there is one."""
    if d.key:
        return f"{PREFIX}:{d.kind}:{d.key}"
    base = f"{PREFIX}:{d.kind}:{_slug(d.source_api)}-to-{_slug(d.target_api or 'removed')}"
    if d.classes:
        base += "@" + "-".join(_slug(c) for c in d.classes)
    return base


def to_records(drafts: list[MappingDraft], converter_version: str) -> list[dict]:
    """JSONL records; a repeated id (duplicate source rows) gets a numeric suffix."""
    records: list[dict] = []
    used: dict[str, int] = {}
    for d in drafts:
        mid = mapping_id(d)
        n = used.get(mid, 0)
        used[mid] = n + 1
        if n:
            mid = f"{mid}-{n + 1}"
        verified = d.from_docs and bool(d.evidence)
        status = "rejected" if (d.rejected_reason and not verified) else "candidate"
        notes = list(d.notes)
        if d.classes:
            notes.insert(0, "applies to " + ", ".join(d.classes))
        if d.rejected_reason:
            notes.append(("rejected: " if status == "rejected" else "docs confirm it, but ") + d.rejected_reason)
        terms = d.match_terms or _match_terms(d)
        negatives = d.negative_patterns or _negatives(d)
        records.append({
            "mapping_id": mid,
            "source_api": d.source_api,
            "target_api": d.target_api,
            "change_type": d.change_type,
            "godot_from": "3.x",
            "godot_to": "4.x",
            "confidence": "verified_from_docs" if verified else "candidate",
            "status": status,
            "evidence_chunk_ids": list(d.evidence),
            "match_terms": terms,
            "notes": "; ".join(n for n in notes if n),
            "negative_patterns": negatives,
            "provenance": {**d.provenance, "kind": d.kind, "classes": d.classes, "converter_version": converter_version},
            "search_text": " ".join(dict.fromkeys([d.source_api, d.target_api or "", *terms, *d.classes]))[:400].strip(),
        })
    return records


def _match_terms(d: MappingDraft) -> list[str]:
    terms = [d.source_api]
    terms += [f"{c}.{d.source_api}" for c in d.classes if "." not in d.source_api]
    if "." in d.source_api:
        terms.append(d.source_api.rsplit(".", 1)[-1])
    return list(dict.fromkeys(t for t in terms if t))


def _negatives(d: MappingDraft) -> list[str]:
    if d.change_type == "unchanged" or not d.target_api or d.target_api == d.source_api:
        return []
    if d.kind in ("method", "csharp-method"):
        return [f"{d.source_api}("]
    return [d.source_api]


def build_mappings(
    chunks: list[dict], renames_file: Path | None, converter_version: str, issues: list[Issue], api_index=None
) -> list[dict]:
    """All api_mapping records of this run, in a stable order (derived ones only with a 3.4 index)."""
    index = EvidenceIndex(chunks)
    drafts = merge_docs_into_renames(docs_mappings(chunks), renames_mappings(renames_file, issues))
    drafts += curated_mappings(index, issues)
    if api_index is not None and "3.4" in api_index.versions():
        drafts += derived_mappings(api_index, renames_file, issues)
    return to_records(drafts, converter_version)


# ---------------------------------------------------------------- (d) derived from the API index

_DERIVED_TABLES = {"method": "gdscript_function_renames", "property": "gdscript_properties_renames",
                   "signal": "gdscript_signals_renames", "constant": "enum_renames"}
_DERIVED_KINDS = ("method", "property", "signal", "constant")
_GLOBALS = ("@GlobalScope", "@GDScript")


def _rename_rows(renames_file: Path | None) -> dict[str, list[dict]]:
    """The converter's tables plus the committed supplement (rows tagged with where they come from)."""
    tables: dict[str, list[dict]] = {}
    if renames_file is not None and Path(renames_file).is_file():
        try:
            tables = json.loads(Path(renames_file).read_text(encoding="utf-8")).get("tables", {})
        except (OSError, json.JSONDecodeError):
            pass  # renames_mappings already reported it
    tables = {t: [{**r, "from": "converter"} for r in rows] for t, rows in tables.items()}
    supplement = json.loads(RENAMES_SUPPLEMENT_FILE.read_text(encoding="utf-8"))
    unused = {str(r["old"]) for r in supplement.get("disabled_rows_not_used", [])}
    tables = {t: [r for r in rows if r.get("enabled", True) or r.get("old") not in unused] for t, rows in tables.items()}
    for table, rows in supplement["tables"].items():
        tables.setdefault(table, []).extend({**r, "from": "supplement"} for r in rows)
    return tables


def _usable(row: dict) -> bool:
    """A rename row the derivation may use.

    The converter disables rows whose blind text replacement would break other classes
    (`set_margin` is also Shape3D's). A derived candidate is scoped to the row's classes and
    checked against the 4.x index, so a disabled row is used when it names its classes.
    """
    return bool(row.get("old") and row.get("new")) and (
        row.get("enabled", True) or bool(str(row.get("classes", "")).strip()))


def _class_targets(tables: dict[str, list[dict]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for table in ("class_renames", "builtin_types_renames"):
        for row in tables.get(table, []):
            if row.get("enabled", True) and row.get("old") and row.get("new"):
                out.setdefault(str(row["old"]), str(row["new"]))
    return out


def derived_mappings(index, renames_file: Path | None, issues: list[Issue]) -> list[MappingDraft]:
    """Candidates for what 3.4 documents and 4.x does not (all stay `candidate` until reviewed).

    A class absent from 4.x gets its rename-table target, else `removed`; a member absent from
    its class's 4.x counterpart gets the member rename (when 4.x defines the target), else the
    same member on the renamed class (`signature_change` when the arguments differ), else
    `removed`. Each cites the 3.4 chunk and the 4.x chunk where one exists. `removed` for a
    whole class is only claimed when the 4.x reference looks complete (a subset proves nothing).
    """
    from agent.apiindex import V3, V4, is_constructor

    tables = _rename_rows(renames_file)
    classes4 = _class_targets(tables)
    # a class rename the converter switched off ("World -> World3D: too common") is no removal either
    disabled = {str(r.get("old")) for t in ("class_renames", "builtin_types_renames")
                for r in tables.get(t, []) if not r.get("enabled", True)}
    member_rows: dict[str, dict[str, list[dict]]] = {}
    for kind, table in _DERIVED_TABLES.items():
        for row in tables.get(table, []):
            if _usable(row):
                member_rows.setdefault(kind, {}).setdefault(str(row["old"]), []).append(row)
    names3 = sorted(c for v, c in index._classes if v == V3)
    kept = [c for c in names3 if c not in classes4]
    found = sum(1 for c in kept if index.has_class(V4, c))
    complete = found >= 0.8 * max(1, len(kept))
    if not complete:
        issues.append(Issue("info", "api_mapping", "4.x class reference looks partial; no class is derived as removed",
                            detail=f"{found} of {len(kept)} unrenamed 3.4 classes have a 4.x page"))
    out: list[MappingDraft] = []
    for cls in names3:
        entry3 = index.class_entry(V3, cls)
        if cls.startswith("@"):
            target_cls = cls
        elif index.has_class(V4, cls):
            target_cls = cls
        else:
            target_cls = classes4.get(cls, "")
            c4 = index.class_entry(V4, target_cls) if target_cls else None
            if not target_cls and complete and cls not in disabled:  # renamed: the converter's rows already
                out.append(MappingDraft(
                    "class", cls, target_cls or None, "rename" if target_cls else "removed",
                    evidence=[e for e in (entry3.chunk_id, c4.chunk_id if c4 else "") if e],
                    notes=["derived from the API index: 3.4 documents this class, 4.x does not"],
                    provenance={"source": "api_index", "derived": True}, key=f"derived-{_slug(cls)}",
                ))
        if not target_cls or not index.has_class(V4, target_cls):
            continue  # members of a class 4.x does not document here cannot be compared
        for e3 in index.members_of(V3, cls):
            if e3.kind not in _DERIVED_KINDS or is_constructor(e3):
                continue  # 4.x lists constructors apart; a call's form is checked against both overload sets
            draft = _derived_member(index, cls, target_cls, e3, member_rows.get(e3.kind, {}))
            if draft:
                out.append(draft)
    return out


def _through_getter(index, cls: str, cls4: str, e3):
    """A 3.4 property 4.x no longer lists, found again through its 3.4 getter (target, change type, 4.x entry).

    The getter is the engine's name for the same value: `TouchScreenButton.pressed` (getter
    `get_texture_pressed`) is 4.x's `texture_pressed`, whose getter that is; the read-only
    `KinematicCollision2D.collider` (getter `get_collider`) is only a method in 4.x, so the code reads
    `collision.get_collider()`. An indexed accessor (`get_param(param)` behind every `ParticlesMaterial`
    parameter) names no one value and proves nothing; a getter method alone serves only a property
    nobody sets (`camera.current = true` is `make_current()`, not `is_current()`).
    """
    from agent.apiindex import V3, V4

    accessors = [e for e in index.members_of(V3, cls) if e.kind == "method" and e.accessor_of == e3.member]
    for getter in (e.member for e in accessors if e.arg_count == 0):
        found = index.all_lookup(V4, cls4, getter, ("method",))
        if any(e.required_args for e in found):
            continue  # an indexed accessor somewhere up the chain (`Light3D.get_param(param)`)
        props = {e.accessor_of for e in found if e.accessor_of}
        if len(props) == 1:
            e4 = index.lookup(V4, cls4, next(iter(props)), ("property",))
            if e4:
                return f"{e4.class_name}.{e4.member}", "rename", e4
            continue
        plain = next((e for e in found if not e.accessor_of), None)
        read_only = not any(s.arg_count > 0 for s in accessors)
        if plain and not props and read_only:
            return f"{plain.class_name}.{getter}()", "signature_change", plain
    return None


def _derived_member(index, cls: str, cls4: str, e3, rows: dict[str, list[dict]]) -> MappingDraft | None:
    from agent.apiindex import V4

    kinds = ("constant", "enum") if e3.kind == "constant" else (e3.kind,)
    # the global scopes swapped members between 3.4 and 4.x (`sin` moved from @GDScript to @GlobalScope)
    owners = (cls4, *(g for g in _GLOBALS if g != cls4)) if cls4 in _GLOBALS else (cls4,)
    if cls4 == cls and any(index.lookup(V4, o, e3.member, kinds) for o in owners):
        return None  # still defined under the same name (signature differences are the judge's business)
    target = None
    change = "removed"
    e4 = None
    used: dict | None = None
    for row in rows.get(e3.member, []):
        scope = [c.strip() for c in str(row.get("classes", "")).split(",") if c.strip()]
        if scope and not ({cls, cls4} & set(scope) or any(index.is_a(V4, cls4, s) for s in scope)):
            continue
        if not row.get("enabled", True) and not {cls, cls4} & set(scope):
            continue  # a disabled row only for the classes it names
        for owner in (*owners, "@GlobalScope") if e3.kind == "constant" else owners:
            e4 = index.lookup(V4, owner, str(row["new"]), kinds)
            if e4:
                target, change, used = f"{owner}.{row['new']}", "rename", row
                break
        if target:
            break
    if target is None:
        owner = next((o for o in owners if index.lookup(V4, o, e3.member, kinds)), cls4)
        e4 = index.lookup(V4, owner, e3.member, kinds)
        if e4:
            target = f"{owner}.{e3.member}"
            change = "signature_change" if e3.kind in ("method", "signal") and (
                e3.arg_count, e3.default_count) != (e4.arg_count, e4.default_count) else "rename"
    if target is None and e3.kind == "property":
        target, change, e4 = _through_getter(index, cls, cls4, e3) or (None, change, None)
    source = f"{cls}.{e3.member}"
    return MappingDraft(
        e3.kind, source, target, change, classes=[cls],
        evidence=[x for x in (e3.chunk_id, e4.chunk_id if e4 else "") if x],
        notes=[f"derived from the API index: 3.4 documents {source} ({e3.kind}), "
               f"4.x {'documents ' + target if target else 'does not'}"],
        match_terms=[source, e3.member],
        key=f"derived-{_slug(source)}",
        provenance={"source": "api_index", "derived": True, "member": e3.member, "class": cls,
                    "args_3": [e3.arg_count, e3.default_count], "args_4": [e4.arg_count, e4.default_count] if e4 else None,
                    **({"rename_row": {"from": used["from"], "enabled": used.get("enabled", True)}} if used else {})},
    )
