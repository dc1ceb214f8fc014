"""What a judgment recommends must not be Godot 3: the `no_godot3_api_recommended` rule.

Only the recommended side is checked: each change's `new` and the suggested code, never
the `old` side (that is the user's Godot 3 code, quoted). Old names match as whole
identifiers in code positions, case-sensitively: a node path `$Sprite`, a string, a
comment, `@export` or the user's own `var sprite` is not the Godot 3 class `Sprite`.
The evidence judge runs the same check on its own output and drops a suggestion that
fails it, so one imperfect rewrite never costs the whole verdict.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, type_in
from agent.gdscript.typer import ProjectScripts, Typer
from agent.judge.base import JudgeInput
from agent.judge.facts import CodeFacts, looks_like_noise
from agent.judge.lexer import lex
from agent.models import Judgment

_IDENT_API = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_CODE_LIKE = re.compile(r"[()\"'=$.]")


def _mapping_live(md: dict) -> bool:
    source, target = md.get("source_api"), md.get("target_api")
    return bool(source) and source != target and md.get("status") != "rejected" \
        and md.get("change_type") != "unchanged" and not md.get("documented_in_godot4")


def _still_a_4x_name(name: str, inp: JudgeInput) -> bool:
    """A bare old name Godot 4 still defines as some member (`hide`, a 3.4 signal, is 4.x's CanvasItem.hide()):
    in suggested code it is that member, not the old API."""
    api = inp.project.api if inp.project else None
    return "." not in name and api is not None and api.complete_v4 and api.defined_anywhere(V4, name)


def forbidden_names(inp: JudgeInput) -> set[str]:
    """Old API names (identifiers or `Class.member`) of the retrieved mappings still gone in Godot 4."""
    return {str(h.metadata["source_api"]) for h in inp.evidence.api_mapping_evidence
            if _mapping_live(h.metadata) and _IDENT_API.fullmatch(str(h.metadata["source_api"]))
            and not _still_a_4x_name(str(h.metadata["source_api"]), inp)}


def negative_patterns(inp: JudgeInput) -> list[str]:
    """Old-side code patterns of the retrieved mappings (mappings Godot 4 still documents excluded)."""
    phrases: list[str] = []
    for hit in inp.evidence.api_mapping_evidence:
        if not _mapping_live(hit.metadata) or _still_a_4x_name(str(hit.metadata.get("source_api") or ""), inp):
            continue
        for p in hit.metadata.get("negative_patterns") or []:
            if isinstance(p, dict):
                p = p.get("pattern")
            if isinstance(p, str) and len(p.strip()) > 2:
                phrases.append(p.strip())
    return phrases


def forbidden_answer_terms(inp: JudgeInput, facts: CodeFacts) -> list[str]:
    """The retrieved prototypes' forbidden terms; a noise prototype's only for a chunk that looks like noise.

    Retrieval is by similarity: `WebSocketServer` brings up the web-markup prototype, whose
    "Godot 3 API" must not bind an answer about GDScript with Godot findings and no noise cues.
    """
    noise = looks_like_noise(facts, inp.chunk)
    terms: list[str] = []
    for hit in inp.evidence.label_evidence:
        if hit.metadata.get("label") == "non_godot_noise" and not noise:
            continue
        rules = hit.metadata.get("validator_rules") or {}
        terms += [t for t in rules.get("forbidden_answer_terms") or [] if isinstance(t, str) and t.strip()]
    return terms


def _name_in_code(name: str, masked: str) -> bool:
    """Whole identifier in a code position: not `@export`, `.export`, `$Sprite`, `%Sprite` or `sprite`."""
    if "." in name:
        owner, member = name.rsplit(".", 1)
        rx = rf"(?<![\w@$%.]){re.escape(owner)}\s*\.\s*{re.escape(member)}\b"
    else:
        rx = rf"(?<![\w@$%.]){re.escape(name)}\b"
    return re.search(rx, masked) is not None


def _phrase_in(text: str, phrase: str, *, ignore_case: bool) -> bool:
    """Never inside a longer name (`export var` is not in `@export var`)."""
    head = r"(?<![\w@$%.])" if phrase[:1].isalnum() or phrase[:1] == "_" else ""
    tail = r"\b" if phrase[-1:].isalnum() or phrase[-1:] == "_" else ""
    return re.search(f"{head}{re.escape(phrase)}{tail}", text, re.IGNORECASE if ignore_case else 0) is not None


def _pattern_in(code: str, pattern: str, declared: set[str]) -> bool:
    lexed = lex(code)
    if _IDENT_API.fullmatch(pattern):  # an old name: whole identifier in code, not one the user declared
        return pattern not in declared and _name_in_code(pattern, lexed.masked)
    return _phrase_in(lexed.no_comments, pattern, ignore_case=False)


def recommendation_failures(j: Judgment, inp: JudgeInput, facts: CodeFacts) -> list[str]:
    """`no_godot3_api_recommended: ...` entries for the new sides and the suggested code."""
    failures: list[str] = []
    suggestions = [c.new for c in j.suggested_changes if c.new]
    if j.suggested_code:
        suggestions.append(j.suggested_code)
    for name in sorted(forbidden_names(inp)):
        if name in facts.declared:
            continue
        if any(_name_in_code(name, lex(t).masked) for t in suggestions):
            failures.append(f"no_godot3_api_recommended: suggests Godot 3 API {name!r}")
    for pattern in dict.fromkeys(negative_patterns(inp)):
        if any(_pattern_in(t, pattern, facts.declared) for t in suggestions):
            failures.append(f"no_godot3_api_recommended: suggestion matches negative pattern {pattern!r}")
    failures += _index_failures(suggestions, inp, facts)
    failures += _typed_failures(suggestions, inp)
    for term in forbidden_answer_terms(inp, facts):
        # prose terms ("keep KinematicBody2D") also bind the rationale; code-like ones only suggestions
        if _CODE_LIKE.search(term):
            hit = any(_phrase_in(lex(t).no_comments, term, ignore_case=False) for t in suggestions)
        else:
            hit = any(_phrase_in(t, term, ignore_case=True) for t in [*suggestions, j.rationale])
        if hit:
            failures.append(f"no_godot3_api_recommended: matches forbidden answer term {term!r}")
    return failures


_CLASS_WORD = re.compile(r"(?<![\w@$%.])([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b(?:\s*\.\s*([A-Za-z_]\w*))?")


def _index_failures(suggestions: list[str], inp: JudgeInput, facts: CodeFacts) -> list[str]:
    """`no_godot3_api_recommended` by the API index: a class (or a class's member) only 3.4 defines."""
    api = inp.project.api if inp.project else None
    if api is None or not suggestions:
        return []
    out: list[str] = []
    for text in suggestions:
        for m in _CLASS_WORD.finditer(lex(text).masked):
            cls, member = m.group(1), m.group(2)
            if cls in facts.declared:
                continue
            if api.only_in_3(cls):
                out.append(f"no_godot3_api_recommended: suggests {cls!r}, which only the Godot 3.4 reference "
                           "defines (API index)")
            elif member and api.has_class("4.x", cls) and api.has_class("3.4", cls) and api.complete_v4 \
                    and api.lookup("3.4", cls, member) and not api.lookup("4.x", cls, member):
                out.append(f"no_godot3_api_recommended: suggests {cls}.{member}, which only the Godot 3.4 "
                           "reference defines (API index)")
    return list(dict.fromkeys(out))


_MEMBER_AFTER = re.compile(r"\.\s*([A-Za-z_]\w*)")
_WHOLE = re.compile(r"^(?:static[ \t]+)?func[ \t]", re.M)
"""Suggested code that holds its own column-0 functions (else it is a statement, wrapped in one)."""


def _typed_failures(suggestions: list[str], inp: JudgeInput) -> list[str]:
    """`no_godot3_api_recommended` on the script model: a member used on a receiver the typer resolves
    (`await get_tree().idle_frame`) that its 3.4 class has and its 4.x class (and subclasses) lacks.

    Each suggestion is read as code of the chunk's script (its `extends` and its scene's nodes; no type is
    guessed from a node's name), so the judge and this check type the same receivers the same way.
    """
    project = inp.project
    api = project.api if project is not None else None
    if api is None or not api.complete_v4 or not suggestions:
        return []
    memo: dict[str, list[str]] = inp.__dict__.setdefault("_typed_failures", {})  # the self-check probes again
    out: list[str] = []
    for text in suggestions:
        if text not in memo:
            memo[text] = _typed_failures_of(text, inp, api)
        out += memo[text]
    return list(dict.fromkeys(out))


def _typed_failures_of(text: str, inp: JudgeInput, api) -> list[str]:
    project, path = inp.project, "suggested.gd"
    own = project.script_class(inp.chunk.source_file) or ""
    body = text if _WHOLE.search(text) else "func _suggested():\n" + "\n".join(
        f"\t{line}" for line in text.replace("; ", "\n").split("\n"))
    code = f"extends {own}\n{body}\n" if own else f"{body}\n"
    typer = Typer(ProjectScripts({path: code}, scene_nodes={path: project.scene_nodes.get(inp.chunk.source_file, {})}),
                  api)
    data = code.encode("utf-8")
    out = []
    for at, receiver in typer.receivers(path, 0, len(data)).items():
        member = _MEMBER_AFTER.match(data[at:].decode("utf-8", "replace"))
        if not receiver or member is None:
            continue
        old, new, name = type_in(V3, receiver), type_in(V4, receiver), member.group(1)
        if api.lookup(V3, old, name) and api.has_class(V4, new) and not api.lookup(V4, new, name) \
                and not api.defined_below(V4, new, name):
            out.append(f"no_godot3_api_recommended: suggests {new}.{name}, which only the Godot 3.4 "
                       "reference defines on that receiver (API index)")
    return out


def drop_godot3_recommendations(j: Judgment, inp: JudgeInput, facts: CodeFacts) -> Judgment:
    """The evidence judge's self-check: drop suggested code, then single `new` sides, that fail the rule."""
    if not recommendation_failures(j, inp, facts):
        return j
    # the code and each item on their own: an item's one-line form (`@onready var j := $J as Joint`, before the
    # class rename another item makes) may fail where the whole rewrite, every change in it, passes
    code_only = j.model_copy(update={"suggested_changes": [], "rationale": ""})
    if j.suggested_code is not None and recommendation_failures(code_only, inp, facts):
        j = j.model_copy(update={"suggested_code": None})
    changes = []
    for c in j.suggested_changes:
        probe = j.model_copy(update={"suggested_changes": [c], "rationale": ""})
        if c.new and recommendation_failures(probe, inp, facts):
            c = c.model_copy(update={"new": None, "note": (c.note + "; " if c.note else "") + "no safe replacement"})
        changes.append(c)
    return j.model_copy(update={"suggested_changes": changes})
