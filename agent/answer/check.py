"""The answer validator: an answer is only shown once these rules pass; otherwise the template is.

Rules (a failure names its rule):
  citations_retrieved        every `[n]` maps to a citation, every citation to evidence retrieved in the run
  no_godot3_api_recommended  suggested code holds no Godot 3 API (the judge's own rule, on fresh retrieval)
  project_dimension          no 3D node suggested for a 2D project, and the reverse
  suggested_code_godot3      suggested code, parsed and judged again by the evidence judge, still signals Godot 3
  inherited_redeclared       a member redeclares a property its Godot 4 base class already has
  godot3_member              a Godot 3 only member the API index does not map (`get_tree().idle_frame`)
  format                     the Markdown is empty or leaves a code fence open
Text inside the user's code and comments is data: nothing in it changes these rules.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from agent import changes
from agent.answer.model import Answer
from agent.judge.base import JudgeInput
from agent.judge.dimension import dimension_of_name
from agent.judge.evidence import EvidenceJudge
from agent.judge.exact_rows import with_exact_rows
from agent.judge.project import ProjectContext, snippet_context
from agent.judge.lexer import identifiers, lex
from agent.judge.recommend import recommendation_failures
from agent.models import Chunk, EvidenceBundle, Judgment, SourceFile

CITE = re.compile(r"\[(\d{1,3})\]")
_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.S)
_EXTENDS = re.compile(r"^extends\s+([A-Za-z_]\w*)", re.M)
_MEMBER_VAR = re.compile(r"^(?:@\w+(?:\([^)\n]*\))?\s+)*var\s+([A-Za-z_]\w*)", re.M)
_ZERO_INIT = re.compile(r"=\s*Vector[23]\s*(?:\.\s*ZERO\b|\(\s*\))\s*$")
# Godot 3 only members that have no one-to-one api_mapping row: the `godot3_member` rows of
# agent/data/changes/renames.json (names are facts, not docs prose).
GODOT3_MEMBERS = changes.renamed(rule="godot3_member")
_INHERITS = re.compile(r"Inherits:\s*((?:[A-Za-z_]\w*\s*<\s*)*[A-Za-z_]\w*)")

Retrieve = Callable[[Any], EvidenceBundle]
"""A sync `Retriever.retrieve` (RetrieverQuery -> EvidenceBundle)."""


class InheritedProperties:
    """Properties a Godot 4 class has through its inheritance chain, read from the docs in the KB.

    The class page's overview chunk names its ancestors (`Inherits: A < B < ...`); the members are the
    `Class.member` symbols of docs_chunks. Looked up once per class per instance.
    """

    def __init__(self, sync_pool: Any) -> None:
        self.pool = sync_pool
        self._chains: dict[str, list[str]] = {}

    def chain(self, cls: str) -> list[str]:
        """`cls` and its ancestors, nearest first (just `cls` when its page is not in the KB)."""
        if cls not in self._chains:
            with self.pool.connection() as conn:
                row = conn.execute(
                    "SELECT content FROM godot_rag.docs_chunks WHERE doc_type = 'class_reference' AND symbol = %s"
                    " AND content LIKE %s ORDER BY chunk_id LIMIT 1", (cls, "%Inherits:%")).fetchone()
            m = _INHERITS.search(" ".join(row["content"].split())) if row else None
            self._chains[cls] = [cls, *[c.strip() for c in m.group(1).split("<")]] if m else [cls]
        return self._chains[cls]

    def has(self, cls: str, member: str) -> str | None:
        """The `Class.member` symbol that defines `member` for `cls`, or None."""
        names = [f"{c}.{member}" for c in self.chain(cls)]
        with self.pool.connection() as conn:
            row = conn.execute("SELECT symbol FROM godot_rag.docs_chunks WHERE symbol = ANY(%s)"
                               " AND doc_type = 'class_reference' AND metadata->>'member_kind' = 'property' LIMIT 1",
                               (names,)).fetchone()
        return row["symbol"] if row else None


def code_blocks(markdown: str) -> list[str]:
    """Every fenced code block of the Markdown."""
    return [m.group(1) for m in _FENCE.finditer(markdown)]


def check_citations(answer: Answer, retrieved: set[str]) -> list[str]:
    """Every `[n]` resolves, every citation is retrieved evidence (numbers inside code blocks are code)."""
    prose = _FENCE.sub("", answer.markdown)
    numbers = {c.number for c in answer.citations}
    failures = [f"citations_retrieved: [{n}] has no citation" for n in sorted({int(n) for n in CITE.findall(prose)})
                if n not in numbers]
    failures += [f"citations_retrieved: [{c.number}] {c.evidence_id} was never retrieved in this run"
                 for c in answer.citations if c.evidence_id not in retrieved]
    return failures


def check_format(answer: Answer) -> list[str]:
    """Non-empty Markdown with balanced fences."""
    if not answer.markdown.strip():
        return ["format: empty answer"]
    if answer.markdown.count("```") % 2:
        return ["format: a code fence is left open"]
    return []


def _source(code: str) -> SourceFile:
    data = code.encode("utf-8")
    return SourceFile(path="suggested.gd", kind="gdscript", included=True, reason="suggested code",
                      size=len(data), sha256=hashlib.sha256(data).hexdigest(), text=code)


def inherited_failures(code: str, props: InheritedProperties | None) -> list[str]:
    """`var velocity` under `extends CharacterBody2D`: Godot 4 refuses a member that redeclares an inherited one."""
    if props is None:
        return []
    masked = lex(code).masked
    m = _EXTENDS.search(masked)
    if not m:
        return []
    base = m.group(1)
    out = []
    for var in _MEMBER_VAR.finditer(masked):
        owner = props.has(base, var.group(1))
        if owner:
            out.append(f"inherited_redeclared: `var {var.group(1)}` redeclares {owner} (inherited by {base})")
    return out


def drop_inherited_zero_vars(code: str, props: InheritedProperties | None) -> str | None:
    """Remove member lines that redeclare an inherited property with a zero default; None if one has another value.

    `var velocity = Vector2.ZERO` under CharacterBody2D goes (the inherited property starts at zero);
    `var velocity = Vector2(10, 0)` cannot simply go, so no code is suggested.
    """
    if props is None:
        return code
    masked = lex(code).masked
    m = _EXTENDS.search(masked)
    if not m:
        return code
    lines, masked_lines = code.split("\n"), masked.split("\n")
    out: list[str] = []
    removed = False
    for line, view in zip(lines, masked_lines):
        var = _MEMBER_VAR.match(view)
        if var and props.has(m.group(1), var.group(1)):
            if not _ZERO_INIT.search(line.split("#", 1)[0].rstrip()) and "=" in view:
                return None
            removed = True
            continue
        if removed and not line.strip() and out and not out[-1].strip():
            continue  # the removed line leaves one blank line, not two
        removed = False
        out.append(line)
    return "\n".join(out)


def _dimension_failures(code: str, dimension: str) -> list[str]:
    if dimension not in ("2d", "3d"):
        return []
    wrong = "3d" if dimension == "2d" else "2d"
    bad = sorted({n for n in identifiers(lex(code).masked) if dimension_of_name(n) == wrong})
    return [f"project_dimension: {wrong.upper()} node(s) {', '.join(bad)} suggested for a {dimension.upper()} project"] \
        if bad else []


def _member_failures(code: str) -> list[str]:
    masked = lex(code).masked
    return [f"godot3_member: `{old}` is Godot 3; Godot 4 has `{new}`" for old, new in GODOT3_MEMBERS.items()
            if re.search(rf"\.\s*{old}\b", masked)]


def code_failures(code: str, *, retrieve: Retrieve | None, dimension: str = "unknown",
                  props: InheritedProperties | None = None, prompt: str = "", kb: ProjectContext | None = None) -> list[str]:
    """Parse the suggested code, judge each chunk again with fresh evidence: it must hold no Godot 3 signal.

    With `kb` (`project.knowledge_context`) the code is judged like a run's chunks: on its script model,
    with every mapping row it names, so the judge and this check never disagree about what code contains.
    """
    from agent.parse import chunk_file
    from agent.retrieve.query import build_retriever_query, split_trace

    failures = _member_failures(code) + _dimension_failures(code, dimension) + inherited_failures(code, props)
    judge = EvidenceJudge()
    source = _source(code)
    project = snippet_context(source.path, code, kb)
    chunks: list[Chunk] = chunk_file(source)
    for chunk in chunks:
        query = build_retriever_query(prompt or "Godot 4", chunk)
        bundle = retrieve(query) if retrieve is not None else EvidenceBundle(query_id="none", task_type="version_check")
        inp = with_exact_rows(JudgeInput(prompt=prompt, trace=split_trace(chunk, "suggested"), chunk=chunk,
                                         evidence=bundle, project=project,
                                         project_dimension=dimension if dimension in ("2d", "3d") else "unknown"))
        facts = inp.facts
        j = judge.decide(inp)
        if j.version_signal == "godot3":
            failures.append(f"suggested_code_godot3: line {chunk.span.start_line}: {j.rationale[:160]}")
        probe = Judgment(version_signal="neutral", label="ambiguous_version_signal", migration_required=False,
                         confidence=0.5, rationale="", suggested_code=chunk.code_text)
        failures += recommendation_failures(probe, inp, facts)
    return list(dict.fromkeys(failures))


def check_answer(answer: Answer, *, retrieved: set[str], retrieve: Retrieve | None, dimension: str = "unknown",
                 props: InheritedProperties | None = None, checked: frozenset[str] = frozenset(),
                 kb: ProjectContext | None = None) -> list[str]:
    """Every rule of the module docstring on one answer; [] means it may be shown.

    `checked` holds code already validated by `code_failures` (not judged twice).
    """
    failures = check_format(answer) + check_citations(answer, retrieved)
    blocks = code_blocks(answer.markdown)
    if answer.suggested_code and answer.suggested_code.strip() not in {b.strip() for b in blocks}:
        blocks.append(answer.suggested_code)
    done = {c.strip() for c in checked}
    for block in [b for b in blocks if b.strip() not in done]:
        failures += code_failures(block, retrieve=retrieve, dimension=dimension, props=props, kb=kb)
    return failures
