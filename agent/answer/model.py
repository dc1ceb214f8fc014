"""The answer record: what the user reads after an analysis, typed once and rendered by every front door."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Citation(BaseModel):
    """`[number]` in the answer's Markdown: one piece of evidence retrieved during the run."""

    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1)
    evidence_id: str = Field(description="record id of a docs_chunks / api_mapping / label_prototypes hit")
    title: str = ""
    url: str | None = None
    """The evidence's own page, at the member anchor its id carries."""
    table: str = ""
    """docs_chunks or api_mapping (label prototypes are never sources: see `Answer.patterns`)."""
    doc_version: str | None = None
    """For docs: the version the page documents ("3.4", or the 4.x docs' version)."""
    retrieved_for: Literal["chunk", "answer"] = "chunk"
    """chunk: in a chunk's evidence; answer: retrieved by the answer step for an API the code calls."""


class Answer(BaseModel):
    """A validated reply to the prompt's intent (explain, migrate, version check), in the question's language."""

    model_config = ConfigDict(extra="forbid")

    markdown: str
    """The reply, with `[n]` citations that map to `citations`."""
    language: str = "en"
    """en | ko | zh | ru: the language of the question (en when unknown)."""
    task_type: str = "version_check"
    citations: list[Citation] = Field(default_factory=list)
    suggested_code: str | None = None
    """A whole Godot 4 script or chunk that passed the answer validator, or None."""
    writer: Literal["template", "llm"] = "template"
    model: str | None = None
    fallback_reason: str | None = None
    """Why the LLM answer was not used (timeout, invalid_json, validation: <rule>...), else None."""
    validation_failures: list[str] = Field(default_factory=list)
    """Every answer-validator rule that failed along the way."""
