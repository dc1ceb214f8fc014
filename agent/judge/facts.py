"""Deterministic facts about one chunk: version findings, declared names, noise and unsafe cues.

Both the evidence judge (to decide) and the validator (to catch an LLM contradicting the
code) read the same facts, so they can never disagree about what the code contains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from agent.judge.lexer import Lexed, identifiers, lex
from agent.judge.syntax_rules import DIRECT_RULES, GDSCRIPT_RULES, SyntaxRule
from agent.models import Chunk, EvidenceBundle, RetrievalHit

AST_KINDS = {"class_extends", "class_name", "tool", "signal", "declaration_group", "enum", "function",
             "inner_class", "unparsed"}

_DECLARED = re.compile(r"^\s*(?:static\s+)?(?:var|const|func|signal|class|enum|class_name)\s+([A-Za-z_]\w*)",
                       re.MULTILINE)
_PARAMS = re.compile(r"\bfunc\s*[A-Za-z_]?\w*\s*\(([^)]*)\)")
_FOR_VAR = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\b")
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

    @property
    def godot3_syntax(self) -> list[Finding]:
        return [f for f in self.godot3 if f.kind == "syntax"]

    @property
    def godot3_api(self) -> list[Finding]:
        return [f for f in self.godot3 if f.kind == "api"]

    @property
    def has_godot_cues(self) -> bool:
        return bool(self.godot3 or self.godot4 or _GD_CUES.search(self.lexed.masked))


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def declared_names(chunk: Chunk, masked: str) -> set[str]:
    """Names the code itself declares (vars, funcs, params, loop vars, enum members)."""
    names = set(_DECLARED.findall(masked))
    for params in _PARAMS.findall(masked):
        for p in params.split(","):
            m = re.match(r"\s*([A-Za-z_]\w*)", p)
            if m:
                names.add(m.group(1))
    names.update(_FOR_VAR.findall(masked))
    for body in _ENUM_BODY.findall(masked):
        names.update(re.findall(r"([A-Za-z_]\w*)\s*(?:=|,|$)", body))
    extra = chunk.extra.get("declared_names")
    if isinstance(extra, (list, tuple, set)):
        names.update(str(x) for x in extra)
    return names


def _is_gdscript(chunk: Chunk) -> bool:
    return chunk.chunk_kind in AST_KINDS or chunk.source_file.endswith(".gd")


def _api_findings(facts: CodeFacts, evidence: EvidenceBundle) -> list[Finding]:
    """Identifiers that exactly match a retrieved api_mapping old name, used as an API (not declared)."""
    masked = facts.lexed.masked
    out: list[Finding] = []
    seen: set[str] = set()
    for hit in evidence.api_mapping_evidence:
        md = hit.metadata
        source = str(md.get("source_api") or "")
        target = md.get("target_api")
        if not source or source == target or source in seen or md.get("status") == "rejected":
            continue
        if md.get("change_type") in ("behavior_change", "unchanged"):  # same name, other semantics: no version cue
            continue
        if md.get("documented_in_godot4"):
            continue  # still a valid Godot 4 name (Viewport, Texture): not a signal on its own
        if "." in source:
            owner, member = source.rsplit(".", 1)
            pattern = re.compile(rf"\b{re.escape(owner)}\s*\.\s*{re.escape(member)}\b")
        else:
            if source not in facts.identifiers or source in facts.declared:
                continue
            if source[:1].isupper():
                pattern = re.compile(rf"(?<![\w.@]){re.escape(source)}\b")
            else:
                # A member name counts only with a receiver (`get_tree().change_scene(`): a bare
                # `change_scene()` may be the script's own function, declared in another chunk.
                pattern = re.compile(rf"\.\s*{re.escape(source)}\b")
        m = pattern.search(masked)
        if not m:
            continue
        seen.add(source)
        text = facts.lexed.text[m.start() : m.end()].strip()
        out.append(Finding("godot3", "api", source, text, _line_of(masked, m.start()), mapping=hit, start=m.start()))
    return out


def code_facts(chunk: Chunk, evidence: EvidenceBundle) -> CodeFacts:
    """Compute the facts for one chunk and its retrieved evidence."""
    gd = _is_gdscript(chunk)
    lexed = lex(chunk.code_text, comment_char="#" if gd else ";")
    masked = lexed.masked
    idents = set(identifiers(masked))
    if not gd:
        idents.update(_TYPE_ATTR.findall(chunk.code_text))
    facts = CodeFacts(lexed=lexed, is_gdscript=gd, identifiers=idents, declared=declared_names(chunk, masked))
    rules = GDSCRIPT_RULES if gd else DIRECT_RULES
    scan = masked if gd else chunk.code_text
    for rule in rules:
        m = rule.pattern.search(scan)
        if m:
            text = chunk.code_text[m.start() : m.end()].strip()
            lead = len(scan[m.start() : m.end()]) - len(scan[m.start() : m.end()].lstrip())
            finding = Finding(rule.version, "syntax", rule.name, text, _line_of(scan, m.start() + lead), rule,
                              start=m.start() + lead)
            (facts.godot3 if rule.version == "godot3" else facts.godot4).append(finding)
    if gd:
        for prefix, content, start in lexed.strings:
            if prefix in ("&", "^"):
                facts.godot4.append(Finding("godot4", "syntax", "stringname_literal", f'{prefix}"{content}"',
                                            _line_of(masked, start)))
                break
    facts.godot3.extend(_api_findings(facts, evidence))
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
