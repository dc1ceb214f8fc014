"""Pure parts of the answer step: streaming decode, citations, format rules, languages, Godot 3 members."""

from __future__ import annotations

import json

from agent.answer.check import check_citations, check_format, code_blocks, _member_failures
from agent.answer.inputs import AnswerInput, EvidenceRef
from agent.answer.llm import MarkdownStream, parse_reply
from agent.answer.model import Answer, Citation
from agent.answer.template import Citations, docs_gist, write_template

import pytest


def test_markdown_field_streams_across_any_split():
    md = 'Line "one" [1]\n\t`code` — 한국어 \u00e9 \\ end'
    raw = json.dumps({"markdown": md, "citations": [], "suggested_code": None})
    for size in (1, 2, 3, 7, len(raw)):
        s = MarkdownStream()
        out = "".join(s.feed(raw[i : i + size]) for i in range(0, len(raw), size))
        assert out == md, size


def _inp(language="en", task="explain") -> AnswerInput:
    pool = {
        "d:input": EvidenceRef("d:input", "docs_chunks", "Input.is_action_pressed", "https://docs/input",
                               "Input.is_action_pressed",
                               content="bool is_action_pressed(action: StringName, exact_match: bool = false) const\n\n"
                                       "Returns true if you are pressing the action event. More text."),
        "d:zero": EvidenceRef("d:zero", "docs_chunks", "Vector2.ZERO", "https://docs/v2", "Vector2.ZERO",
                              content="ZERO = `Vector2(0, 0)`\n\nZero vector, a vector with all components set to 0."),
    }
    chunk = {"chunk_id": "c1", "chunk_order": 0, "source_file": "player.gd", "chunk_kind": "function",
             "start_line": 3, "end_line": 6, "name": "_process",
             "judgment": {"version_signal": "neutral", "label": "ambiguous_version_signal", "migration_required": False,
                          "rationale": "x", "evidence_ids": []},
             "evidence": []}
    code = "func _process(delta):\n\tvar v = Vector2.ZERO\n\tif Input.is_action_pressed(&\"up\"):\n\t\tv.y -= 1\n"
    return AnswerInput(prompt="what does this mean?", task_type=task, language=language,
                       verdict={"label": "ambiguous", "complete": True, "counts": {"godot3": 0, "godot4": 0, "neutral": 1}},
                       chunks=[chunk], codes={"c1": code}, evidence=pool)


def test_docs_gist_skips_signatures_and_value_lines():
    inp = _inp()
    assert docs_gist(inp.evidence["d:input"]) == "Returns true if you are pressing the action event."
    assert docs_gist(inp.evidence["d:zero"]).startswith("Zero vector")


@pytest.mark.parametrize("language,word", [("en", "What the code does"), ("ko", "코드가 하는 일"),
                                           ("zh", "这段代码做什么"), ("ru", "Что делает код")])
def test_explain_template_cites_the_docs_of_the_called_apis_in_the_question_language(language, word):
    answer = write_template(_inp(language), code=None)
    assert word in answer.markdown and answer.language == language
    cited = {c.evidence_id for c in answer.citations}
    assert cited == {"d:input", "d:zero"}
    assert check_citations(answer, {"d:input", "d:zero"}) == [] and check_format(answer) == []
    quote = "Returns true if you are pressing the action event."  # the docs' own words, whole, marked in another language
    assert (quote + " [" if language == "en" else f"“{quote}” [") in answer.markdown


def test_citations_must_resolve_and_be_retrieved():
    a = Answer(markdown="It is so [1] and so [2].", citations=[Citation(number=1, evidence_id="x")])
    fails = check_citations(a, {"y"})
    assert any("[2] has no citation" in f for f in fails) and any("x was never retrieved" in f for f in fails)
    code_only = Answer(markdown="```gdscript\nvar a = b[1]\n```")
    assert check_citations(code_only, set()) == []


def test_format_rule_catches_an_open_fence():
    assert check_format(Answer(markdown="```gdscript\nextends Node\n")) == ["format: a code fence is left open"]
    assert code_blocks("a\n```gdscript\nextends Node\n```\n") == ["extends Node\n"]


def test_idle_frame_is_godot3():
    assert _member_failures("func f():\n\tawait get_tree().idle_frame\n")
    assert not _member_failures("func f():\n\tawait get_tree().process_frame\n")
    assert not _member_failures("# idle_frame in a comment\n")


def test_rationale_ids_become_numbers_and_unknown_ids_are_dropped():
    cites = Citations(_inp().evidence)
    assert cites.in_text("renamed [d:zero]; see [never:retrieved]") == "renamed [1]; see "


def test_llm_reply_parsing_reports_broken_json():
    from agent.answer.llm import AnswerLLMError

    with pytest.raises(AnswerLLMError, match="invalid_json"):
        parse_reply('{"markdown": "cut', _inp(), "m")
    ok = parse_reply(json.dumps({"markdown": "Yes [1].", "citations": [{"number": 1, "evidence_id": "d:zero"}],
                                 "suggested_code": None}), _inp(), "m")
    assert ok.writer == "llm" and ok.citations[0].url == "https://docs/v2"


def test_sources_say_which_docs_version_they_quote():
    from agent.answer.model import Citation
    from agent.answer.template import sources_lines

    lines = sources_lines([
        Citation(number=2, evidence_id="d4", title="CharacterBody2D", url="https://x/4", doc_version="4.4"),
        Citation(number=1, evidence_id="d3", title="KinematicBody2D", url="https://x/3", doc_version="3.4"),
        Citation(number=3, evidence_id="m", title="KinematicBody2D -> CharacterBody2D", url=None),
    ])
    assert lines == ["[1] KinematicBody2D (Godot 3.4 docs) — https://x/3", "[2] CharacterBody2D (Godot 4 docs) — https://x/4",
                     "[3] KinematicBody2D -> CharacterBody2D"]


def test_a_change_without_a_replacement_is_removal_only_when_the_evidence_says_removed():
    """`remove $Tween.start()` is right for a removed API; a yield on a signal 4.x lacks is rewritten by hand."""
    from agent.answer.template import change_lines

    changes = [{"old": "$Tween.start()", "new": None, "change_type": "removed", "note": "line 5: start"},
               {"old": 'yield($Tween, "tween_all_completed")', "new": None, "change_type": "syntax_change",
                "note": "line 6: yield; Godot 4 has no signal Tween.tween_all_completed"}]
    chunk = {"chunk_id": "c1", "source_file": "fade.gd", "judgment": {
        "version_signal": "godot3", "migration_required": True, "suggested_changes": changes}}
    lines = change_lines([chunk], _inp(), Citations({}))
    assert lines == ["1. `fade.gd` Line 5: remove `$Tween.start()` (start)",  # a project's item names its file
                     '2. `fade.gd` Line 6: `yield($Tween, "tween_all_completed")` has no one-line replacement; rewrite it '
                     "from the docs (yield; Godot 4 has no signal Tween.tween_all_completed)"]
    pasted = change_lines([{**chunk, "source_file": "pasted://snippet-1.gd"}], _inp(), Citations({}))
    assert pasted[0] == "1. Line 5: remove `$Tween.start()` (start)"  # one pasted snippet needs no file name
