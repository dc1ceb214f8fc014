"""Godot 4 inference errors: `:=` on what 3.4 types and 4.x only as Variant, found on the script model."""

from __future__ import annotations

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
from agent.judge.base import JudgeInput
from agent.judge.evidence import EvidenceJudge
from agent.judge.project import build_project_context
from agent.models import EvidenceBundle
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import gd_chunks


def _index() -> ApiIndex:
    entries, classes = [], []
    for v in (V3, V4):
        for cls, parent in (("Object", ""), ("Node", "Object"), ("float", ""), ("int", ""),
                            ("@GlobalScope", ""), ("@GDScript", "")):
            entries.append(ApiEntry(v, cls, "", "class"))
            classes.append(ClassEntry(v, cls, parent))
    entries += [ApiEntry(V3, "@GDScript", "max", "method", return_type="float"),
                ApiEntry(V4, "@GlobalScope", "max", "method", return_type="Variant"),
                ApiEntry(V4, "@GlobalScope", "maxf", "method", return_type="float")]
    return ApiIndex(entries, classes, complete_v4=True)


def _judged(code: str):
    project = build_project_context({"a.gd": code}, _index())
    chunk = gd_chunks(code, "a.gd")[-1]
    inp = JudgeInput(prompt="", trace=split_trace(chunk, "t"), chunk=chunk,
                     evidence=EvidenceBundle(query_id="t", task_type="t"), project=project)
    return inp.facts, EvidenceJudge().decide(inp)


def test_a_variant_inferred_with_colon_equals_is_godot3_and_gets_its_type():
    facts, judgment = _judged("extends Node\n\nfunc f(a, b):\n\tvar s := max(a, b)\n\treturn s\n")
    assert [f.name for f in facts.godot3_syntax] == ["inferred_variant"]
    assert "var s: float = max(a, b)" in (judgment.suggested_code or "")


def test_a_typed_result_or_plain_assignment_is_fine():
    for body in ("var s := maxf(a, b)", "var s = max(a, b)", "var s: float = max(a, b)"):
        facts, _ = _judged(f"extends Node\n\nfunc f(a, b):\n\t{body}\n\treturn s\n")
        assert not facts.godot3, body
