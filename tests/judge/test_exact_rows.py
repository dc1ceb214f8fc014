"""Detection never depends on ranking: every mapping row the code names is seen, the cited ones kept."""

from __future__ import annotations

import psycopg

from agent.judge.base import JudgeInput
from agent.judge.exact_rows import exact_names, with_exact_rows
from agent.judge.project import build_project_context
from agent.models import EvidenceBundle, RetrievalHit
from agent.retrieve.mapping_table import MappingTable, row_of
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import gd_chunks


def _row(mapping_id: str, source: str, target: str | None, kind: str, *, derived: bool = False) -> RetrievalHit:
    md = {"source_api": source, "target_api": target, "change_type": "rename" if target else "removed",
          "status": "candidate", "match_terms": [source, source.rsplit(".", 1)[-1]],
          "provenance": {"source": "api_index" if derived else "renames_3_to_4.json", "kind": kind, "classes": []}}
    return RetrievalHit(table="api_mapping", record_id=mapping_id, title=source, content=source, score=0.0,
                        metadata=md, match=["exact"])


TABLE = MappingTable(row_of(h) for h in (
    _row("m:deg2rad", "deg2rad", "deg_to_rad", "method"),
    _row("m:button-left", "BUTTON_LEFT", "MOUSE_BUTTON_LEFT", "enum"),
    _row("d:never-used", "Spatial.translation", None, "property", derived=True),
))

CODE = "extends Node\n\nfunc f(event):\n\tvar a = deg2rad(90)\n\tif event.button_index == BUTTON_LEFT:\n\t\tpass\n"


def _input(pages=None) -> JudgeInput:
    project = build_project_context({"a.gd": CODE}, None)
    project.mappings, project.pages = TABLE, pages
    chunk = gd_chunks(CODE, "a.gd")[-1]
    return JudgeInput(prompt="", trace=split_trace(chunk, "t"), chunk=chunk,
                      evidence=EvidenceBundle(query_id="t", task_type="t"), project=project)


def test_exact_names_are_code_names_pairs_and_whole_strings():
    names = exact_names('func f():\n\tget_tree().connect("idle_frame", self, "x")  # not_this\n\tOS.get_name()\n')
    assert {"get_tree", "connect", "idle_frame", "OS.get_name", "x"} <= names and "not_this" not in names


def test_rows_the_findings_rest_on_join_the_evidence_whatever_was_retrieved():
    done = with_exact_rows(_input())
    found = {f.name for f in done.facts.godot3}
    assert {"renamed_global", "BUTTON_LEFT"} <= found  # deg2rad: the syntax rule says it (and cites the row)
    kept = {h.record_id for h in done.evidence.api_mapping_evidence}
    assert {"m:deg2rad", "m:button-left"} <= kept and "d:never-used" not in kept
    assert with_exact_rows(done) is done  # once per input


def test_a_failing_page_fetch_keeps_the_findings():
    def broken(symbols, ids):
        raise psycopg.OperationalError("the pool is closed")
    done = with_exact_rows(_input(broken))
    assert "BUTTON_LEFT" in {f.name for f in done.facts.godot3}


def test_a_yield_in_a_long_function_gets_the_signal_rename_it_needs():
    """The issue's case: the rename row of `idle_frame` is never left to ranking, so the rewrite names the
    Godot 4 signal (`process_frame`), never `await get_tree().idle_frame`."""
    from agent.judge.evidence import EvidenceJudge
    from tests.judge.small_index import idle_frame_index

    api = idle_frame_index()
    table = MappingTable([row_of(_row("d:idle", "SceneTree.idle_frame", "SceneTree.process_frame", "signal",
                                      derived=True))])
    code = "extends Node\n\nfunc f():\n" + "".join(f"\tvar v{i} = {i}\n" for i in range(40)) \
        + '\tyield(get_tree(), "idle_frame")\n'
    project = build_project_context({"a.gd": code}, api)
    project.mappings = table
    chunk = gd_chunks(code, "a.gd")[-1]
    done = with_exact_rows(JudgeInput(prompt="", trace=split_trace(chunk, "t"), chunk=chunk,
                                      evidence=EvidenceBundle(query_id="t", task_type="t"), project=project))
    news = [c.new for c in EvidenceJudge().decide(done).suggested_changes]
    assert "await get_tree().process_frame" in news and "d:idle" in done.evidence.ids()
