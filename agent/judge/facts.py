"""Deterministic facts about one chunk: version findings, declared names, noise and unsafe cues.

Both the evidence judge (to decide) and the validator (to catch an LLM contradicting the
code) read the same facts, so they can never disagree about what the code contains.
"""

from __future__ import annotations

import re
from itertools import islice
from dataclasses import dataclass, field
from typing import Literal

from agent.apiindex import V3, V4, is_constructor, per_version_type, type_in, type_label
from agent.judge.call_sites import constructed_class
from agent.judge.lexer import Lexed, identifiers, lex
from agent.judge.project import ProjectContext
from agent.judge.snippets import call_args, close_paren, receiver_start, top_level_commas
from agent.judge.receivers import (NamedUse, Scope, by_name_uses, infer_var_types, literal_type,
                                   receiver_type, role_at, scope_of, signal_string_uses)
from agent.judge.syntax_rules import (DIRECT_RULES, FOR_VARIABLE, GDSCRIPT_RULES, SyntaxRule,
                                      declared_variables, parameters, rule_matches)
from agent.models import Chunk, EvidenceBundle, RetrievalHit

AST_KINDS = {"class_extends", "class_name", "tool", "signal", "declaration_group", "enum", "function",
             "inner_class", "unparsed"}

_DECLARED = re.compile(r"^\s*(?:static\s+)?(?:var|const|func|signal|class|enum|class_name)\s+([A-Za-z_]\w*)",
                       re.MULTILINE)
_ENUM_BODY = re.compile(r"\benum\s*\w*\s*\{([^}]*)\}")
_TYPE_ATTR = re.compile(r'\btype\s*=\s*"([A-Za-z_]\w*)"')

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_BLOB = re.compile(r"[A-Za-z0-9+/]{160,}={0,2}|(?:\\x[0-9a-fA-F]{2}){24,}|\b[0-9a-fA-F]{256,}\b")
_UNSAFE_CALL = re.compile(r"\bOS\s*\.\s*(execute\w*|create_process|create_instance|kill)\s*\(")
_SHELL = re.compile(r"rm\s+-rf|\bcurl\s+\S|\bwget\s+\S|powershell|/bin/(ba)?sh\b|cmd(\.exe)?\s+/c|\bbash\s+-c\b|"
                    r"\|\s*(ba)?sh\b|chmod\s+\+x|\bnc\s+-e\b|Invoke-Expression", re.IGNORECASE)
_NOISE = {
    "js_function": re.compile(r"\bfunction\s*\w*\s*\([^)]*\)\s*\{"),
    "js_arrow": re.compile(r"=>"),
    "js_console": re.compile(r"\b(console|document|window)\s*\.\s*\w+"),
    "js_let": re.compile(r"^\s*let\s+\w+\s*=", re.MULTILINE),
    "js_import": re.compile(r"^\s*(import\s+.*\bfrom\b|export\s+default\b|module\.exports)", re.MULTILINE),
    "semicolon_lines": re.compile(r"(;\s*\n.*){3,}"),
    "py_def": re.compile(r"^\s*def\s+\w+\s*\(.*\)\s*(->\s*[^:]+)?:\s*$", re.MULTILINE),
    "py_import": re.compile(r"^\s*(import\s+[\w.]+(\s+as\s+\w+)?\s*$|from\s+[\w.]+\s+import\b)", re.MULTILINE),
    "py_literals": re.compile(r"\b(None|True|False)\b"),
    "py_dunder": re.compile(r"__(name|main|init)__"),
    "c_family": re.compile(r"\b(public|private|protected)\s+(static\s+)?(class|void|int|string)\b|"
                           r"\bstd::|\busing\s+System\b|\bvoid\s+\w+\s*\(|\b(MonoBehaviour|UnityEngine)\b"),
}
_RAW_NOISE = {
    "c_include": re.compile(r"^\s*#\s*include\s*[<\"]", re.MULTILINE),
    "shebang": re.compile(r"\A#!"),
}
_GD_CUES = re.compile(r"^\s*(func\s+\w+\s*\(.*\)\s*(->\s*\w+\s*)?:|extends\s+\w+|@\w+|signal\s+\w+)",
                      re.MULTILINE)


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
        return bool(self.godot3 or self.godot4 or _GD_CUES.search(self.lexed.masked))


def _declared_as_member(masked: str, name: str) -> bool:
    """`name` is a function anywhere, or a script-level var/const/signal: not only a local or a parameter."""
    return bool(re.search(rf"^(?:[ \t]*(?:static\s+)?func|(?:static\s+)?(?:var|const|signal))\s+{re.escape(name)}\b",
                          masked, re.M))


def _own_name(facts: CodeFacts, member: str, receiver: str | None) -> bool:
    """A `.member` the script declares, on a receiver that may be the script itself.

    `other.save()` may call the script's own `func save()`; `new_queue.remove(i)` on an Array
    literal is Array's, whatever the script declares.
    """
    own = facts.scope.own_class if facts.scope else None
    return member in facts.declared and (receiver is None or receiver == own)


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def declared_names(chunk: Chunk, masked: str) -> set[str]:
    """Names the code itself declares (vars, funcs, params, loop vars, enum members)."""
    names = set(_DECLARED.findall(masked)) | parameters(masked)
    names.update(FOR_VARIABLE.findall(masked))
    for body in _ENUM_BODY.findall(masked):
        names.update(re.findall(r"([A-Za-z_]\w*)\s*(?:=|,|$)", body))
    extra = chunk.extra.get("declared_names")
    if isinstance(extra, (list, tuple, set)):
        names.update(str(x) for x in extra)
    return names


def is_gdscript(chunk: Chunk) -> bool:
    """GDScript (lexed as code), not a scene, resource or config section (read as raw text)."""
    return chunk.chunk_kind in AST_KINDS or chunk.source_file.endswith(".gd")


_KIND_ROLES: dict[str, tuple[str, ...]] = {
    "method": ("call",), "csharp-method": ("call",), "property": ("property",), "csharp-property": ("property",),
    "signal": ("signal",), "csharp-signal": ("signal",), "enum": ("constant",), "constant": ("constant",),
    "class": ("class",), "builtin-type": ("class",), "color": ("color",),
}
_ROLE_KINDS = {"call": ("method",), "property": ("property",), "signal": ("signal",),
               "constant": ("constant", "enum")}
"""The kinds a use in a role can be. A theme item is no `.name` property: `panel.margin_left` is not
MarginContainer's theme constant."""
_GLOBAL_SCOPES = ("@GlobalScope", "@GDScript")

# Every Godot 3 use becomes its own migration item (each line that must change), up to this many per rule or
# API and chunk; one Godot 4 use per rule is enough for a verdict.
MAX_USES_PER_RULE = 12


def derived_from_index(md: dict) -> bool:
    """A row the API index derived (what only 3.4 documents): it says a name is gone, not what a change is."""
    return (md.get("provenance") or {}).get("source") == "api_index"


def without_derived(evidence: EvidenceBundle) -> EvidenceBundle:
    """The bundle with only the curated and converter mappings (the rows that document a change)."""
    return evidence.model_copy(update={"api_mapping_evidence": [
        h for h in evidence.api_mapping_evidence if not derived_from_index(h.metadata)]})


def _roles_of(md: dict) -> tuple[str, ...] | None:
    """Roles a mapping applies in (its table's kind); None means any (syntax rows, project settings)."""
    return _KIND_ROLES.get(str((md.get("provenance") or {}).get("kind") or ""))


def signal_renames(facts: CodeFacts) -> dict[str, str]:
    """`hide` -> `hidden`: the signal renames among the chunk's Godot 3 API findings (signal uses only)."""
    out: dict[str, str] = {}
    for f in facts.godot3_api:
        md = f.mapping.metadata if f.mapping is not None else {}
        new = str(md.get("target_api") or "").rsplit(".", 1)[-1]
        if _roles_of(md) == ("signal",) and "." not in f.name and new.isidentifier():
            out[f.name] = new
    return out


