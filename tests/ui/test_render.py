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
    assert "godot4_valid_api" in text and "`m1`" in text


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
    assert "| mob.gd L1 | `KinematicBody2D` | `CharacterBody2D` | [docs](https://docs.example/cb2d) |" in text
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
