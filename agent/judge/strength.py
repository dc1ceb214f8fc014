"""How much one chunk's version signal weighs when its file and its project are decided.

A Godot 4 project can hold an API leftover in a code path nobody ran (`dialog.window_title`), but it
cannot hold a script the Godot 4 parser rejects (`export var`, `yield(`, `setget`), nor one that
extends a class Godot 4 lacks. So a signal is *decisive* where the other version cannot even load the
code, *strong* for an API use the judge resolved, and *weak* for a hint. The project verdict
(`agent.graph.verdict`) reads these, never a raw count of chunks.
"""

from __future__ import annotations

from agent.judge.facts import CodeFacts
from agent.judge.syntax_rules import GRAMMAR
from agent.models import Chunk, Judgment


def signal_strength(judgment: Judgment, facts: CodeFacts, chunk: Chunk) -> str | None:
    """`decisive` | `strong` | `weak` for a godot3/godot4 judgment of `chunk`, None for a neutral one."""
    if judgment.version_signal == "neutral":
        return None
    findings = facts.godot3 if judgment.version_signal == "godot3" else facts.godot4
    grammar = GRAMMAR[judgment.version_signal]
    if any(f.kind == "syntax" and f.rule is not None and f.rule.name in grammar for f in findings):
        return "decisive"
    sure = [f for f in findings if not f.weak]
    if chunk.chunk_kind == "class_extends" and sure:
        return "decisive"  # `extends KinematicBody2D`: the other version cannot load the script at all
    return "strong" if sure else "weak"


def with_strength(judgment: Judgment, facts: CodeFacts, chunk: Chunk) -> Judgment:
    """The judgment with its `strength` set from the chunk's facts (whichever judge wrote it)."""
    strength = signal_strength(judgment, facts, chunk)
    return judgment if judgment.strength == strength else judgment.model_copy(update={"strength": strength})
