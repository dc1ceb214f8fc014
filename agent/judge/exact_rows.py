"""Detection never depends on top-k: the rules see every mapping row the chunk names exactly.

`with_exact_rows` runs the chunk's facts over its retrieved evidence plus every api_mapping row its
code names (`MappingTable.named`), then keeps in the evidence the rows the findings cite and the docs
pages they rest on (fetched by symbol and id). The fuzzy legs still bring docs and explanations; they
no longer decide what is found or rewritten.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace

import psycopg

from agent.judge.base import JudgeInput
from agent.judge.facts import code_facts
from agent.judge.lexer import identifiers, lex
from agent.retrieve.mapping_table import with_rows

log = logging.getLogger(__name__)

_DOTTED = re.compile(r"\b([A-Za-z_]\w*)\s*\.\s*([A-Za-z_]\w*)")
_NAME = re.compile(r"[A-Za-z_]\w*")
_DOTTED_TEXT = re.compile(r"[A-Z]\w*\s*\.\s*[A-Za-z_]\w*")


def exact_names(code: str) -> set[str]:
    """Every name the code spells in code position, its `A.b` pairs, and names spelled as whole strings
    (`connect("hide", ...)`, `call_deferred("update")`): what an api_mapping row is found by."""
    lexed = lex(code)
    names = set(identifiers(lexed.masked))
    names.update(f"{a}.{b}" for a, b in _DOTTED.findall(lexed.masked))
    names.update(content for _, content, _ in lexed.strings if _NAME.fullmatch(content))
    return names


def _pages(findings, rows) -> tuple[list[str], list[str]]:
    """(symbols, docs ids) a finding rests on: the class-reference pages of what a syntax finding names (its
    cues and keys, `Time`, `UndoRedo.add_do_method`, the `OS.get_ticks_usec` it matched), of a Godot 4 member
    or class; and the docs each cited mapping row names. Fetched by index, never left to ranking."""
    symbols: list[str] = []
    for f in findings:
        if f.rule is not None:
            symbols += [c for c in (*f.rule.cues, *f.rule.mapping_keys) if "." in c or c[:1].isupper()]
            symbols += [re.sub(r"\s+", "", d) for d in _DOTTED_TEXT.findall(f.text)]
        elif f.version == "godot4" and f.kind == "api":
            symbols.append(f.name.split(" ", 1)[0])
    cited = {f.mapping.record_id for f in findings if f.mapping is not None}
    ids = [i for r in rows if r.mapping_id in cited for i in r.hit.metadata.get("evidence_chunk_ids") or ()]
    ids += [i for f in findings if f.rule is not None for i in f.rule.docs]
    return list(dict.fromkeys(symbols)), list(dict.fromkeys(ids))


def with_exact_rows(inp: JudgeInput) -> JudgeInput:
    """`inp` whose evidence holds every mapping row and reference page its findings rest on.

    The rules run over the retrieved rows plus every row the code names (`MappingTable.named`). The
    evidence then keeps the retrieved rows, every documented-change row the code names (curated and
    converter rows: few, and the rewrites read them), the index-derived rows a finding cites, and the
    reference pages of call forms and Godot 4 cues. The facts are computed again over exactly that
    evidence, so the judge, the validator and the stored trace see the same rows. Without a mapping
    table (a context built without the knowledge base) `inp` is returned as it is.
    """
    table = getattr(inp.project, "mappings", None)
    if table is None or inp.exact_rows_added:
        return inp
    candidates = table.named(exact_names(inp.chunk.code_text))
    first = code_facts(inp.chunk, with_rows(inp.evidence, candidates), inp.project)
    findings = (*first.godot3, *first.godot4)
    cited = {f.mapping.record_id for f in findings if f.mapping is not None}
    gone = {f.signal_gone for f in findings if f.signal_gone}  # `yield(get_tree(), "idle_frame")`: its rename row
    rows = [r for r in candidates if not r.derived or r.mapping_id in cited or r.source_api in gone]
    fetch = getattr(inp.project, "pages", None)
    symbols, ids = _pages(findings, rows)
    try:
        pages = fetch(symbols, ids) if fetch is not None and (symbols or ids) else []
    except psycopg.Error as exc:  # the findings stand; what backs them is then only what was retrieved
        log.warning("reference pages not fetched for %s: %s", inp.chunk.chunk_id, exc)
        pages = []
    evidence = with_rows(inp.evidence, rows, pages)
    done = replace(inp, evidence=evidence, exact_rows_added=True)
    if evidence is inp.evidence:
        done.__dict__["facts"] = first  # nothing added: the first pass read these very rows
    return done