def _use_role(masked: str, m: re.Match[str], source: str) -> str:
    if re.search(r"(?<![\w.$%@])Color\s*\.\s*$", masked[: m.start() + masked[m.start():m.end()].find(".") + 1]):
        return "color"  # Godot 3's named colors are read on the class only: `Color.green`, never `colors.green`
    if source[:1].isupper() and "." not in source and not re.fullmatch(r"[A-Z0-9_]+", source):
        return "class"
    if re.fullmatch(r"[A-Z][A-Z0-9_]+", source.rsplit(".", 1)[-1]):
        return "constant"
    return role_at(masked, m.end())


def _defined_in_4(facts: CodeFacts, project: ProjectContext | None, receiver: str | None, member: str,
                  role: str) -> bool:
    api = project.api if project else None
    if api is None or receiver is None:
        return False
    return api.lookup(V4, receiver, member, _ROLE_KINDS.get(role)) is not None


def _gone_from(project: ProjectContext | None, receiver: str | None, member: str, role: str) -> bool:
    """The receiver's 3.4 class has the member; its 4.x class and subclasses have none.

    A name some unrelated 4.x class still defines (`ImporterMesh.set_surface_material`, a Resource)
    is still gone from a typed MeshInstance.
    """
    api = project.api if project else None
    if api is None or receiver is None or not api.complete_v4 or not api.has_class(V4, receiver):
        return False
    kinds = _ROLE_KINDS.get(role)
    in_3, in_4 = api.lookup(V3, receiver, member, kinds), api.lookup(V4, receiver, member, kinds)
    return in_3 is not None and in_4 is None and not api.defined_below(V4, receiver, member, kinds)


def _in_scope(project: ProjectContext | None, receiver: str | None, md: dict, role: str) -> bool:
    """Whether a class-scoped rename may apply to a use on `receiver` (unknown receivers: yes, as before).

    Out of its classes, a rename still applies where the index shows the same change on the receiver:
    its 3.4 class has the old member and its 4.x class the new one (`empty -> is_empty` is listed for
    Array; a String changed the same way).
    """
    api = project.api if project else None
    classes = (md.get("provenance") or {}).get("classes") or []
    if api is None or receiver is None or not classes:
        return True
    if any(api.is_a(V3, receiver, c) or api.is_a(V4, receiver, c) for c in classes):
        return True
    source, target = str(md.get("source_api") or ""), str(md.get("target_api") or "")
    if "." in source or not target or not re.fullmatch(r"\w+", target):
        return False
    kinds = _ROLE_KINDS.get(role)
    return (api.lookup(V3, receiver, source, kinds) is not None
            and api.lookup(V4, receiver, target, kinds) is not None)


def _unsure_member(project: ProjectContext | None, member: str, role: str) -> bool:
    """A renamed `.member` on a receiver nobody resolved proves nothing where the name is ordinary.

    That is: a property read as a plain word (`colors.green`, `event.control`, `method.meta`, `.group`:
    a Dictionary key or a user object's field as often as an engine property), a member some 4.x class
    still has in that role, or a name the project declares itself (its own `empty()`). A call of a
    distinctive name (`scene.instance()`) stays a finding. A weak one is shown, but never decides a chunk.
    """
    if role != "call" and "_" not in member.strip("_"):
        return True
    api = project.api if project else None
    if api is not None and api.defined_anywhere(V4, member, _ROLE_KINDS.get(role)):
        return True
    return _project_declares(project, member)


_OWN_NAME_RULES = {"rect_properties", "tween_node", "xform"}
"""Syntax rules keyed on a member's name, which a project may give a name of its own: dialogic's local
`var rect_position`, escoria's `Tween3.interpolate_property()`."""


def _own_name_match(f: Finding, facts: CodeFacts, project: ProjectContext | None, scan: str) -> bool:
    """The rule matched a name the chunk declares as a variable or the project declares itself, or a key of a
    Dictionary (`size.rect_size` on `var size := {}`): none is the engine member the rule is about."""
    m = re.search(r"(rect_\w+|interpolate_\w+|xform\w*)\b", f.text)
    name = m.group(1) if m else ""
    if not name:
        return False
    before = scan[: f.start + f.text.find(name)].rstrip()
    if before.endswith(".") and facts.scope is not None and _is_dictionary(
            receiver_type(facts.lexed.text, scan, len(before) - 1, facts.scope)):
        return True
    return name in declared_variables(scan) or name in facts.declared or _project_declares(project, name)


def _is_dictionary(receiver: str | None) -> bool:
    """A Dictionary's `.key` reads a key, never a class member (in either version)."""
    return bool(receiver) and type_label(receiver) == "Dictionary"


def _project_declares(project: ProjectContext | None, name: str) -> bool:
    """The project names `name` itself: a script's function, variable, constant, signal, enum or inner class,
    a `class_name`, or an autoload (open-rpg's `Camera`, Pixelorama's `enum Tabs`)."""
    return project is not None and name in project.own_names


def _engine_class_before(masked: str, dot: int, api, declared: set[str]) -> bool:
    """The receiver before `dot` is an engine class by name (`ResourceSaver.save`), not the script's own."""
    m = re.search(r"(?<![\w.$%@])([A-Z]\w*)\s*$", masked[:dot])
    name = m.group(1) if m else ""
    return bool(name) and name not in declared and (api.has_class(V3, name) or api.has_class(V4, name))


def _user_singleton(masked: str, dot: int, project: ProjectContext | None) -> bool:
    """The receiver before `dot` is a bare capitalised name no engine version defines (an autoload, a class_name)."""
    api = project.api if project else None
    if api is None or not {V3, V4} <= api.versions():
        return False  # without both references a 3-only engine class (VisualServer) would look like an autoload
    m = re.search(r"(?<![\w.$%@])([A-Z]\w*)\s*$", masked[:dot])
    return bool(m and not api.has_class(V3, m.group(1)) and not api.has_class(V4, m.group(1)))


def _api_findings(facts: CodeFacts, evidence: EvidenceBundle, project: ProjectContext | None = None,
                  chunk_file: str = "") -> list[Finding]:
    """Identifiers that match a retrieved api_mapping old name, used as an API in the mapping's role.

    A signal rename applies to signal uses only, a property rename to property access, and so on;
    a use whose receiver resolves to a type that Godot 4 still defines the member on is no finding.
    """
    masked = facts.lexed.masked
    out: list[Finding] = []
    seen: set[str] = set()
    signal_strings = signal_string_uses(masked, facts.lexed.strings)
    for hit in evidence.api_mapping_evidence:
        md = hit.metadata
        source = str(md.get("source_api") or "")
        target = md.get("target_api")
        if not source or source == target or source in seen or md.get("status") == "rejected":
            continue
        if md.get("change_type") in ("behavior_change", "unchanged"):  # same name, other semantics: no version cue
            continue
        if md.get("documented_in_godot4") and "." in source:
            continue  # still a valid Godot 4 name (Viewport, Texture): not a signal on its own
        if derived_from_index(md):
            continue  # derived rows are judged with their receiver (see _derived_findings)
        roles = _roles_of(md)
        if "." in source:
            owner, member = source.rsplit(".", 1)
            pattern = re.compile(rf"\b{re.escape(owner)}\s*\.\s*{re.escape(member)}\b")
        elif md.get("documented_in_godot4") and not (roles and set(roles) <= {"call", "property"}):
            continue
        else:
            member = source
            if roles == ("signal",) and source in signal_strings and source not in facts.declared:
                start = signal_strings[source]
                seen.add(source)
                out.append(Finding("godot3", "api", source, facts.lexed.text[start - 1 : start + len(source) + 1].strip(),
                                   _line_of(masked, start), mapping=hit, start=start,
                                   weak=_project_declares(project, source)))  # its own `signal text_entered`
                continue
            if source not in facts.identifiers:
                continue
            if source[:1].isupper() and (source in facts.declared or _project_declares(project, source)):
                continue  # the project's own class, enum, constant or autoload of that name
            if source[:1].isupper():
                pattern = re.compile(rf"(?<![\w.@]){re.escape(source)}\b")
            else:
                # A member name counts only with a receiver (`get_tree().change_scene(`): a bare
                # `change_scene()` may be the script's own function, declared in another chunk.
                pattern = re.compile(rf"\.\s*{re.escape(source)}\b")
        uses = 0
        for m in pattern.finditer(masked):
            role = _use_role(masked, m, source)
            if roles is not None and role not in roles:
                continue
            dot = masked.rfind(".", m.start(), m.end() - len(member))
            receiver = receiver_type(facts.lexed.text, masked, dot, facts.scope) if facts.scope and dot >= 0 \
                and "." not in source else None
            if "." not in source and _own_name(facts, member, receiver) \
                    and _declared_as_member(masked, member):
                continue  # the script's own function; a local `var instance = scene.instance()` is no method
            if _defined_in_4(facts, project, receiver, member, role) or (role == "property" and _is_dictionary(receiver)):
                continue  # still a 4.x member there, or a Dictionary's key (`colors.green` on `var colors := {}`)
            if md.get("documented_in_godot4") and (not _gone_from(project, receiver, member, role)
                                                   or member in (project.declared.get(chunk_file) or ())):
                continue  # some 4.x class still has the name; or the script's own `func update()` may be it
            classes = (md.get("provenance") or {}).get("classes") or []
            if not _in_scope(project, receiver, md, role):
                continue  # a rename for ProgressBar does not apply to a Label
            if classes and "." not in source and receiver is None and dot >= 0 and _user_singleton(masked, dot, project):
                continue  # `Scenes.change_scene()`: an autoload's own function, not SceneTree's
            weak = receiver is None and dot >= 0 and "." not in source and role != "color" \
                and _unsure_member(project, member, role)
            seen.add(source)
            text = facts.lexed.text[m.start() : m.end()].strip()
            out.append(Finding("godot3", "api", source, text, _line_of(masked, m.start()), mapping=hit, start=m.start(),
                               receiver=type_label(receiver) if receiver else None, weak=weak))
            uses += 1
            if uses == MAX_USES_PER_RULE:
                break  # every use is its own migration item, as for the syntax rules
    return out


