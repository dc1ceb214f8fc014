"""Deterministic facts about one chunk: version findings, declared names, noise and unsafe cues.

Both the evidence judge (to decide) and the validator (to catch an LLM contradicting the
code) read the same facts, so they can never disagree about what the code contains.
`code_facts` lexes the chunk and types its names (the scope), runs the finding rules of
`agent.judge.findings` in their registry's order, then looks for unsafe and non-Godot text.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, per_version_type, type_in
from agent.judge.findings import REGISTRY, run
from agent.judge.findings.arguments import TYPED_ARRAY
from agent.judge.findings.common import (GD_CUES, MAX_USES_PER_RULE, CodeFacts, FindContext, Finding,
                                         derived_from_index, own_class, signal_renames, without_derived)
from agent.judge.lexer import identifiers, lex
from agent.judge.project import ProjectContext
from agent.judge.receivers import by_name_uses, infer_var_types, scope_of
from agent.judge.syntax_rules import FOR_VARIABLE, declared_variables, parameters
from agent.models import Chunk, EvidenceBundle

__all__ = ["AST_KINDS", "MAX_USES_PER_RULE", "REGISTRY", "CodeFacts", "Finding", "code_facts",
           "declared_names", "derived_from_index", "is_gdscript", "looks_like_noise", "signal_renames",
           "without_derived"]

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


def _member_type(api, classes: frozenset[str]):
    """What `type.member` holds or returns in each version; only class types (a Variant, an int or an
    enum says nothing about members).

    Where the versions disagree, the type is per version (`per_version_type`): `get_packet()` is a
    PoolByteArray in 3.4 and a PackedByteArray in 4.x, so a Godot 4 `get_packet().get_string_from_utf8()`
    is checked against PackedByteArray and never becomes a use of PoolByteArray. A side that returns
    a Variant or an Object could hold anything: then nothing is known.
    """
    def member_type(owner: str, member: str) -> str | None:
        found = {version: TYPED_ARRAY.sub("", e.return_type) for version in (V3, V4)
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
                               own_class=own_class(chunk, project), node_types=nodes, classes=classes,
                               node_names=api.node_name_types() if api is not None else None,
                               user_classes=project.class_bases if project else None)
        facts.named = by_name_uses(masked, lexed.strings)
        if project is not None:  # the receivers the script's model types (the chunk is a span of its file)
            facts.scope.dot_types = project.dot_types(chunk.source_file, chunk.code_text, chunk.span.start_byte)
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
    found = run(FindContext(chunk, facts, evidence, project))
    for entry_findings in found.values():  # each finding goes to its version's list, in registry order
        for f in entry_findings:
            (facts.godot3 if f.version == "godot3" else facts.godot4).append(f)
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
    if GD_CUES.search(facts.lexed.masked) and need == 2:
        need = 3
    return len(facts.noise) >= need
