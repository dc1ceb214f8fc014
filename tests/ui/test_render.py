"""Chat markdown from the report contract and traces (fast)."""

from __future__ import annotations

from ui.render import chunk_label, chunk_step_name, final_markdown, progress_line, trace_markdown

CHUNK = {"chunk_id": "player.gd:function:_process", "chunk_order": 4, "chunk_kind": "function",
         "source_file": "player.gd", "start_line": 12, "end_line": 26}
TRACE = {
    "chunk_text": "func _process(delta):\n\tpass\n",
    "query_terms": ["Input.is_action_pressed", "Vector2.ZERO"],
    "evidence": [{"table": "api_mapping", "record_id": "m1", "title": "t", "score": 0.91,
                  "source_api": "KinematicBody2D", "target_api": "CharacterBody2D",
                  "source_url": "https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html"}],
    "judgment": {"version_signal": "godot4", "label": "godot4_valid_api", "migration_required": False,
                 "confidence": 0.8, "rationale": "uses 4.x API [m1]", "evidence_ids": ["m1"]},
}


def test_labels_use_the_files_own_lines():
    assert chunk_label("player.gd", 12, 26) == "player.gd L12-L26"
    assert chunk_label("pasted://snippet-abc.gd", 3, 3) == "snippet.gd L3"
    assert chunk_step_name(CHUNK) == "#5 player.gd L12-L26 · _process"


def test_trace_keeps_tracking_apart_from_search():
    text = trace_markdown(CHUNK, TRACE)
    tracking, rest = text.split("**Sent to the retriever", 1)
    cues = rest.split("**Search cues**", 1)[1].split("**Candidates found**", 1)[0]
    assert "player.gd" in tracking and "L12-L26" in tracking
    assert "player.gd" not in cues and "Input.is_action_pressed" in cues
    assert "KinematicBody2D → CharacterBody2D" in text
    assert "(https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html)" in text
    assert "`godot4_valid_api`" in text and "`m1`" in text
    assert "uses 4.x API [1]" in text and "✓ [[1]](https://docs.godotengine.org/" in text


def test_final_answer_has_verdict_items_and_exclusions():
    report = {
        "run_id": "r1", "status": "completed", "files": [{"path": "mob.gd"}],
        "verdict": {"label": "mixed", "migration_required": True, "counts": {"godot3": 1, "godot4": 3, "neutral": 0},
                    "summary": "Verdict mixed.\nMigration items (1):\nmob.gd:1 ..."},
        "chunks": [CHUNK],
        "migration_items": [{"source_file": "mob.gd", "start_line": 1, "end_line": 1, "old": "KinematicBody2D",
                             "new": "CharacterBody2D", "docs_url": "https://docs.example/cb2d"}],
        "excluded_files": [{"path": "README.md", "reason": "Documentation files are excluded"}],
    }
    text = final_markdown(report)
    assert "Verdict: `mixed`" in text and "migration required" in text
    # no evidence id on the item: no link is better than one that belongs to no evidence
    assert "| mob.gd L1 | `KinematicBody2D` | `CharacterBody2D` |  |" in text
    assert "README.md" in text and "Migration items (1)" not in text


def test_unfinished_run_says_what_is_missing():
    text = final_markdown({"status": "interrupted", "verdict": {}, "chunks": [{"status": "done"}, {"status": "pending"}]})
    assert "1 of 2 chunks are done" in text


def test_progress_line():
    assert progress_line(5, 10, {"done": 5, "waiting": 5}).endswith("5/10 chunks · done 5 · waiting 5")


def test_non_godot_text_gets_a_polite_answer():
    noise = {"label": "non_godot_noise", "version_signal": "neutral"}
    report = {"status": "completed", "verdict": {"label": "ambiguous", "counts": {}},
              "chunks": [{"judgment": noise}], "direct_answer": {"answer": "There is no clear signal."}}
    assert final_markdown(report).startswith("This does not look like Godot code")


NODE2D = "https://docs.godotengine.org/en/stable/classes/class_node2d.html"
PROJECT = "https://docs.godotengine.org/en/stable/tutorials/migrating/upgrading_to_godot_4.html"