def _derived_findings(facts: CodeFacts, evidence: EvidenceBundle, project: ProjectContext | None,
                      chunk_file: str = "") -> list[Finding]:
    """Uses of what only 3.4 documents (api_mapping rows derived from the API index), receiver resolved.

    Resolved to a 3.4 type that has the member and whose 4.x counterpart lacks it: a Godot 3 finding.
    Unresolved, where no 4.x class defines a member of that name in that role: a weak one.
    """
    api = project.api if project else None
    if api is None or facts.scope is None:
        return []
    masked = facts.lexed.masked
    strong: list[Finding] = []
    weak_ones: list[Finding] = []
    taken: set[int] = set()  # a use is one item, whichever row (Array.empty, Dictionary.empty) claims it
    local_names = declared_variables(masked)
    for hit in evidence.api_mapping_evidence:
        md = hit.metadata
        if not derived_from_index(md) or md.get("status") == "rejected" or md.get("documented_in_godot4"):
            continue
        source = str(md.get("source_api") or "")
        if "." not in source:
            strong.extend(_removed_class_uses(facts, project, hit, source, taken, chunk_file))
            continue
        owner, member = source.rsplit(".", 1)
        if member == owner:
            continue  # `Vector2.Vector2` is a constructor: 4.x lists those apart, and the class row decides
        roles = _roles_of(md) or ()
        first_weak: Finding | None = None
        uses = 0
        for m in re.finditer(rf"(?<![\w$%@]){re.escape(member)}\b", masked):
            if m.start() in taken:
                continue
            role = "constant" if re.fullmatch(r"[A-Z][A-Z0-9_]+", member) else role_at(masked, m.end())
            if role not in roles:
                continue
            b = m.start() - 1
            while b >= 0 and masked[b] in " \t":
                b -= 1
            before = masked[max(0, b - 5) : b + 1]
            if (b < 0 or masked[b] != ".") and (member in facts.declared or member in local_names):
                continue  # the script's own name, or a parameter or local (`func f(pressed: bool)`), used bare
            if b >= 0 and masked[b] == ".":
                receiver = receiver_type(facts.lexed.text, masked, b, facts.scope)
                if _own_name(facts, member, receiver):
                    continue
            elif re.search(r"\b(func|var|const|signal)$", before):
                continue  # the script declares this name itself
            elif role == "constant":
                receiver = None
            elif owner in _GLOBAL_SCOPES:
                if any(api.lookup(V4, g, member, _ROLE_KINDS.get(role)) for g in _GLOBAL_SCOPES):
                    continue
                known = project.declared.get(chunk_file) if chunk_file else None
                if known is not None and member in known:
                    continue  # the script's own `parse_json()`
                receiver = None
            else:
                receiver = facts.scope.own_class  # a bare call or property: the script's own class
            own_use = receiver is not None and receiver == facts.scope.own_class and (
                b < 0 or masked[b] != "." or masked[max(0, b - 4) : b].strip() == "self")
            if receiver is None and owner in _GLOBAL_SCOPES and role != "constant" and masked[b:b + 1] != ".":
                weak = False  # a bare `parse_json()` that no 4.x global scope has
            elif receiver is not None:
                if not api.has_class(V3, receiver) or not api.is_a(V3, receiver, owner):
                    continue
                if api.has_class(V4, receiver) and api.lookup(V4, receiver, member, _ROLE_KINDS.get(role)):
                    continue
                if not own_use and api.defined_below(V4, receiver, member, _ROLE_KINDS.get(role)):
                    continue  # `get_viewport().get_size()`: the Viewport is a Window at run time, which has it
                if api.named_by_another_node(V4, receiver, member, _ROLE_KINDS.get(role)):
                    continue  # `$Light.shadow_color`: a Godot 4 node named Light may be a PointLight2D
                # the script's own names: only a project that shows the whole script rules out its own function
                known = project.declared.get(chunk_file) if project and chunk_file else None
                weak = own_use and known is None
                if own_use and known is not None and member in known:
                    continue
            else:
                if api.defined_anywhere(V4, member, _ROLE_KINDS.get(role)):
                    continue
                weak = True
            found = Finding("godot3", "api", source, facts.lexed.text[m.start() : m.end()].strip(),
                            _line_of(masked, m.start()), mapping=hit, start=m.start(), weak=weak,
                            receiver=type_label(receiver) if receiver else None)
            if weak:
                first_weak = first_weak or found
                continue
            taken.add(m.start())
            strong.append(found)  # every use on a known receiver is its own item
            uses += 1
            if uses == MAX_USES_PER_RULE:
                break
        if not uses and first_weak is not None and all(w.start != first_weak.start for w in weak_ones):
            weak_ones.append(first_weak)  # no resolved use: one weak finding says it once
    decided = {f.name.rsplit(".", 1)[-1] for f in strong}
    return strong + [f for f in weak_ones
                     if f.name.rsplit(".", 1)[-1] not in decided and f.start not in taken]


def _removed_class_uses(facts: CodeFacts, project: ProjectContext, hit, name: str,
                        taken: set[int], chunk_file: str) -> list[Finding]:
    """Uses of a class only 3.4 documents that no rename table maps (`WebSocketClient`, `Geometry`),
    by name or through an object of it (`client.poll()` with `var client: WebSocketClient` above).

    A converter rename of the class (`Particles` -> `GPUParticles3D`) is found by `_api_findings`
    and says more; the same use is then left to it. A class the project declares is its own.
    """
    api = project.api
    own = project.declared.get(chunk_file) or ()
    if name in facts.declared or name in project.class_names or name in own \
            or not api.only_in_3(name) or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    uses = []
    for m in re.finditer(rf"(?<![\w.$%@]){re.escape(name)}\b(?:\s*\.\s*([A-Za-z_]\w*))?", masked):
        if m.group(1) and m.group(1) != "new" and api.lookup(V3, name, m.group(1)) is None:
            continue  # `Geometry.distance()`: an autoload's own function, not the 3.4 class's
        uses.append((m.start(), name))
    objects: set[str] = set()
    for m in _MEMBER_USE.finditer(masked) if facts.scope is not None else ():
        if receiver_type(text, masked, m.start(), facts.scope) == name and api.lookup(V3, name, m.group(1)):
            start = receiver_start(text, masked, m.start())
            if text[start : m.start()].strip() not in objects:  # each object once: its first use
                objects.add(text[start : m.start()].strip())
                uses.append((start, text[start : m.end()].strip()))
    out: list[Finding] = []
    for start, used in sorted(uses):
        if start in taken:
            continue
        taken.add(start)
        out.append(Finding("godot3", "api", name, used, _line_of(masked, start), mapping=hit, start=start))
        if len(out) == MAX_USES_PER_RULE:
            break
    return out


