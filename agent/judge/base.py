"""The judge contract: one input record, one outcome record, the error an LLM answer raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from agent.judge.facts import CodeFacts, code_facts
from agent.models import Chunk, ChunkTrace, EvidenceBundle, Judgment

if TYPE_CHECKING:
    from agent.judge.project import ProjectContext

ProjectDimension = Literal["2d", "3d", "unknown"]
JudgeKind = Literal["evidence", "llm"]


@dataclass(kw_only=True)
class JudgeInput:
    """Everything a judge may look at for one chunk."""

    prompt: str
    """The user's question (never parsed as code)."""
    trace: ChunkTrace
    """Where the chunk came from; echoed to the LLM for context, never searched."""
    chunk: Chunk
    """The chunk itself, with AST facts in `chunk.extra`."""
    evidence: EvidenceBundle
    """What the retriever found for this chunk; the only ids a judgment may cite."""
    project_dimension: ProjectDimension = "unknown"
    """2D or 3D project (see `detect_project_dimension`); suggestions must match it."""
    project: ProjectContext | None = None
    """Extends chains, scene node types and the API index of both versions (`agent/judge/project.py`);
    None judges the chunk on its own, without receiver resolution."""
    exact_rows_added: bool = False
    """The evidence already holds every mapping row the findings cite (`agent.judge.exact_rows`)."""

    @cached_property
    def facts(self) -> CodeFacts:
        """What the chunk's code contains, given its evidence: computed once, read by the evidence
        judge and the validator alike, so they never disagree about the code."""
        return code_facts(self.chunk, self.evidence, self.project)


@dataclass(kw_only=True)
class JudgeOutcome:
    """A validated judgment plus how it was produced (stored per chunk by the graph)."""

    judgment: Judgment
    judge_kind: JudgeKind
    """Who produced the final judgment: `evidence` also when the LLM fell back."""
    model: str | None
    """LLM model name when `judge_kind == "llm"`, else None."""
    prompt_version: str
    fallback_reason: str | None = None
    """Why the LLM answer was not used (timeout, invalid_json, validation: <rule>...), else None."""
    validation_failures: list[str] = field(default_factory=list)
    """Validator rules that failed along the way (rejected LLM output or a downgraded judgment)."""
    llm_attempts: int = 0
    """HTTP calls made to the LLM endpoint for this chunk (0 on a cache hit or with the evidence judge)."""
    cached: bool = False
    """True when the LLM judgment came from the cache."""
    evidence: EvidenceBundle | None = None
    """The evidence judged: the retrieved rows plus every mapping row a finding rests on (stored with the result)."""


class JudgeError(Exception):
    """An LLM answer that cannot be used (timeout, endpoint error, unparseable JSON)."""

    def __init__(self, reason: str, *, failures: list[str] | None = None, attempts: int = 0):
        super().__init__(reason)
        self.reason = reason
        """Recorded as the chunk's `fallback_reason`."""
        self.failures = failures or []
        """Validator rules the answer already failed (a parse failure)."""
        self.attempts = attempts
        """HTTP calls made before giving up."""


@runtime_checkable
class Judge(Protocol):
    """A judge of either kind; `agent.judge.validate.judge_and_validate` is how the graph uses one."""

    kind: str
    """`evidence` or `llm`."""
