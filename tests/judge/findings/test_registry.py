"""The findings registry: its order is what code_facts runs, and its precedence fields do what they say."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

import agent.judge.findings as findings
from agent.judge.facts import code_facts
from agent.judge.findings import REGISTRY, Annotation, Rule, run
from agent.judge.findings.common import Finding
from agent.models import EvidenceBundle
from tests.retrieve.helpers import gd_chunks

EMPTY = EvidenceBundle(query_id="t", task_type="t")

ORDER = ("syntax", "stringname_literal", "renamed_members", "gone_members", "members_by_string",
         "signal_gone", "overrides", "call_form", "method_strings", "constructors", "inference", "redeclared",
         "godot4_cues")


def test_registry_order():
    assert tuple(e.name for e in REGISTRY) == ORDER


def test_precedence_names_earlier_entries():
    names = [e.name for e in REGISTRY]
    for i, e in enumerate(REGISTRY):
        earlier = set(names[:i])
        refs = (e.of,) if isinstance(e, Annotation) else (*e.yields_line_to, *e.yields_use_to,
                                                          *e.yields_start_to)
        assert set(refs) <= earlier, (e.name, refs)


def _recording(monkeypatch) -> list[str]:
    """Replace REGISTRY with the same entries, each noting its name when code_facts calls it."""
    calls: list[str] = []

    def wrap(e):
        if isinstance(e, Annotation):
            def annotate(ctx, fs, e=e):
                calls.append(e.name)
                return e.annotate(ctx, fs)
            return dataclasses.replace(e, annotate=annotate)

        def find(ctx, e=e):
            calls.append(e.name)
            return e.find(ctx)
        return dataclasses.replace(e, find=find)

    monkeypatch.setattr(findings, "REGISTRY", tuple(wrap(e) for e in REGISTRY))
    return calls


def test_code_facts_runs_the_registry_in_order(monkeypatch):
    calls = _recording(monkeypatch)
    chunk = gd_chunks("extends Node\n\nfunc _ready():\n\tprint(1)\n", "a.gd")[-1]
    code_facts(chunk, EMPTY)
    assert tuple(calls) == ORDER


def test_a_godot3_syntax_finding_takes_its_line_from_the_call_form_rules():
    """A call form on the line of a stated syntax change is that change's; on another line it is its own."""
    yield_line = Rule("a", lambda ctx: [_f("godot3", "yield", 2, 5)])
    forms = Rule("b", lambda ctx: [_f("godot3", "call_form", 2, 9), _f("godot3", "call_form", 4, 30)],
                 yields_line_to=("a",))
    found = run(CTX, (yield_line, forms))
    assert [f.line for f in found["b"]] == [4]


def test_a_scene_runs_only_the_rules_for_raw_text(monkeypatch):
    calls = _recording(monkeypatch)
    chunk = gd_chunks('[gd_scene load_steps=2 format=2]\n\n[node name="P" type="Node2D"]\n', "p.tscn")[0]
    code_facts(chunk, EMPTY)
    raw_text_rules = tuple(e.name for e in REGISTRY if not e.scripts_only)
    assert tuple(calls) == raw_text_rules == ("syntax", "renamed_members")


def _f(version: str, name: str, line: int = 1, start: int = 0) -> Finding:
    return Finding(version, "api", name, name, line, start=start)


CTX = SimpleNamespace(facts=SimpleNamespace(is_gdscript=True))


@pytest.mark.parametrize(("rule", "kept"), [
    (Rule("b", lambda ctx: [_f("godot3", "X.empty", 2, 5), _f("godot3", "empty", 3, 9)],
          yields_use_to=("a",)), ["empty"]),  # same member and line as a's `empty`: a's stands
    (Rule("b", lambda ctx: [_f("godot3", "X.empty", 2, 5), _f("godot3", "size", 3, 9)],
          yields_start_to=("a",)), ["size"]),
    (Rule("b", lambda ctx: [_f("godot3", "size", 2, 9), _f("godot3", "size", 3, 9)], yields_line_to=("a",)),
     ["size"]),  # the line of a's Godot 3 finding is a's
    (Rule("b", lambda ctx: [_f("godot4", "empty", 2, 5)], yields_use_to=("a",), yields_start_to=("a",)),
     ["empty"]),  # precedence compares findings of one version
])
def test_precedence(rule, kept):
    first = Rule("a", lambda ctx: [_f("godot3", "empty", 2, 5)])
    found = run(CTX, (first, rule))
    assert ([f.name for f in found["b"]] if "b" in found else None) == kept


def test_annotation_sees_its_entrys_findings():
    seen = []
    out = run(CTX, (Rule("a", lambda ctx: [_f("godot3", "x")]),
                    Annotation("note", lambda ctx, fs: seen.extend(f.name for f in fs), of="a")))
    assert seen == ["x"] and "note" not in out