def _named_findings(facts: CodeFacts, evidence: EvidenceBundle, project: ProjectContext | None,
                    chunk_file: str = "") -> list[Finding]:
    """Members named by a string (`get_tree().call_deferred("change_scene", p)`, `set("rect_size", s)`).

    Only on a receiver the code makes known, an Object whose 3.4 class documents the member in that role
    and whose 4.x class lacks it; a bare call counts only where the project shows the whole script and it
    declares no function of that name. The mapping is the converter's rename, else the derived row.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not facts.named or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    out: list[Finding] = []
    for use in facts.named:
        if use.name in facts.declared:
            continue
        if use.dot >= 0:
            receiver = receiver_type(text, masked, use.dot, facts.scope)
        else:
            known = project.declared.get(chunk_file) if chunk_file else None
            receiver = facts.scope.own_class if known is not None and use.name not in known else None
        kinds = _ROLE_KINDS[use.role]
        if receiver is None or not api.has_class(V3, receiver) or not api.is_a(V3, receiver, "Object"):
            continue
        old = api.lookup(V3, receiver, use.name, kinds)
        if old is None or (api.has_class(V4, receiver) and api.lookup(V4, receiver, use.name, kinds)):
            continue
        if use.dot >= 0 and api.defined_below(V4, receiver, use.name, kinds):
            continue
        hit = _mapping_of(evidence, (use.name, f"{old.class_name}.{use.name}"), use.role, project, receiver)
        if hit is None:
            continue
        out.append(Finding("godot3", "api", str(hit.metadata.get("source_api")),
                           text[use.quote : use.quote + len(use.name) + 2], _line_of(masked, use.call), mapping=hit,
                           start=use.call, receiver=type_label(receiver), named_at=use.quote))
    return out


def _mapping_of(evidence: EvidenceBundle, sources: tuple[str, ...], role: str, project: ProjectContext | None,
                receiver: str) -> RetrievalHit | None:
    """The first retrieved mapping of one of `sources` (in that order) that applies in `role` on `receiver`."""
    for source in sources:
        for hit in evidence.api_mapping_evidence:
            md = hit.metadata
            if md.get("source_api") != source or md.get("status") == "rejected" \
                    or md.get("change_type") in ("behavior_change", "unchanged"):
                continue
            roles = _roles_of(md)
            if (roles is None or role in roles) and _in_scope(project, receiver, md, role):
                return hit
    return None


def _signal_gone(facts: CodeFacts, finding: Finding, evidence: EvidenceBundle,
                 project: ProjectContext | None) -> str | None:
    """`get_tree().connect("network_peer_connected", ...)`: the named signal, when the receiver's 4.x class lacks it.

    Then `obj.sig.connect(callable)` is no rewrite: in Godot 4 the signal lives elsewhere (MultiplayerAPI).
    The same holds for what `yield(obj, "sig")` waits on: `yield($Tween, "tween_all_completed")` is no
    `await $Tween.tween_all_completed`, since no 4.x Tween has that signal (nor is one a node).
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return None
    masked = facts.lexed.masked
    waits = finding.rule is not None and finding.rule.name == "yield"
    if waits:  # `yield(obj, "sig")`: the object is the first argument, the signal the string after its comma
        m = finding.rule.pattern.match(masked, finding.start)
        commas = top_level_commas(masked, m.end() - 1) if m else []
        if len(commas) != 1:
            return None
        name = next((content for prefix, content, quote in facts.lexed.strings if quote > commas[0] and not prefix), "")
        receiver = receiver_type(facts.lexed.text, masked, commas[0], facts.scope)
    else:
        name = next((content for _, content, quote in facts.lexed.strings if finding.start <= quote < finding.start + 80), "")
        b = finding.start - 1
        while b >= 0 and masked[b] in " \t":
            b -= 1
        if b >= 0 and masked[b] == ".":
            receiver = receiver_type(facts.lexed.text, masked, b, facts.scope)
        else:
            receiver = facts.scope.own_class
    if not name or receiver is None or not api.has_class(V3, receiver):
        return None
    old = api.lookup(V3, receiver, name, ("signal",))
    if old is None or not api.has_class(V4, receiver) and type_in(V4, receiver):
        return None  # a class 4.x renamed without saying to what: nothing to compare with
    if api.lookup(V4, receiver, name, ("signal",)) or api.defined_below(V4, receiver, name, ("signal",)):
        return None
    for hit in evidence.api_mapping_evidence if not waits else ():  # renamed on the same class (`hide` ->
        md = hit.metadata                                           # `hidden`): the connect is rewritten in place
        new = str(md.get("target_api") or "").rsplit(".", 1)[-1]
        if md.get("source_api") == name and _roles_of(md) == ("signal",) and new.isidentifier() \
                and api.lookup(V4, receiver, new, ("signal",)):
            return None
    return f"{old.class_name}.{name}"


_FUNC_HEAD = re.compile(r"^[ \t]*(?:static\s+)?func\s+([A-Za-z_]\w*)\s*\(", re.M)
_VIRTUAL = re.compile(r"\)[\w\s]*\bvirtual\b[\w\s]*$")


def _override_findings(facts: CodeFacts, evidence: EvidenceBundle, project: ProjectContext | None,
                       chunk_file: str = "") -> tuple[list[Finding], list[Finding]]:
    """Overrides of engine callbacks one version has: (Godot 3 findings, Godot 4 cues).

    `func get_drag_data(position)` in a Control script overrides a callback only 3.4 declares; the
    engine calls virtual methods by name, so in 4.x (which calls `_get_drag_data`) it silently stops
    running. `func _get_drag_data(at_position)` is the 4.x override, a Godot 4 cue. Only the script's
    resolved class counts, only when 4.x documents that class (absence is then proof), and a script
    that also declares the 4.x callback keeps its old name as a helper of its own, as does a script
    written in GDScript 2 (`func drop_data(at_position: Vector2, data)` next to `@tool`) and a static func.
    """
    api = project.api if project else None
    own = facts.scope.own_class if facts.scope else None
    if api is None or own is None or not api.complete_v4 or not (api.has_class(V3, own) and api.has_class(V4, own)):
        return [], []
    known = project.declared.get(chunk_file) or set() if chunk_file else set()
    old_only: list[Finding] = []
    new_only: list[Finding] = []
    masked = facts.lexed.masked
    for m in _FUNC_HEAD.finditer(masked):
        name, line = m.group(1), _line_of(masked, m.start(1))
        old = api.lookup(V3, own, name, ("method",))
        new = api.lookup(V4, own, name, ("method",))
        if new is not None and old is None and _VIRTUAL.search(new.signature):
            new_only.append(Finding("godot4", "api", f"{new.class_name}.{name} (4.x callback)", name, line,
                                    start=m.start(1), receiver=own))
        if old is None or new is not None or not _VIRTUAL.search(old.signature):
            continue
        if chunk_file in project.gdscript2 or re.match(r"[ \t]*static\b", m.group(0)):
            continue  # a Godot 4 script's own method (the engine calls no static func back)
        source = f"{old.class_name}.{name}"
        hit = next((h for h in evidence.api_mapping_evidence if h.metadata.get("source_api") == source
                    and h.metadata.get("status") != "rejected"), None)
        target = str(hit.metadata.get("target_api") or "").rsplit(".", 1)[-1] if hit else ""
        if hit is not None and target not in known:
            old_only.append(Finding("godot3", "api", source, name, line, mapping=hit, start=m.start(1), receiver=own))
    return old_only, new_only


