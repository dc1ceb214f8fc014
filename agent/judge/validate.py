"""The validator: every judgment, from either judge, passes these rules before it is stored.

Rules (a failure names its rule):
  json                       the output parses as JSON into a `Judgment`
  label_in_set               the label is one of the seven
  evidence_ids_retrieved     every cited id was retrieved for this chunk
  no_godot3_api_recommended  suggestions (new side, suggested code) hold no Godot 3 API:
                             old names of retrieved mappings, their negative_patterns, and the
                             prototypes' forbidden_answer_terms
  project_dimension          no 3D node suggested for a 2D project, and the reverse
  consistency                label, version_signal and migration_required agree
  conflicting_evidence       the verdict contradicts what the code contains (code facts)
  weak_evidence              a version verdict with no cited evidence or very low confidence
A failed judgment is replaced by a downgraded `ambiguous_version_signal` one.

`judge_and_validate` is the one policy over both judges: it asks the run's judge, validates
the answer exactly once, and on an unusable LLM answer falls back to the evidence judge
(validated once too), recording why.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

from pydantic import ValidationError

from agent.judge.base import Judge, JudgeError, JudgeInput, JudgeOutcome
from agent.judge.dimension import dimension_of_name
from agent.judge.evidence import EvidenceJudge
from agent.judge.exact_rows import with_exact_rows
from agent.judge.facts import CodeFacts
from agent.judge.lexer import identifiers, lex
from agent.judge.prompts import PROMPT_VERSION
from agent.judge.recommend import recommendation_failures
from agent.judge.strength import with_strength
from agent.models import LABELS, Judgment

__all__ = ["ValidationResult", "judge_and_validate", "parse_judgment", "validate"]

log = logging.getLogger(__name__)

_GODOT3_LABELS = {"godot3_api_in_godot4", "deprecated_or_removed_api", "migration_required"}
_NEUTRAL_LABELS = {"ambiguous_version_signal", "non_godot_noise", "unsafe_or_obfuscated_code"}
MIN_CONFIDENCE = 0.3


@dataclass
class ValidationResult:
    """Outcome of validating one judgment."""

    ok: bool
    failures: list[str]
    """One entry per failed rule, `rule: detail`."""
    judgment: Judgment
    """The judgment itself when ok, else its downgraded `ambiguous_version_signal` form."""
    downgraded: bool = field(default=False)


def parse_judgment(raw: Judgment | dict | str) -> tuple[Judgment | None, list[str]]:
    """(the `Judgment`, []) or (None, [`json: ...` | `label_in_set: ...`]) for a raw answer."""
    if isinstance(raw, Judgment):
        return raw, []
    data = raw
    if isinstance(raw, (str, bytes)):
        try:
            data = json.loads(raw)
        except ValueError as exc:
            return None, [f"json: not valid JSON ({exc.msg} at {exc.pos})"]
    if not isinstance(data, dict):
        return None, [f"json: expected an object, got {type(data).__name__}"]
    label = data.get("label")
    if label not in LABELS:
        return None, [f"label_in_set: {label!r} is not one of the fixed labels"]
    try:
        return Judgment.model_validate(data), []
    except ValidationError as exc:
        first = exc.errors()[0]
        return None, [f"json: does not match the Judgment schema ({'.'.join(map(str, first['loc']))}: {first['msg']})"]


def _check_dimension(j: Judgment, inp: JudgeInput) -> list[str]:
    project = inp.project_dimension
    if project == "unknown":
        return []
    own = {dimension_of_name(n) for n in identifiers(lex(inp.chunk.code_text).masked)}
    suggested = [c.new for c in j.suggested_changes if c.new]
    if j.suggested_code:
        suggested.append(lex(j.suggested_code).masked)
    wrong = "3d" if project == "2d" else "2d"
    if wrong in own:
        return []  # the chunk itself is of the other dimension: suggestions may follow it
    bad = sorted({n for text in suggested for n in identifiers(text) if dimension_of_name(n) == wrong})
    return [f"project_dimension: {wrong.upper()} node(s) {', '.join(bad)} suggested for a {project.upper()} project"] if bad else []


def _check_consistency(j: Judgment) -> list[str]:
    problems = []
    if j.label == "godot4_valid_api" and j.version_signal != "godot4":
        problems.append("label godot4_valid_api needs version_signal godot4")
    if j.label in _GODOT3_LABELS and (j.version_signal != "godot3" or not j.migration_required):
        problems.append(f"label {j.label} needs version_signal godot3 and migration_required")
    if j.label in _NEUTRAL_LABELS and (j.version_signal != "neutral" or j.migration_required):
        problems.append(f"label {j.label} needs version_signal neutral and no migration")
    if j.migration_required and j.version_signal != "godot3":
        problems.append("migration_required needs version_signal godot3")
    return [f"consistency: {p}" for p in problems]


def _check_facts(j: Judgment, facts: CodeFacts) -> list[str]:
    problems = []
    if facts.unsafe and j.label != "unsafe_or_obfuscated_code":
        problems.append(f"the chunk holds unsafe content ({', '.join(facts.unsafe)})")
    if j.label == "unsafe_or_obfuscated_code" and not facts.unsafe:
        problems.append("unsafe label without unsafe content")
    if j.label == "non_godot_noise" and facts.has_godot_cues:
        problems.append("non_godot_noise for code with GDScript/Godot cues")
    if j.version_signal == "godot4" and facts.godot3_syntax:
        problems.append("godot4 verdict but Godot 3 only syntax present: "
                        + ", ".join(f.text for f in facts.godot3_syntax[:3]))
    if j.version_signal == "godot3" and not facts.godot3:
        problems.append("godot3 verdict with no Godot 3 syntax or retrieved old API name in code position")
    if j.version_signal == "godot4" and not facts.godot4:
        problems.append("godot4 verdict with no Godot 4 only syntax or API in code position")
    return [f"conflicting_evidence: {p}" for p in problems]


def _downgrade(j: Judgment | None, inp: JudgeInput, failures: list[str]) -> Judgment:
    retrieved = inp.evidence.ids()
    rules = sorted({f.split(":", 1)[0] for f in failures})
    previous = f" Previous answer: {j.version_signal}/{j.label}." if j else ""
    return Judgment(
        version_signal="neutral", label="ambiguous_version_signal", migration_required=False,
        confidence=min(j.confidence, 0.3) if j else 0.0,
        rationale=f"Downgraded by the validator ({', '.join(rules)}).{previous}",
        evidence_ids=[i for i in (j.evidence_ids if j else []) if i in retrieved],
    )


def validate(judgment: Judgment | dict | str, inp: JudgeInput) -> ValidationResult:
    """Check one judgment against every rule; a failure downgrades it (see module docstring)."""
    parsed, failures = parse_judgment(judgment)
    if parsed is None:
        return ValidationResult(ok=False, failures=failures, judgment=_downgrade(None, inp, failures), downgraded=True)
    j = parsed
    retrieved = inp.evidence.ids()
    cited = [*j.evidence_ids, *(c.evidence_id for c in j.suggested_changes if c.evidence_id)]
    unknown = sorted({i for i in cited if i not in retrieved})
    if unknown:
        failures.append(f"evidence_ids_retrieved: not retrieved for this chunk: {', '.join(unknown[:5])}")
    facts = inp.facts
    failures += recommendation_failures(j, inp, facts)
    failures += _check_dimension(j, inp)
    failures += _check_consistency(j)
    failures += _check_facts(j, facts)
    if j.version_signal != "neutral" and not j.evidence_ids:
        failures.append("weak_evidence: a version verdict that cites no retrieved evidence")
    elif j.version_signal != "neutral" and j.confidence < MIN_CONFIDENCE:
        failures.append(f"weak_evidence: confidence {j.confidence:.2f} < {MIN_CONFIDENCE}")
    if failures:
        return ValidationResult(ok=False, failures=failures, judgment=_downgrade(j, inp, failures), downgraded=True)
    return ValidationResult(ok=True, failures=[], judgment=j)


async def judge_and_validate(judge: Judge, inp: JudgeInput, *, fallback: EvidenceJudge | None = None) -> JudgeOutcome:
    """The graph's judge step: one judgment for the chunk, validated exactly once.

    The evidence judge's judgment is validated, and downgraded if it fails. An LLM answer
    (`LLMJudge.judge`: parsed, or `JudgeError`) that is unusable or rejected is replaced by
    the evidence judge's, validated in turn; the reason is `fallback_reason` and every failed
    rule is kept in `validation_failures`. An accepted LLM answer is cached.
    """
    fallback = fallback or _EVIDENCE
    inp = with_exact_rows(inp)
    if judge.kind != "llm":
        checked = validate(judge.decide(inp), inp)
        return JudgeOutcome(judgment=with_strength(checked.judgment, inp.facts, inp.chunk), judge_kind="evidence",
                            model=None, prompt_version=PROMPT_VERSION, validation_failures=checked.failures,
                            evidence=inp.evidence)
    try:
        answer = await judge.judge(inp)
    except JudgeError as exc:
        return _fall_back(fallback, inp, exc.reason, exc.failures, exc.attempts)
    result = validate(answer.judgment, inp)
    if not result.ok:
        return _fall_back(fallback, inp, "validation: " + result.failures[0], result.failures, answer.attempts)
    if not answer.cached:
        await judge.remember(inp, result.judgment)
    return JudgeOutcome(judgment=with_strength(result.judgment, inp.facts, inp.chunk), judge_kind="llm",
                        model=judge.model, prompt_version=PROMPT_VERSION,
                        llm_attempts=answer.attempts, cached=answer.cached, evidence=inp.evidence)


_EVIDENCE = EvidenceJudge()


def _fall_back(fallback: EvidenceJudge, inp: JudgeInput, reason: str, failures: list[str], attempts: int) -> JudgeOutcome:
    log.info("llm judge fell back for %s: %s", inp.trace.chunk_id, reason)
    checked = validate(fallback.decide(inp), inp)
    return JudgeOutcome(judgment=with_strength(checked.judgment, inp.facts, inp.chunk), judge_kind="evidence",
                        model=None, prompt_version=PROMPT_VERSION, fallback_reason=reason,
                        validation_failures=[*failures, *checked.failures],
                        llm_attempts=attempts, evidence=inp.evidence)
