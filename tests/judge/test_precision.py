"""Precision first: real Godot 4 code (106 functions written for this test) is almost never flagged godot3,
and plainly Godot 3 functions are."""

from __future__ import annotations

from pathlib import Path

from agent.judge.validate import judge_and_validate
from tests.retrieve.helpers import gd_chunks, judge_input

DATA = Path(__file__).parent / "data"


def _functions(folder: str):
    for path in sorted((DATA / folder).glob("*.gd")):
        for chunk in gd_chunks(path.read_text(), path.name):
            if chunk.chunk_kind == "function":
                yield path.name, chunk


async def test_godot4_corpus_under_one_percent_flagged(retriever, evidence_judge):
    total, flagged, verdicts = 0, [], {"godot3": 0, "godot4": 0, "neutral": 0}
    for name, chunk in _functions("godot4"):
        out = await judge_and_validate(evidence_judge, judge_input(retriever, chunk), fallback=evidence_judge)
        total += 1
        verdicts[out.judgment.version_signal] += 1
        if out.judgment.version_signal == "godot3":
            flagged.append(f"{name}:{chunk.name}: {out.judgment.rationale}")
    print(f"\nGodot 4 corpus: {total} functions, verdicts {verdicts}")
    assert total >= 100
    assert len(flagged) / total < 0.01, flagged


async def test_godot3_functions_are_flagged(retriever, evidence_judge):
    total, missed = 0, []
    for name, chunk in _functions("godot3"):
        out = await judge_and_validate(evidence_judge, judge_input(retriever, chunk), fallback=evidence_judge)
        total += 1
        if out.judgment.version_signal != "godot3" or not out.judgment.migration_required:
            missed.append(f"{chunk.name}: {out.judgment.label} {out.judgment.rationale} {out.validation_failures}")
    print(f"\nGodot 3 functions: {total}, missed {len(missed)}")
    assert total >= 12
    assert not missed, "\n".join(missed)