_MEMBER_USE = re.compile(r"\.\s*([A-Za-z_]\w*)\b")


def _arg_starts(masked: str, open_paren: int, args: list[str]) -> list[int]:
    """Offsets of the arguments `call_args` returned for the call whose `(` is at `open_paren`."""
    starts, pos = [], open_paren + 1
    for a in args:
        pos = masked.index(a, pos)
        starts.append(pos)
        pos += len(a)
    return starts


def _call_arg_count(masked: str, open_paren: int) -> int | None:
    """How many arguments the call whose `(` is at `open_paren` has, or None."""
    args = call_args(masked, open_paren)
    return None if args is None else len(args)


_SCALARS = frozenset({"bool", "int", "float", "String", "StringName", "NodePath"})
_CONTAINERS = frozenset({"Array", "Dictionary"})


def _param_types(signature: str) -> list[str]:
    """`int save(path: String, resource: Resource, flags: int = 0)` -> the parameter types."""
    signature = re.sub(r'"[^"]*"', '""', signature)  # a default string may hold a comma
    open_paren = signature.find("(")
    params = call_args(signature, open_paren) if open_paren >= 0 else None
    return [p.split("=", 1)[0].partition(":")[2].strip() for p in params or []]


def _arg_literal_type(arg: str, api=None) -> str | None:
    """The type of an argument written as a literal (`true`, `3`, `1.5`, `"a"`, `[...]`, `{...}`),
    or as a constructor of a class both versions have (`Color(1, 1, 1)`, `Timer.new()`)."""
    if arg in ("true", "false"):
        return "bool"
    if re.fullmatch(r"-?(\d+|0x[0-9a-fA-F_]+|0b[01_]+)", arg):
        return "int"
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+)(e-?\d+)?", arg):
        return "float"
    cls = constructed_class(arg)
    if cls and api is not None and api.has_class(V3, cls) and api.has_class(V4, cls):
        return cls
    return literal_type(arg)


def _is_enum(param: str, api, version: str) -> bool:
    """A signature type that names no class, scalar or container: an enum (`HTTPClient.Method`)."""
    return (re.fullmatch(r"[A-Z]\w*(?:\.[A-Z]\w*)?", param) is not None and param not in _SCALARS
            and param not in _CONTAINERS and not param.endswith("Array") and param != "Variant"
            and not api.has_class(version, param))


def _misfit(literal: str, param: str, api, version: str) -> bool:
    """A literal of this type can never be this parameter (a bool for an Array, a list for an int).

    Numbers, bools and strings pass for one another and for enums (Variant converts them), and an Array
    literal for a packed array; a scalar against a container or a class (`Vector2`, `Resource`), or a
    container against anything but a container, is a misfit. A constructed object (`Color(...)`) is
    taken to fit any class parameter (classes are not compared), but no scalar, container or enum.
    """
    if not param or param == "Variant":
        return False
    container = param in _CONTAINERS or param.endswith("Array")
    known = api.has_class(version, param)
    if literal in _SCALARS:
        return container or (known and param not in _SCALARS)
    if literal not in _CONTAINERS:
        return container or param in _SCALARS or _is_enum(param, api, version)
    return not container and (param in _SCALARS or known)


def _literal_misfits_4x(args: list[str], old: list, new: list, api) -> bool:
    """Literal arguments that fit the 3.4 signature and, in one place, not the 4.x one.

    `ResourceSaver.save("res://a.tres", res)`: 4.x takes the Resource first, and a String is none.
    """
    if len(old) != 1 or len(new) != 1:
        return False
    literals = [_arg_literal_type(a, api) for a in args]
    old_types, new_types = _param_types(old[0].signature), _param_types(new[0].signature)
    if len(old_types) < len(args) or len(new_types) < len(args):
        return False
    fits_3 = all(t is None or not _misfit(t, p, api, V3) for t, p in zip(literals, old_types))
    return fits_3 and any(t is not None and _misfit(t, p, api, V4) for t, p in zip(literals, new_types))


MemberUse = tuple[re.Match[str], str, str, str]