def _project_report():
    kb = {"table": "api_mapping", "record_id": "godot3-to-4:class:kinematicbody2d-to-characterbody2d",
          "title": "x", "score": 1.05, "source_api": "KinematicBody2D", "target_api": "CharacterBody2D",
          "source_url": "https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html", "match": ["exact"]}
    pos = {"table": "docs_chunks", "record_id": "godot-4.3:classes/class_node2d.md#class-node2d-property-position:0000",
           "title": "Node2D.position", "score": 0.03, "source_url": NODE2D, "match": ["vector", "keyword"]}
    cfg = {"table": "docs_chunks", "record_id": "godot-4.3:tutorials/migrating/upgrading_to_godot_4.md#config-version:0001",
           "title": "config_version", "score": 0.02, "source_url": PROJECT, "match": ["keyword"]}
    mob = {"chunk_id": "mob.gd:class_extends:KinematicBody2D", "chunk_order": 0, "chunk_kind": "class_extends",
           "source_file": "mob.gd", "start_line": 1, "end_line": 1, "status": "done", "evidence": [kb, pos],
           "judgment": {"version_signal": "godot3", "label": "godot3_api_in_godot4", "migration_required": True,
                        "confidence": 0.9, "evidence_ids": [kb["record_id"]],
                        "rationale": f"KinematicBody2D is renamed [{kb['record_id']}]."}}
    conf = {"chunk_id": "project.godot:config_preamble", "chunk_order": 1, "chunk_kind": "config_preamble",
            "source_file": "project.godot", "start_line": 1, "end_line": 1, "status": "done", "evidence": [cfg, pos],
            "judgment": {"version_signal": "godot3", "label": "migration_required", "migration_required": True,
                         "confidence": 0.8, "evidence_ids": [cfg["record_id"]], "rationale": "config_version=4"}}
    hud = {"chunk_id": "hud.gd:function:_ready", "chunk_order": 2, "chunk_kind": "function", "source_file": "hud.gd",
           "start_line": 3, "end_line": 5, "status": "done", "evidence": [],
           "judgment": {"version_signal": "neutral", "label": "ambiguous_version_signal", "migration_required": False,
                        "confidence": 0.3, "evidence_ids": [], "rationale": ""}}
    return {
        "run_id": "r2", "status": "completed",
        "files": [{"path": "hud.gd"}, {"path": "mob.gd"}, {"path": "project.godot"}],
        "verdict": {"label": "godot3", "migration_required": True, "counts": {"godot3": 2, "godot4": 0, "neutral": 1}},
        "chunks": [mob, conf, hud],
        "migration_items": [
            {"source_file": "mob.gd", "start_line": 1, "end_line": 1, "old": "KinematicBody2D", "new": "CharacterBody2D",
             "docs_url": kb["source_url"], "evidence_id": kb["record_id"], "chunk_id": mob["chunk_id"]},
            # the bug users saw: config_version linked to an unrelated class page
            {"source_file": "project.godot", "start_line": 1, "end_line": 1, "old": "config_version=4",
             "new": "config_version=5", "docs_url": NODE2D, "evidence_id": cfg["record_id"]},
        ],
    }


def test_citations_are_numbered_link_their_own_anchor_and_never_borrow_a_url():
    text = final_markdown(_project_report())
    assert "| `KinematicBody2D` | `CharacterBody2D` | [[1]](https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html) |" in text
    assert f"| `config_version=4` | `config_version=5` | [[2]]({PROJECT}#config-version) |" in text
    assert "config_version=5` | [[2]](" + NODE2D not in text
    # a rename row with no URL of its own may use the item's link to the class page of one of its APIs
    report = _project_report()
    del report["chunks"][0]["evidence"][0]["source_url"]
    cb2d = "https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html"
    assert f"| `CharacterBody2D` | [[1]]({cb2d}) |" in final_markdown(report)
    report["migration_items"][0]["docs_url"] = PROJECT  # the migration guide documents the rename
    assert f"| `CharacterBody2D` | [[1]]({PROJECT}) |" in final_markdown(report)
    report["migration_items"][0]["docs_url"] = NODE2D  # an unrelated class page: no link
    assert "| `CharacterBody2D` | [1] |" in final_markdown(report)
    sources = text.split("#### Sources", 1)[1]
    assert "1. [KinematicBody2D → CharacterBody2D](" in sources and "`godot3-to-4:class:kinematicbody2d-to-characterbody2d`" in sources
    assert f"2. [config_version]({PROJECT}#config-version) · Godot 4 docs" in sources


