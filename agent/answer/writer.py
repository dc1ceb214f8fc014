"""Write the answer: the LLM when configured, the template otherwise, and the validator on both.

Order: prepare the suggested Godot 4 code (validated on its own: re-parsed, re-judged, no
inherited member redeclared), write the template with it, then, with an endpoint configured, let
the LLM write; its answer is shown only if `check_answer` passes, else the template is, with the
reason recorded in `fallback_reason` and every failed rule in `validation_failures`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from agent.answer.check import CITE, InheritedProperties, Retrieve, check_answer, code_blocks, code_failures, \
    drop_inherited_zero_vars
from agent.answer.inputs import AnswerInput
from agent.judge.project import ProjectContext
from agent.answer.llm import AnswerLLMError, LLMAnswerWriter, TokenSink
from agent.answer.model import Answer
from agent.answer.phrases import phrase
from agent.answer.template import sources_lines, write_template
from agent.settings import Settings

log = logging.getLogger(__name__)


def candidate_code(inp: AnswerInput) -> str | None:
    """The Godot 4 code to suggest before validation: the snippet's, or the one flagged chunk's."""
    if inp.suggested_code:
        return inp.suggested_code
    flagged = [c for c in inp.chunks if (c.get("judgment") or {}).get("suggested_code")
               and (c.get("judgment") or {}).get("migration_required")]
    return flagged[0]["judgment"]["suggested_code"] if len(flagged) == 1 else None


def validated_code(code: str | None, *, retrieve: Retrieve | None, dimension: str,
                   props: InheritedProperties | None, kb: ProjectContext | None = None) -> tuple[str | None, list[str]]:
    """(code that passes the code rules or None, the failures found on the way)."""
    if not code:
        return None, []
    fixed = drop_inherited_zero_vars(code, props)
    if fixed is None:
        return None, [f"suggested code dropped: {f}" for f in code_failures(code, retrieve=retrieve,
                                                                              dimension=dimension, props=props, kb=kb)]
    failures = code_failures(fixed, retrieve=retrieve, dimension=dimension, props=props, kb=kb)
    if failures:
        return None, [f"suggested code dropped: {f}" for f in failures]
    return fixed, []


def _finish_llm(answer: Answer) -> Answer:
    """The LLM answer as shown: its Markdown, the validated code block, the numbered sources."""
    parts = [answer.markdown]
    if answer.suggested_code and answer.suggested_code.strip() not in {b.strip() for b in code_blocks(answer.markdown)}:
        parts += ["", phrase("code_head", answer.language), "```gdscript", answer.suggested_code.rstrip("\n"), "```"]
    used = {int(n) for n in CITE.findall(answer.markdown)}
    cited = [c for c in answer.citations if c.number in used]
    src = sources_lines(cited, answer.language)
    if src:
        parts += ["", phrase("sources", answer.language), *src]
    return answer.model_copy(update={"markdown": "\n".join(parts), "citations": cited})


async def write_answer(inp: AnswerInput, *, settings: Settings, retrieve: Retrieve | None,
                       props: InheritedProperties | None = None, on_token: TokenSink | None = None,
                       writer: Any = None, kb: ProjectContext | None = None) -> Answer:
    """The validated answer for `inp` (see module docstring)."""
    retrieved = set(inp.evidence)
    code, code_notes = await asyncio.to_thread(validated_code, candidate_code(inp), retrieve=retrieve,
                                               dimension=inp.dimension, props=props, kb=kb)
    template = write_template(inp, code=code)
    checked = frozenset({code} if code else ())
    failures = await asyncio.to_thread(check_answer, template, retrieved=retrieved, retrieve=retrieve,
                                       dimension=inp.dimension, props=props, checked=checked, kb=kb)
    if failures:  # the template's own code failed in context: show the answer without it
        log.warning("template answer failed validation: %s", failures[0])
        template = write_template(inp, code=None)
        code_notes += failures
    template = template.model_copy(update={"validation_failures": code_notes})
    if not settings.llm_base_url:
        return template
    llm = writer or LLMAnswerWriter(settings)
    try:
        answer = await llm.write(inp, base_code=code, on_token=on_token)
    except AnswerLLMError as exc:
        log.info("llm answer fell back: %s", exc.reason)
        return template.model_copy(update={"fallback_reason": exc.reason})
    rejected = await asyncio.to_thread(check_answer, answer, retrieved=retrieved, retrieve=retrieve,
                                       dimension=inp.dimension, props=props, checked=checked, kb=kb)
    if rejected:
        log.info("llm answer rejected: %s", rejected[0])
        return template.model_copy(update={"fallback_reason": f"validation: {rejected[0]}",
                                           "validation_failures": [*code_notes, *rejected]})
    return _finish_llm(answer).model_copy(update={"validation_failures": code_notes})