def _resolved_member_uses(facts: CodeFacts, project: ProjectContext | None) -> list[MemberUse]:
    """(match, receiver, member, role) for each `.member` whose receiver is a class both versions document.

    `self.x` and members the script declares are left out: the script may define them itself.
    Computed once per chunk; the call-form and the Godot 4 cues both read it.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    out: list[MemberUse] = []
    for m in _MEMBER_USE.finditer(masked):
        member = m.group(1)
        if masked[max(0, m.start() - 4) : m.start()] == "self":
            continue
        receiver = receiver_type(text, masked, m.start(), facts.scope)
        if _own_name(facts, member, receiver) \
                and not _engine_class_before(masked, m.start(), api, facts.declared):
            continue  # `other.save()` may be the script's own `func save()`; `ResourceSaver.save()` is not
        if receiver is None or not (api.has_class(V3, receiver) and api.has_class(V4, receiver)):
            continue
        role = role_at(masked, m.end())
        if any(api.named_by_another_node(v, receiver, member, _ROLE_KINDS.get(role)) for v in (V3, V4)):
            continue  # a Godot 3 `$Camera` may be a Camera2D with `position`: the name proves nothing
        out.append((m, receiver, member, role))
    return out


_BARE_CALL = re.compile(r"(?<![\w.$%@])([a-z_]\w*)(?=[ \t]*\()")
_DECLARATION_BEFORE = re.compile(r"\b(?:func|signal)[ \t]+$")


def _bare_self_calls(facts: CodeFacts, project: ProjectContext | None, chunk_file: str) -> list[MemberUse]:
    """(match, own class, member, "call") for each bare `member(...)`: a call on the script's engine class.

    `draw_string(font, pos, "hi", Color(1, 0, 0))` in a Node2D script. Only where the project shows
    the whole script (and its project bases): a name any of them declares may be its own function.
    """
    api = project.api if project else None
    own = facts.scope.own_class if facts.scope else None
    known = project.declared.get(chunk_file) if project else None
    if api is None or own is None or known is None or not api.complete_v4 \
            or not (api.has_class(V3, own) and api.has_class(V4, own)):
        return []
    masked = facts.lexed.masked
    return [(m, own, m.group(1), "call") for m in _BARE_CALL.finditer(masked)
            if m.group(1) not in facts.declared and m.group(1) not in known
            and not _DECLARATION_BEFORE.search(masked, masked.rfind("\n", 0, m.start()) + 1, m.start())]


_CLASS_USE = re.compile(r"(?<![\w.$%@\"'])([A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*)\b")


_TYPED_ARRAY = re.compile(r"(?<=^Array)\[.*\]$")
"""4.x's `Array[Node]` is 3.4's `Array`: the same class to look members up on."""


def _member_type(api, classes: frozenset[str]):
    """What `type.member` holds or returns in each version; only class types (a Variant, an int or an
    enum says nothing about members).

    Where the versions disagree, the type is per version (`per_version_type`): `get_packet()` is a
    PoolByteArray in 3.4 and a PackedByteArray in 4.x, so a Godot 4 `get_packet().get_string_from_utf8()`
    is checked against PackedByteArray and never becomes a use of PoolByteArray. A side that returns
    a Variant or an Object could hold anything: then nothing is known.
    """
    def member_type(owner: str, member: str) -> str | None:
        found = {version: _TYPED_ARRAY.sub("", e.return_type) for version in (V3, V4)
                 if (e := api.lookup(version, owner, member, ("property", "method"))) is not None}
        types = set(found.values())
        if not types:
            return None
        if len(types) == 1:  # the same in both, or defined by one version only
            (only,) = types
            return only if only in classes else None
        if types & {"", "Variant", "Object"}:
            return None
        sides = [t if t in classes else "" for t in (found[V3], found[V4])]
        return per_version_type(*sides) if any(sides) else None
    return member_type


def _element_type(api):
    """The class of what `type.method()` returns a list of: 4.x `Array[Node]` where 3.4 says `Array`."""
    def element_type(owner: str, member: str) -> str | None:
        old = api.lookup(V3, type_in(V3, owner), member, ("method",))
        new = api.lookup(V4, type_in(V4, owner), member, ("method",))
        m = re.fullmatch(r"Array\[(\w+)\]", new.return_type) if new is not None else None
        if old is None or old.return_type != "Array" or m is None:
            return None
        item = m.group(1)
        return item if api.has_class(V3, item) and api.has_class(V4, item) else None
    return element_type


def _godot4_api_findings(facts: CodeFacts, project: ProjectContext | None, uses: list[MemberUse]) -> list[Finding]:
    """What only 4.x documents, used in code position: a class 3.4 lacks, or a member of a resolved
    receiver that its 3.4 class (and ancestors) lacks in every role. A Godot 4 cue each."""
    api = project.api if project else None
    if api is None or not api.complete_v4:
        return []
    masked = facts.lexed.masked
    for m in _CLASS_USE.finditer(masked):
        name = m.group(1)
        if name in facts.declared or name in project.class_names:
            continue
        if api.has_class(V4, name) and not api.has_class(V3, name):
            return [Finding("godot4", "api", f"{name} (4.x class)", name, _line_of(masked, m.start()), start=m.start())]
    for m, receiver, member, role in uses:
        if api.lookup(V4, receiver, member, _ROLE_KINDS.get(role)) is None or api.lookup(V3, receiver, member):
            continue
        return [Finding("godot4", "api", f"{type_in(V4, receiver)}.{member}", member, _line_of(masked, m.start()),
                        start=m.start(), receiver=type_in(V4, receiver))]
    return []


def _member_of_34_receiver(facts: CodeFacts, project: ProjectContext | None, masked: str, start: int,
                           member: str) -> bool:
    """The `.member` at `start` is used on a receiver whose 3.4 class documents it: no Godot 4 cue."""
    api = project.api if project else None
    dot = len(masked[:start].rstrip()) - 1
    if api is None or facts.scope is None or dot < 0 or masked[dot] != ".":
        return False
    receiver = receiver_type(facts.lexed.text, masked, dot, facts.scope)
    return receiver is not None and api.lookup(V3, receiver, member) is not None


def _call_shape(entry, member: str) -> str:
    """`intersect_ray(Vector2 from, Vector2 to, ...)`: the signature without its return type and qualifiers."""
    if not entry.signature:
        return member
    shape = re.sub(r"^[^(]*?(?=\b" + re.escape(member) + r"\s*\()", "", entry.signature)
    return re.sub(r"\)[\w\s]*$", ")", shape)  # without the qualifiers (`const`, `static`)


_STATEMENT_RECEIVER = re.compile(r"[ \t]*[a-z_]\w*(?:\s*\.\s*[a-z_]\w*)*[ \t]*")


def _made_static_on_instance(masked: str, m: re.Match[str], old: list, new: list) -> bool:
    """`image.create(...)` as a whole statement, on an instance, of a method only 4.x makes static.

    Godot 4 would build a new object and drop it: the statement is Godot 3's in-place form.
    """
    if masked[m.start()] != "." or not all(e.is_static for e in new) or any(e.is_static for e in old):
        return False  # a bare `create(...)` is a call on the script itself
    line_start = masked.rfind("\n", 0, m.start()) + 1
    if not _STATEMENT_RECEIVER.fullmatch(masked, line_start, m.start()):
        return False  # `var img = x.create(...)`, `return x.create(...)`, `Image.create(...)`
    close = close_paren(masked, masked.index("(", m.end()))
    return close >= 0 and re.match(r"[ \t]*(?:\n|$)", masked[close:]) is not None


def _call_form_findings(facts: CodeFacts, project: ProjectContext | None, uses: list[MemberUse]) -> list[Finding]:
    """A call whose argument count fits the receiver's 3.4 signature and none of its 4.x ones.

    `items.sort_custom(self, "by_name")` on a typed Array: 3.4 takes (object, function), 4.x one
    Callable. Both versions must define the method on the resolved type, so only the call's form changed.
    """
    out: list[Finding] = []
    api = project.api if project else None
    masked = facts.lexed.masked
    for m, receiver, member, role in uses:
        if role != "call":
            continue
        old = api.all_lookup(V3, receiver, member, ("method",))
        new = api.all_lookup(V4, receiver, member, ("method",))
        if not old or not new:
            continue
        args = call_args(masked, masked.index("(", m.end()))
        if args is None:
            continue
        n = len(args)
        fits_3, fits_4 = any(e.accepts(n) for e in old), any(e.accepts(n) for e in new)
        made_static = _made_static_on_instance(masked, m, old, new)
        misfit = fits_3 and fits_4 and _literal_misfits_4x(args, old, new, api)
        if not (made_static or misfit or (fits_3 and not fits_4)):
            continue
        old_type, new_type = type_in(V3, receiver), type_in(V4, receiver)
        shape_3, shape_4 = f"{old_type}.{_call_shape(old[0], member)}", f"{new_type}.{_call_shape(new[0], member)}"
        if made_static:  # `image.create(w, h, false, f)` fills `image` in 3.4; 4.x returns a new Image
            text = facts.lexed.text
            target = text[masked.rfind("\n", 0, m.start()) + 1 : m.start()].strip()
            call = re.sub(r"\s*\n\s*", " ", text[m.start() + 1 : close_paren(masked, masked.index("(", m.end()))])
            as_4 = f"{new_type}.{call}".replace("( ", "(").replace(" )", ")") if fits_4 else shape_4
            rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(member)), old=shape_3, new=f"{target} = {as_4}",
                              change_type="signature_change", cues=(f"{new_type}.{member}",),
                              mapping_keys=(f"{old_type}.{member}",),
                              caveat=f"Godot 4's {new_type}.{member} is static: it returns a new object")
        else:
            rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(member)), old=shape_3, new=shape_4,
                              change_type="signature_change", cues=(member,), mapping_keys=(f"{old_type}.{member}",))
        start = m.start() + masked[m.start():].index(member)
        out.append(Finding("godot3", "syntax", "call_form", facts.lexed.text[start : m.end()], _line_of(masked, start),
                           rule, start=start, receiver=old_type))
        if len(out) == MAX_USES_PER_RULE:
            break  # every call is its own item, as for the syntax rules
    return out


_NUMERIC = frozenset({"int", "float", "bool"})
_STRINGS = frozenset({"String", "StringName", "NodePath"})
_SCALAR_CASTS = {"int": "int", "float": "float", "bool": "bool", "str": "String", "len": "int"}
_PLAIN_CHAIN = re.compile(r"[A-Za-z_$][\w$/]*(?:\s*\(\))?(?:\s*\.\s*[A-Za-z_]\w*(?:\s*\(\))?)*")
"""`a.b().c`, `$Node.size()`: names and empty calls (arguments collapsed), no operators."""
_TAIL_MEMBER = re.compile(r"\.\s*([A-Za-z_]\w*)\s*(\(\s*\))?$")


def _expr_type(facts: CodeFacts, project: ProjectContext, arg: str, at: int, chunk_file: str) -> str | None:
    """The type of one argument (`masked[at:]` starts with it) when the code makes it known, else None.

    Literals and constructors, `int(...)`/`str(...)`, names typed or initialised as one type, a global
    function's return type, and a member's: on a resolved receiver its class's, on an unknown one
    only when every class that documents the member agrees on a number (`.size()`, `.length()`).
    """
    api, masked, scope = project.api, facts.lexed.masked, facts.scope
    found = _arg_literal_type(arg, api)
    if found:
        return found
    if re.fullmatch(r"[A-Za-z_]\w*", arg):
        if arg in scope.scalar_types:
            return scope.scalar_types[arg]
        return type_label(scope.var_types[arg]) if arg in scope.var_types else None
    call = re.fullmatch(r"([A-Za-z_]\w*)\s*\(", arg[: arg.find("(") + 1]) if "(" in arg else None
    if call and close_paren(arg, arg.find("(")) == len(arg) and call.group(1) not in facts.declared:
        name = call.group(1)
        if name in _SCALAR_CASTS:
            return _SCALAR_CASTS[name]
        known = project.declared.get(chunk_file)
        if known is None or name in known:
            return None  # a bare call may be the script's own function
        entry = next((e for g in _GLOBAL_SCOPES if (e := api.lookup(V3, g, name, ("method",)))), None)
        return entry.return_type if entry and entry.return_type in _NUMERIC | _STRINGS else None
    collapsed = arg
    while (shorter := re.sub(r"\([^()]*\)", "()", collapsed)) != collapsed:
        collapsed = shorter
    tail = _TAIL_MEMBER.search(collapsed)
    if tail is None or not _PLAIN_CHAIN.fullmatch(collapsed):
        return None
    member, kinds = tail.group(1), ("method",) if tail.group(2) else ("property",)
    if member in facts.declared or member in (project.declared.get(chunk_file) or ()):
        return None
    dot = masked.rfind(".", at, at + arg.rfind(member))
    receiver = receiver_type(facts.lexed.text, masked, dot, scope) if dot >= 0 else None
    if receiver is not None:
        entry = api.lookup(V3, type_in(V3, receiver), member, kinds)
        return entry.return_type if entry and entry.return_type in _NUMERIC | _STRINGS else None
    returns = {e.return_type for e in api.definers(V3, member, kinds)} | \
        {e.return_type for e in api.definers(V4, member, kinds)}
    if not returns or not returns <= _NUMERIC:
        return None
    return returns.pop() if len(returns) == 1 else "float"


def _converts(arg: str, param: str, api, version: str) -> bool:
    """Whether a value of type `arg` may be passed where a constructor overload takes `param`.

    Numbers and bools pass for one another and for enums, strings for one another; a class for
    itself or an ancestor, a list for any array type. Anything unsure passes.
    """
    arg, param = type_in(version, arg), _TYPED_ARRAY.sub("", param)
    if not arg or not param or arg == param or param == "Variant":
        return True
    if arg in _NUMERIC:
        return param in _NUMERIC or _is_enum(param, api, version)
    if arg in _STRINGS:
        return param in _STRINGS
    if param in _NUMERIC or param in _STRINGS:
        return False
    if arg in _CONTAINERS or param in _CONTAINERS:
        return all(t in _CONTAINERS or t.endswith("Array") for t in (arg, param))
    if api.has_class(version, arg) and api.has_class(version, param):
        return api.is_a(version, arg, param)
    return True


def _fits_overload(entries: list, types: list[str], api, version: str) -> bool:
    return any(e.accepts(len(types)) and len(_param_types(e.signature)) >= len(types)
               and all(_converts(t, p, api, version) for t, p in zip(types, _param_types(e.signature)))
               for e in entries)


_CONSTRUCTOR_CALL = re.compile(r"(?<![\w.$%@])([A-Z]\w*)\s*\(")


def _constructor_findings(facts: CodeFacts, project: ProjectContext | None, chunk_file: str) -> list[Finding]:
    """`String(5)`: a built-in type's constructor whose argument types fit a 3.4 overload and no 4.x one.

    3.4 builds a String from any value; 4.x only from another string type (`str(x)` does the rest),
    and a Color from an int (`Color.hex` in 4.x). Every argument's type must be known.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    out: list[Finding] = []
    for m in _CONSTRUCTOR_CALL.finditer(masked):
        cls = m.group(1)
        if cls in facts.declared or cls in project.class_names:
            continue
        old = [e for e in api.members_of(V3, cls) if is_constructor(e)]
        new = [e for e in api.members_of(V4, cls) if is_constructor(e)]
        args = call_args(masked, m.end() - 1) if old and new else None
        if not args:
            continue
        starts = _arg_starts(masked, m.end() - 1, args)
        types = [_expr_type(facts, project, a, k, chunk_file) for a, k in zip(args, starts)]
        if None in types or not _fits_overload(old, types, api, V3) or _fits_overload(new, types, api, V4):
            continue
        end = close_paren(masked, m.end() - 1)
        call = text[m.start() : end]
        if cls == "String" and len(args) == 1:
            rule = SyntaxRule("string_from_value", "godot3", re.compile(r"String"),
                              old=f"String.String({types[0]})",
                              new=f"str({text[starts[0] : starts[0] + len(args[0])]})",
                              change_type="signature_change", cues=("@GlobalScope.str", "String.String"),
                              caveat=f"Godot 4 builds a String only from a string type, not {types[0]}")
        elif cls == "Color" and types == ["int"]:  # 3.4's Color(from: int), a 32-bit RGBA value
            rule = SyntaxRule("call_form", "godot3", re.compile(r"Color"), old="Color.Color(int)",
                              new=f"Color.hex({text[starts[0] : starts[0] + len(args[0])]})",
                              change_type="signature_change", cues=("Color.Color", "Color.hex"))
        else:
            same_count = [e for e in new if e.accepts(len(args))] or new
            shapes = " | ".join(_call_shape(e, cls) for e in same_count)
            rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(cls)),
                              old=f"{cls}.{cls}({', '.join(types)})", new=shapes,
                              change_type="signature_change", cues=(f"{cls}.{cls}",))
        out.append(Finding("godot3", "syntax", rule.name, call, _line_of(masked, m.start()), rule,
                           start=m.start()))
        if len(out) == MAX_USES_PER_RULE:
            break
    return out


