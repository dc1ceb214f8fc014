"""Turn a RetrieverQuery into search terms: exact identifiers, tsquery text, trigram probes."""

from __future__ import annotations

import re

from agent import changes
from agent.judge.syntax_rules import (
    BASIS_FROM_EULER,
    GDSCRIPT_RULES,
    STRING_FROM,
    VELOCITY_DECLARATION,
    rule_matches,
)
from agent.models import RetrieverQuery
from agent.parse.scan import KEYWORDS, scan

_IDENT = re.compile(r"^@?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# GDScript keywords and ubiquitous names: they match thousands of docs rows and say nothing.
STOP_IDENTIFIERS = frozenset(
    "var const func if elif else for while in return self and or not true false null pass extends class "
    "break continue match static signal enum is as void int float bool String Array Dictionary print "
    "delta _ready _process _physics_process _init value i j x y n".split()
)

# English words that say nothing in this corpus: the product's name and the words most docs chunks
# contain (each is in more than 5% of the 22.6k chunks of the Godot 4.4 docs). OR-ed into the
# keyword query they add a thousand matches to rank and no signal.
GENERIC_WORDS = frozenset(
    "godot gdscript description usage use uses used set get value values note see also one method methods "
    "property properties default name create change changes current enable given type mode call text".split()
)


# GDScript 1 keywords in their syntactic position: they name the api_mapping syntax records
# (`export` -> `@export`), which the chunker's symbol lists never contain. The keywords are the grammar this
# regex parses; the RPC keywords are a list, read from agent/data/changes/syntax.json.
_GODOT3_KEYWORDS = re.compile(
    r"^[ \t]*(?:(export)\s*(?:\(|var\b)|(onready)\s+var\b|(tool)[ \t]*(?:#.*)?$|"
    rf"({changes.alternation(changes.syntax().rpc_keywords)})\s+(?:func|var)\b)|\b(setget)\b", re.MULTILINE)

# Godot 3 forms that the symbol lists miss or that have no API name of their own: the string call forms
# (`connect("signal", target, "m")`, `Thread.start(self, "m")`, 3-argument `disconnect`), `.method()` /
# `func _init().()` parent calls and the icon after `class_name`. The judge's syntax rule finds each, and
# its mapping keys are the terms that look up its api_mapping record.
_KEYED_RULES = tuple(r for r in GDSCRIPT_RULES if r.name in (
    "connect_string_method", "thread_start_old", "disconnect_string_method", "super_dot_call", "init_super_args",
    "class_name_icon", "is_variable_type"))


# Godot 3 constructor calls (`String(5)`, `Basis(Vector3(...))`) name no API: look up what replaces them
_CONSTRUCTOR_FORMS = ((re.compile(STRING_FROM), ("@GlobalScope.str",)),
                      (re.compile(BASIS_FROM_EULER), ("Basis.from_euler",)))


def exact_terms(query: RetrieverQuery) -> list[str]:
    """Identifiers for whole-identifier lookup: `Input.is_action_pressed` also gives `Input`, `is_action_pressed`."""
    out: dict[str, None] = {}
    for raw in [*query.symbol_candidates, *query.api_call_candidates]:
        name = raw.strip().rstrip("()")
        if not name or not _IDENT.match(name):
            continue
        out.setdefault(name)
        if "." in name:
            parts = name.split(".")
            for p in parts:
                out.setdefault(p)
            for a, b in zip(parts, parts[1:]):
                out.setdefault(f"{a}.{b}")
    for m in _GODOT3_KEYWORDS.finditer(query.raw_chunk_text):
        out.setdefault(next(g for g in m.groups() if g))
    for rule in _KEYED_RULES:
        if next(rule_matches(rule, query.raw_chunk_text), None):
            out.update(dict.fromkeys(rule.mapping_keys))
    if VELOCITY_DECLARATION.search(query.raw_chunk_text):  # the mapping of CharacterBody's velocity property
        out.setdefault("velocity")
    for pattern, names in _CONSTRUCTOR_FORMS:  # their rules cite the pages of what replaces them
        if pattern.search(query.raw_chunk_text):
            out.update(dict.fromkeys(names))
    return [t for t in out if t not in STOP_IDENTIFIERS]


def keyword_text(query: RetrieverQuery, identifiers: list[str],
                 common: frozenset[str] = frozenset()) -> tuple[str, str]:
    """(identifier text for `simple`, word text for `english`) in websearch syntax with OR semantics.

    Same recipe as `godot_rag.build_tsv`: identifiers unstemmed, prose stemmed. Only word
    characters survive, so user text can never inject tsquery operators. Single names that are
    `common` lexemes of the knowledge base (`Vector2`, `File`, `new`) are left out: OR-ed in, each
    adds thousands of rows to rank and no signal (the exact and symbol legs still look them up);
    dotted names stay, as phrases they are selective.
    """
    idents = [t.replace(".", " ").lstrip("@") for t in identifiers[:16] if _IDENT.match(t)]
    idents = [t for t in idents if " " in t or t.lower() not in common]
    words: dict[str, None] = {}
    for term in [*query.query_terms, *query.prompt_terms]:
        for w in _WORD.findall(term):
            low = w.lower()
            if (w not in STOP_IDENTIFIERS and len(w) > 2 and w not in identifiers
                    and low not in GENERIC_WORDS and low not in common):
                words.setdefault(low)
    ident_text = " or ".join(f'"{t}"' if " " in t else t for t in idents if t)
    return ident_text, " or ".join(list(words)[:16])


def trigram_probes(identifiers: list[str], limit: int = 2, common: frozenset[str] = frozenset()) -> list[str]:
    """The most specific identifiers (longest first) for fuzzy matching on short search_text.

    A `common` name (`Vector2`) is found whole in thousands of rows: probing it costs a
    word_similarity per row and finds nothing the exact and symbol legs miss.
    """
    singles = [t.lstrip("@") for t in identifiers
               if "." not in t and len(t) >= 6 and t.lstrip("@").lower() not in common]
    return sorted(dict.fromkeys(singles), key=lambda t: (-len(t), t))[:limit]


# Identifiers in code position, each with the role its use gives it. Property accesses and
# constants are not among the parser's symbol/call candidates (`camera.translation.x = 1.0`,
# `event.button_index == BUTTON_LEFT`); the judge decides per role, retrieval only looks them up.
_MEMBER_USE = re.compile(r"\.\s*([A-Za-z_]\w*)(\s*\()?")
_BARE_CALL = re.compile(r"(?<![\w.$%@])([a-z_]\w*)\s*\(")
_CONSTANT = re.compile(r"(?<![\w$%@])([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b")
_CLASS = re.compile(r"(?<![\w.$%@])([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b")
_BARE_NAME = re.compile(r"(?<![\w.$%@])([a-z_][a-z0-9_]*)\b(?!\s*\()")
_CODE_TERM_LIMIT = 64


def code_roles(code: str, *, gdscript: bool = True) -> dict[str, list[str]]:
    """name -> roles (`call`, `property`, `constant`, `class`, `name`) of the identifiers the code uses.

    Members named by a string count too: in a by-name call (`call_deferred("change_scene", p)`) as calls or
    properties, in `connect("hide", ...)` / `emit_signal("hide")` as signals.

    Bare names (`translation.x += 1`: a property of the script's own class) count in GDScript only,
    of 4 characters or more and not declared by the code itself (its vars, params, loop variables);
    a scene's `instance=` or `type=` is no code.
    """
    from agent.judge.lexer import lex  # the one GDScript lexer: comments and strings never count
    from agent.judge.receivers import by_name_uses, signal_string_uses

    lexed = lex(code)
    masked = lexed.masked
    roles: dict[str, dict[str, None]] = {}
    for use in by_name_uses(masked, lexed.strings) if gdscript else ():  # `call_deferred("change_scene", p)`
        roles.setdefault(use.name, {})[use.role] = None
    for name in signal_string_uses(masked, lexed.strings) if gdscript else ():  # `connect("hide", self, "f")`
        roles.setdefault(name, {})["signal"] = None
    for m in _MEMBER_USE.finditer(masked):
        roles.setdefault(m.group(1), {})["call" if m.group(2) else "property"] = None
    for m in _BARE_CALL.finditer(masked):
        roles.setdefault(m.group(1), {})["call"] = None
    for m in _CONSTANT.finditer(masked):
        roles.setdefault(m.group(1), {})["constant"] = None
    for m in _CLASS.finditer(masked):
        roles.setdefault(m.group(1), {})["class"] = None
    own = set(scan(masked)[1]) if gdscript else set()
    for m in _BARE_NAME.finditer(masked) if gdscript else ():
        if len(m.group(1)) >= 4 and m.group(1) not in own and m.group(1) not in KEYWORDS:
            roles.setdefault(m.group(1), {})["name"] = None
    return {k: list(v) for k, v in roles.items() if k not in STOP_IDENTIFIERS and len(k) > 1}


def code_terms(query: RetrieverQuery, already: list[str]) -> tuple[list[str], list[str]]:
    """Identifiers in code position not yet among the exact terms, for the exact api_mapping lookup only:
    (members, calls, constants and classes; bare names). The exact leg ranks the bare names' rows last,
    so a chunk's many bare names never crowd out what its member uses find."""
    seen = set(already)
    fresh = [(t, r) for t, r in code_roles(query.raw_chunk_text, gdscript=query.gdscript).items() if t not in seen]
    uses = [t for t, r in fresh if r != ["name"]][:_CODE_TERM_LIMIT]
    names = [t for t, r in fresh if r == ["name"]][:_CODE_TERM_LIMIT]
    return uses, names