def test_a_project_gets_one_row_per_file_worst_first():
    text = final_markdown(_project_report())
    table = text.split("#### Files (3)", 1)[1].split("####", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| `")]
    assert rows[0] == "| `mob.gd` | Godot 3: needs work | 1 | [#1](#trace:mob.gd) (flagged #1) |"
    assert rows[-1] == "| `hud.gd` | no version signal | 0 | [#3](#trace:hud.gd) |"


def test_trace_marks_the_cited_evidence_groups_by_table_and_shows_ids_as_code():
    report = _project_report()
    text = trace_markdown(report["chunks"][0], None)
    judged = text.split("**Judgment**")[1]
    assert "KinematicBody2D is renamed [1]." in judged and "[godot3-to-4:" not in judged
    assert "evidence used: [[1]](https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html) " \
        "`godot3-to-4:class:kinematicbody2d-to-characterbody2d`" in judged
    renames = text.split("**Godot 3 → 4 renames** (1)", 1)[1].split("**Godot docs**", 1)[0]
    assert "✓ [[1]](" in renames and "exact name" in renames
    docs = text.split("**Godot docs** (1)", 1)[1]
    assert f"[Node2D.position]({NODE2D}#class-node2d-property-position)" in docs and "✓" not in docs.split("**Judgment**")[0]
    assert "extends line" in text and "class_extends" not in text.replace("`mob.gd:class_extends:KinematicBody2D`", "")


def test_docs_evidence_says_which_version_it_quotes():
    report = _project_report()
    old = {"table": "docs_chunks", "record_id": "classref3:KinematicBody2D:class", "title": "KinematicBody2D",
           "source_url": "https://docs.godotengine.org/en/3.4/classes/class_kinematicbody2d.html",
           "doc_version": "3.4", "score": 0.5, "match": ["exact_api"]}
    report["chunks"][0]["evidence"].append(old)
    report["chunks"][0]["judgment"]["evidence_ids"].append(old["record_id"])
    text = trace_markdown(report["chunks"][0], None)
    assert "[KinematicBody2D](https://docs.godotengine.org/en/3.4/classes/class_kinematicbody2d.html) · Godot 3.4 docs" in text


def test_unchecked_suggested_code_is_never_shown():
    """The direct answer's code is a draft; only the answer check's passed code reaches the user."""
    report = {"run_id": "r3", "status": "completed", "files": [{"path": "pasted://snippet.gd"}], "chunks": [CHUNK],
              "verdict": {"label": "godot3", "migration_required": True, "counts": {"godot3": 1, "godot4": 0,
                                                                                  "neutral": 0}},
              "direct_answer": {"answer": "This is Godot 3 code.",
                                "suggested_code": "extends CharacterBody2D\nvelocity = move_and_slide(velocity)\n"}}
    text = final_markdown(report)
    assert "This is Godot 3 code." in text and "move_and_slide(velocity)" not in text


def test_cli_text_prints_the_checked_answer_not_the_draft_code():
    from agent.graph.report import render_text

    base = {"run_id": "r4", "project_id": "p", "status": "completed", "files": [], "excluded_files": [],
            "chunks": [], "verdict": {"label": "godot3", "migration_required": True,
                                      "counts": {"godot3": 1, "godot4": 0, "neutral": 0}, "summary": "Verdict godot3."},
            "direct_answer": {"answer": "This is Godot 3 code.", "label": "godot3", "migration_required": True,
                              "suggested_code": "velocity = move_and_slide(velocity)", "changes": []},
            "status_detail": "", "owner": None, "source": None, "source_origin": "pasted_snippet", "judge": "evidence",
            "created_at": None, "finished_at": None, "prompt": "", "intent": None, "project_signals": {},
            "migration_items": [], "progress": {"done": 0, "failed": 0, "total": 0}}
    assert "move_and_slide(velocity)" not in render_text(base) and "This is Godot 3 code." in render_text(base)
    checked = {**base, "answer": {"markdown": "이 코드는 Godot 3입니다.\n```gdscript\nmove_and_slide()\n```"}}
    assert "이 코드는 Godot 3입니다." in render_text(checked) and "move_and_slide()" in render_text(checked)


def test_a_godot4_verdict_lists_its_leftovers_and_notes():
    report = {"run_id": "r5", "status": "completed", "files": [{"path": "menu.gd"}], "chunks": [CHUNK],
              "verdict": {"label": "godot4", "migration_required": True, "summary": "Verdict godot4.",
                          "counts": {"godot3": 1, "godot4": 3, "neutral": 0},
                          "leftovers": [{"source_file": "menu.gd", "start_line": 5, "end_line": 6,
                                         "chunk_id": "c", "why": "`window_title` is Godot 3 API"}],
                          "notes": [{"source_file": "level.tscn", "note": "not re-saved since Godot 3 (format=2)"}]}}
    text = final_markdown(report)
    assert "Godot 3 leftovers to check (1)" in text and "window_title" in text
    assert "`level.tscn` not re-saved since Godot 3 (format=2)" in text