def _params(signature: str) -> list[tuple[str, str]]:
    """`void sort_custom(obj: Object, func: String)` -> [("obj", "Object"), ("func", "String")]."""
    signature = re.sub(r'"[^"]*"', '""', signature)
    open_paren = signature.find("(")
    params = call_args(signature, open_paren) if open_paren >= 0 else None
    return [(p.split(":", 1)[0].strip(), p.split("=", 1)[0].partition(":")[2].strip()) for p in params or []]


def _method_name_at(entry, n: int) -> int | None:
    """Where a call of `n` arguments names a method by a string after its object (3.4's `(obj, "func")`)."""
    params = _params(entry.signature)
    if not entry.accepts(n):
        return None
    return next((i + 1 for i in range(min(n, len(params)) - 1)
                 if params[i][1] == "Object" and params[i + 1][1] == "String"), None)


_MEMBER_CALL = re.compile(r"\.\s*([a-z_]\w*)(?=\s*\()")


def _method_string_findings(facts: CodeFacts, project: ProjectContext | None,
                            chunk_file: str) -> list[Finding]:
    """`nodes.sort_custom(Sorter, "by_y")` on a receiver the code leaves unknown: 3.4's (object, method name)
    call form, where every 4.x method of that name takes a Callable instead.

    Only where every 3.4 method of the name that fits the argument count takes the pair at that place,
    the string is a method name, and the script declares no such method; when the object is `self` and
    the project shows the whole script, the script must declare the named function. Typed receivers are
    the call-form check's.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    known = project.declared.get(chunk_file)
    strings = {start: content for prefix, content, start in facts.lexed.strings if not prefix}
    out: list[Finding] = []
    for m in _MEMBER_CALL.finditer(masked):
        member = m.group(1)
        if member in facts.declared or member in (known or ()):
            continue
        receiver = receiver_type(text, masked, m.start(), facts.scope)
        if receiver is not None and api.has_class(V3, receiver) and api.has_class(V4, receiver):
            continue
        open_at = masked.index("(", m.end())
        args = call_args(masked, open_at)
        old = [e for e in api.definers(V3, member, ("method",)) if e.accepts(len(args or []))]
        at = {_method_name_at(e, len(args)) for e in old} if args and old else {None}
        if len(at) != 1 or None in at:
            continue
        (k,) = at
        quote = _arg_starts(masked, open_at, args)[k]
        name = strings.get(quote)
        if name is None or len(args[k]) != len(name) + 2 or not re.fullmatch(r"[A-Za-z_]\w*", name):
            continue  # the whole argument is one string literal naming a method
        if args[k - 1] == "self" and known is not None and name not in known:
            continue  # `self` and a name the script does not declare: not a method of it
        new = api.definers(V4, member, ("method",))
        if not new or any(e.accepts(len(args)) and len(p := _params(e.signature)) > k
                          and p[k][1] in ("String", "StringName") for e in new):
            continue  # some 4.x method still takes a method name there (`TreeItem.set_custom_draw`)
        shape_3 = f"{old[0].class_name}.{_call_shape(old[0], member)}"
        shape_4 = " | ".join(dict.fromkeys(f"{e.class_name}.{_call_shape(e, member)}" for e in new[:2]))
        rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(member)), old=shape_3, new=shape_4,
                          change_type="signature_change", cues=(f"{new[0].class_name}.{member}", member),
                          mapping_keys=(f"{old[0].class_name}.{member}",),
                          caveat="Godot 4 takes a Callable: pass the function itself (`obj.method`)")
        start = m.start() + masked[m.start():].index(member)
        out.append(Finding("godot3", "syntax", "call_form", text[start : close_paren(masked, open_at)],
                           _line_of(masked, start), rule, start=start))
        if len(out) == MAX_USES_PER_RULE:
            break
    return out


def _own_class(chunk: Chunk, project: ProjectContext | None) -> str | None:
    """The class the chunk's script extends: the project's resolved chain, else the file's `extends`."""
    if project is not None and project.script_class(chunk.source_file):
        return project.script_class(chunk.source_file)
    m = re.search(r"^\s*extends\s+([A-Za-z_]\w*)", f"{chunk.surrounding_context}\n{chunk.code_text}", re.M)
    return m.group(1) if m else None


