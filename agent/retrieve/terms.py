"""Turn a RetrieverQuery into search terms: exact identifiers, tsquery text, trigram probes."""

from __future__ import annotations

import re

from agent.models import RetrieverQuery

_IDENT = re.compile(r"^@?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# GDScript keywords and ubiquitous names: they match thousands of docs rows and say nothing.
STOP_IDENTIFIERS = frozenset(
    "var const func if elif else for while in return self and or not true false null pass extends class "
    "break continue match static signal enum is as void int float bool String Array Dictionary print "
    "delta _ready _process _physics_process _init value i j x y n".split()
)


# GDScript 1 keywords in their syntactic position: they name the api_mapping syntax records
# (`export` -> `@export`), which the chunker's symbol lists never contain.
_GODOT3_KEYWORDS = re.compile(
    r"^[ \t]*(?:(export)\s*(?:\(|var\b)|(onready)\s+var\b|(tool)[ \t]*$|"
    r"(remote|master|puppet|remotesync|mastersync|puppetsync)\s+(?:func|var)\b)|\b(setget)\b", re.MULTILINE)

# Godot 3 call forms with string method names: Thread.start(self, "m"), connect("signal", target, "m")
_THREAD_START = re.compile(r"\.\s*start\s*\(\s*self\s*,\s*[\"']")
_STRING_CONNECT = re.compile(r"\bconnect\s*\(\s*[\"'][^\"'\n]*[\"']\s*,\s*[\w.$]+\s*,\s*[\"']")


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
    if _THREAD_START.search(query.raw_chunk_text):
        out.setdefault("Thread.start")
    if _STRING_CONNECT.search(query.raw_chunk_text):
        out.setdefault("connect")
    return [t for t in out if t not in STOP_IDENTIFIERS]


def keyword_text(query: RetrieverQuery, identifiers: list[str]) -> tuple[str, str]:
    """(identifier text for `simple`, word text for `english`) in websearch syntax with OR semantics.

    Same recipe as `godot_rag.build_tsv`: identifiers unstemmed, prose stemmed. Only word
    characters survive, so user text can never inject tsquery operators.
    """
    idents = [t.replace(".", " ").lstrip("@") for t in identifiers[:16]]
    words: dict[str, None] = {}
    for term in [*query.query_terms, *query.prompt_terms]:
        for w in _WORD.findall(term):
            if w not in STOP_IDENTIFIERS and len(w) > 2 and w not in identifiers:
                words.setdefault(w.lower())
    ident_text = " or ".join(f'"{t}"' if " " in t else t for t in idents if t)
    return ident_text, " or ".join(list(words)[:16])


def trigram_probes(identifiers: list[str], limit: int = 2) -> list[str]:
    """The most specific identifiers (longest first) for fuzzy matching on short search_text."""
    singles = [t.lstrip("@") for t in identifiers if "." not in t and len(t) >= 6]
    return sorted(dict.fromkeys(singles), key=lambda t: (-len(t), t))[:limit]
