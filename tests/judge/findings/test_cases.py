"""The findings table (cases.json): each case's code through `code_facts`, on the test KB.

A case is {"id", "code", "extends" (optional: prepended as `extends X`), "expect": [{"version", "name",
"weak" (optional)}], "absent": [names], "rewrite" (optional)}: every expected finding is among the chunks'
findings, no finding has an absent name, and the evidence judge's Godot 4 code of a flagged chunk holds
`rewrite`. The project is the case's one script on the test KB's API index (a subset: its 4.x side is not
complete, so the rules that need absence to be proof stay silent here; they are pinned by the hand-made
indexes of tests/judge/test_typed_receivers.py and test_call_form.py). The evidence is what a run's chunk
gets with no search at all: every mapping row the code names and the pages its findings rest on
(`agent.judge.exact_rows`), so a case never depends on ranking or on the embedding model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.apiindex import read_index
from agent.judge.base import JudgeInput
from agent.judge.evidence import EvidenceJudge
from agent.judge.exact_rows import with_exact_rows
from agent.judge.project import build_project_context
from agent.models import EvidenceBundle
from agent.retrieve.mapping_table import pages_of, read_table
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import gd_chunks

CASES = json.loads(Path(__file__).with_name("cases.json").read_text())


@pytest.fixture(scope="module")
def kb(kb_pool):
    """The test KB as a run's project sees it: its API index, every api_mapping row by name, pages by symbol."""
    with kb_pool.connection() as conn:
        api, table = read_index(conn), read_table(conn)

    def pages(symbols: list[str], ids: list[str]):
        with kb_pool.connection() as conn:
            return pages_of(conn, symbols, ids)
    return api, table, pages


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case, kb):
    api, table, pages = kb
    code = f"extends {case['extends']}\n\n{case['code']}" if case.get("extends") else case["code"]
    project = build_project_context({"a.gd": code}, api)
    project.mappings, project.pages = table, pages
    found, rewrites = [], []
    for chunk in gd_chunks(code, "a.gd"):
        inp = with_exact_rows(JudgeInput(prompt="", trace=split_trace(chunk, "t"), chunk=chunk,
                                         evidence=EvidenceBundle(query_id="t", task_type="t"), project=project))
        found += inp.facts.godot3 + inp.facts.godot4
        if "rewrite" in case and inp.facts.godot3:
            rewrites.append(EvidenceJudge().decide(inp).suggested_code or "")
    seen = [(f.version, f.name, f.weak) for f in found]
    for want in case["expect"]:
        assert any(v == want["version"] and n == want["name"] and ("weak" not in want or w == want["weak"])
                   for v, n, w in seen), (want, seen)
    assert not {n for _, n, _ in seen} & set(case["absent"]), seen
    if "rewrite" in case:
        assert any(case["rewrite"] in r for r in rewrites), rewrites