def code_facts(chunk: Chunk, evidence: EvidenceBundle, project: ProjectContext | None = None) -> CodeFacts:
    """Compute the facts for one chunk and its retrieved evidence (and its project, when known)."""
    gd = is_gdscript(chunk)
    lexed = lex(chunk.code_text, comment_char="#" if gd else ";")
    masked = lexed.masked
    idents = set(identifiers(masked))
    if not gd:
        idents.update(_TYPE_ATTR.findall(chunk.code_text))
    facts = CodeFacts(lexed=lexed, is_gdscript=gd, identifiers=idents, declared=declared_names(chunk, masked))
    if gd:
        api = project.api if project else None
        classes = api.class_names() if api is not None else frozenset()
        nodes = project.scene_nodes.get(chunk.source_file, {}) if project else {}
        inherited = project.inherited_vars.get(chunk.source_file, "") if project else ""
        surrounding = f"{chunk.surrounding_context}\n{inherited}" if inherited else chunk.surrounding_context
        context = lex(surrounding).masked  # the script's members, then those of its project base scripts
        facts.scope = scope_of(chunk.code_text, masked, context,
                               own_class=_own_class(chunk, project), node_types=nodes, classes=classes,
                               node_names=api.node_name_types() if api is not None else None,
                               user_classes=project.class_bases if project else None)
        facts.named = by_name_uses(masked, lexed.strings)
        if api is not None:
            facts.scope.member_type = _member_type(api, classes)
            facts.scope.element_type = _element_type(api)
            infer_var_types(surrounding, context, facts.scope)  # the script's member variables
            if project is not None and chunk.chunk_kind == "function" and chunk.name:
                # untyped parameters that every call in the script passes one class (a parameter hides a member)
                facts.scope.var_types.update(project.param_types.get(chunk.source_file, {}).get(chunk.name, {}))
            infer_var_types(chunk.code_text, masked, facts.scope)
            local = declared_variables(masked)
            for name, cls in (project.assigned_types.get(chunk.source_file, {}) if project else {}).items():
                if name not in local:  # a member built elsewhere: `tex = ImageTexture.new()` in `_init`
                    facts.scope.var_types.setdefault(name, cls)
    rules = GDSCRIPT_RULES if gd else DIRECT_RULES
    scan = masked if gd else chunk.code_text
    for rule in rules:
        found = (Finding(rule.version, "syntax", rule.name, chunk.code_text[begin : m.end()].strip(),
                         _line_of(scan, at), rule, start=at)
                 for m, begin in rule_matches(rule, scan)
                 for at in (begin + len(scan[begin : m.end()]) - len(scan[begin : m.end()].lstrip()),))
        if rule.name == "godot4_api":  # a script's own name; `image.is_empty()` on an Image (3.4 has it too)
            found = (f for f in found if f.text not in facts.declared
                     and not _member_of_34_receiver(facts, project, scan, f.start, f.text))
        elif rule.name in _OWN_NAME_RULES and gd:
            found = (f for f in found if not _own_name_match(f, facts, project, scan))
        limit = MAX_USES_PER_RULE if rule.version == "godot3" else 1
        (facts.godot3 if rule.version == "godot3" else facts.godot4).extend(islice(found, limit))
    if gd:
        for prefix, content, start in lexed.strings:
            if prefix in ("&", "^"):
                facts.godot4.append(Finding("godot4", "syntax", "stringname_literal", f'{prefix}"{content}"',
                                            _line_of(masked, start)))
                break
    facts.godot3.extend(_api_findings(facts, evidence, project, chunk.source_file))
    if gd:
        covered = {(f.name.rsplit(".", 1)[-1], f.line) for f in facts.godot3_api}
        facts.godot3.extend(f for f in _derived_findings(facts, evidence, project, chunk.source_file)
                            if (f.name.rsplit(".", 1)[-1], f.line) not in covered)  # a stated rename says more
        facts.godot3.extend(_named_findings(facts, evidence, project, chunk.source_file))
        for f in facts.godot3_syntax:
            if f.rule is not None and f.rule.name in ("connect_string_method", "disconnect_string_method", "yield"):
                f.signal_gone = _signal_gone(facts, f, evidence, project)
        old_overrides, new_overrides = _override_findings(facts, evidence, project, chunk.source_file)
        facts.godot3.extend(old_overrides)
        facts.godot4.extend(new_overrides)
        # `Basis(Vector3(...))` has its own rule
        constructed = [f for f in _constructor_findings(facts, project, chunk.source_file)
                       if not any(g.start == f.start for g in facts.godot3_syntax)]
        uses = _resolved_member_uses(facts, project)
        if not facts.godot3_syntax:  # a stated syntax change says more than an argument count
            calls = uses + _bare_self_calls(facts, project, chunk.source_file)
            facts.godot3.extend(_call_form_findings(facts, project, calls))
            facts.godot3.extend(_method_string_findings(facts, project, chunk.source_file))
        facts.godot3.extend(constructed)
        facts.godot4.extend(_godot4_api_findings(facts, project, uses))
    # unsafe: raw text for control chars and blobs, code for calls, string contents for shell commands
    raw = chunk.code_text
    if _CONTROL.search(raw):
        facts.unsafe.append("control_characters")
    if _BLOB.search(raw):
        facts.unsafe.append("encoded_blob")
    m = _UNSAFE_CALL.search(masked)
    if m:
        facts.unsafe.append(f"suspicious_call:{m.group(0).rstrip('(').replace(' ', '')}")
    if any(_SHELL.search(content) for _, content, _ in lexed.strings):
        facts.unsafe.append("shell_string")
    if gd:
        facts.noise = [name for name, rx in _NOISE.items() if rx.search(masked)]
        facts.noise += [name for name, rx in _RAW_NOISE.items() if rx.search(raw)]
    return facts


def looks_like_noise(facts: CodeFacts, chunk: Chunk) -> bool:
    """Text that is not Godot: two non-GDScript cues and no GDScript cue (one if the parse failed)."""
    if not facts.is_gdscript or facts.godot3 or facts.godot4:
        return False
    need = 1 if chunk.parse_status == "error" or chunk.chunk_kind == "unparsed" else 2
    if _GD_CUES.search(facts.lexed.masked) and need == 2:
        need = 3
    return len(facts.noise) >= need
