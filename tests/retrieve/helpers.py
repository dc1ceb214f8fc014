"""Chunk real code with the real parser, query, retrieve and wrap it for a judge (test helper)."""

from __future__ import annotations

import hashlib

from agent.judge.base import JudgeInput, ProjectDimension
from agent.models import Chunk, EvidenceBundle, SourceFile
from agent.parse import chunk_file
from agent.retrieve.query import build_retriever_query, split_trace

PROMPT = "Is this Godot 4 code? What must change?"


def gd_chunks(code: str, path: str = "player.gd") -> list[Chunk]:
    """The real GDScript chunker over `code`."""
    data = code.encode()
    kind = "gdscript" if path.endswith(".gd") else ("scene" if path.endswith(".tscn") else "project_config")
    f = SourceFile(path=path, kind=kind, included=True, reason="test", size=len(data),
                   sha256=hashlib.sha256(data).hexdigest(), text=code)
    return chunk_file(f)


def find_chunk(chunks: list[Chunk], needle: str) -> Chunk:
    """The first chunk whose code contains `needle`."""
    for c in chunks:
        if needle in c.code_text:
            return c
    raise AssertionError(f"no chunk contains {needle!r}: {[c.code_text for c in chunks]}")


def judge_input(retriever, chunk: Chunk, *, prompt: str = PROMPT, dimension: ProjectDimension = "unknown",
                evidence: EvidenceBundle | None = None) -> JudgeInput:
    """Retrieve for one chunk and build the judge's input."""
    query = build_retriever_query(prompt, chunk)
    bundle = evidence if evidence is not None else retriever.retrieve(query)
    return JudgeInput(prompt=prompt, trace=split_trace(chunk, "proj-test"), chunk=chunk, evidence=bundle,
                      project_dimension=dimension)
