"""Version-aware judging on the test KB (4.x pages plus a 3.4 reference subset, with the API index).

Receivers resolved before renames apply, renames only in their role, "documented" meaning
defined, every identifier in code position looked up, `.method()` continuation lines, and
evidence that says which version it quotes.
"""

from __future__ import annotations

import pytest

from agent.judge.base import JudgeInput
from agent.judge.project import api_index_for, build_project_context
from agent.judge.recommend import recommendation_failures
from agent.judge.facts import code_facts
from agent.judge.validate import judge_and_validate
from agent.models import Judgment, SuggestedChange
from tests.judge.test_receivers import HUD_TSCN
from tests.retrieve.helpers import find_chunk, gd_chunks, judge_input

HUD_GD = """extends CanvasLayer

signal start_game

func show_message(text):
\t$MessageLabel.text = text
\t$MessageLabel.show()
\t$MessageTimer.start()


func _on_StartButton_pressed():
\t$StartButton.hide()
\tstart_game.emit()


func _on_MessageTimer_timeout():
\t$MessageLabel.hide()
"""


@pytest.fixture(scope="module")
def api(retriever):
    index = api_index_for(retriever)
    assert index is not None, "the test KB has an API index"
    return index


def _with_project(inp: JudgeInput, files: dict[str, str], api) -> JudgeInput:
    inp.project = build_project_context(files, api)
    return inp


async def _judge(retriever, judge, code: str, path: str = "player.gd", needle: str | None = None,
                 files: dict[str, str] | None = None, api=None):
    chunks = gd_chunks(code, path)
    chunk = find_chunk(chunks, needle) if needle else chunks[-1]
    inp = judge_input(retriever, chunk)
    if api is not None:
        _with_project(inp, files or {path: code}, api)
    out = await judge_and_validate(judge, inp, fallback=judge)
    return inp, out


async def test_hud_method_hide_is_not_the_godot3_signal(retriever, evidence_judge, api):
    for project in (None, {"hud.gd": HUD_GD, "hud.tscn": HUD_TSCN}):
        inp, out = await _judge(retriever, evidence_judge, HUD_GD, "hud.gd", "$MessageLabel.hide()",
                                files=project, api=api if project else None)
        assert out.judgment.version_signal != "godot3", out.judgment.rationale
        assert not out.judgment.migration_required


async def test_a_signal_use_of_the_renamed_signal_is_still_flagged(retriever, evidence_judge, api):
    """The rewrite renames the signal where it is one (`hidden.connect`, `await self.hidden`), not `$Label.hide()`."""
    code = ('extends Control\n\nfunc _ready():\n\tconnect("hide", self, "_on_hide")\n\t$Label.hide()\n'
            '\tyield(self, "hide")\n')
    for project in (None, api):
        _, out = await _judge(retriever, evidence_judge, code, needle='connect("hide"', api=project)
        j = out.judgment
        assert j.version_signal == "godot3"
        assert [c.new for c in j.suggested_changes] == ["hidden.connect(_on_hide)", "await self.hidden"], j
        assert j.suggested_code is not None and "$Label.hide()" in j.suggested_code, j.suggested_code
        assert "hidden.connect(_on_hide)" in j.suggested_code and "await self.hidden" in j.suggested_code


async def test_a_local_variable_named_like_a_renamed_method_hides_nothing(retriever, evidence_judge):
    """`var instance = scene.instance()`: the local `instance` is no method; `.instance()` is still Godot 3."""
    code = "func spawn(scene):\n\tvar instance = scene.instance()\n\tadd_child(instance)\n"
    _, out = await _judge(retriever, evidence_judge, code)
    j = out.judgment
    assert j.version_signal == "godot3", j.rationale
    assert j.suggested_code and "var instance = scene.instantiate()" in j.suggested_code
    assert "add_child(instance)" in j.suggested_code


async def test_a_class_only_mentioned_by_4x_pages_is_flagged(retriever, evidence_judge):
    _, out = await _judge(retriever, evidence_judge, "func make():\n\tvar n = Spatial.new()\n\treturn n\n")
    assert out.judgment.version_signal == "godot3", out.judgment.rationale
    assert "Spatial" in out.judgment.rationale


@pytest.mark.parametrize("code, source", [
    ("func f(camera):\n\tcamera.translation.x = 1.0\n", "translation"),
    ("func f(event):\n\tif event.button_index == BUTTON_LEFT:\n\t\tpass\n", "BUTTON_LEFT"),
    ('func f():\n\tget_tree().call_deferred("change_scene", "res://a.tscn")\n', "change_scene"),  # named by a string
])
def test_property_and_constant_uses_retrieve_their_mappings(retriever, code, source):
    inp = judge_input(retriever, gd_chunks(code)[-1])
    sources = {h.metadata.get("source_api") for h in inp.evidence.api_mapping_evidence}
    assert source in sources


async def test_a_bare_property_of_the_scripts_own_class_is_looked_up(retriever, evidence_judge, api):
    """`translation.x += delta` in an `extends Spatial` script: Spatial.translation, which 4.x lacks."""
    code = "extends Spatial\n\nfunc move_it(delta):\n\ttranslation.x += delta\n"
    _, out = await _judge(retriever, evidence_judge, code, needle="translation.x", api=api)
    assert out.judgment.version_signal == "godot3", out.judgment.rationale
    assert "translation" in out.judgment.rationale
    code4 = "extends Node3D\n\nfunc move_it(delta):\n\tposition.x += delta\n\tvisible = true\n"
    _, out = await _judge(retriever, evidence_judge, code4, needle="position.x", api=api)
    assert out.judgment.version_signal != "godot3", out.judgment.rationale


async def test_tool_with_a_trailing_comment_is_still_godot3(retriever, evidence_judge):
    """`tool # runs in the editor`, as the 3.4 reference's EditorScenePostImport example writes it."""
    from agent.retrieve.query import build_retriever_query
    from agent.retrieve.terms import exact_terms

    code = "tool # Needed so it runs in editor\nextends Node\n\nfunc f():\n\tpass\n"
    inp, out = await _judge(retriever, evidence_judge, code, needle="tool #")
    assert "tool" in exact_terms(build_retriever_query("x", inp.chunk))  # its mapping by exact lookup, not by luck of the other legs
    assert out.judgment.version_signal == "godot3", out.judgment.rationale
    assert "@tool" in out.judgment.rationale


def test_bare_names_are_looked_up_in_gdscript_only():
    """A scene's `instance=` or `type=` is no code: only GDScript's bare names reach the exact lookup."""
    from agent.retrieve.terms import code_roles

    assert "translation" in code_roles("func f(delta):\n\ttranslation.x += delta\n")
    scene = '[node name="Player" type="Area2D" parent="." instance=ExtResource("1")]\nposition = Vector2(1, 2)\n'
    assert not {"instance", "type", "name", "parent"} & set(code_roles(scene, gdscript=False))
    assert "instance" in code_roles(scene)  # the same text, read as GDScript


async def test_a_resolved_receiver_finds_what_only_3_4_documents(retriever, evidence_judge, api):
    code = 'extends Node\n\nfunc f():\n\treturn Input.get_joy_axis_index_from_string("Left Stick X")\n'
    inp, out = await _judge(retriever, evidence_judge, code, needle="get_joy_axis", api=api)
    j = out.judgment
    assert j.version_signal == "godot3", (j.rationale, out.validation_failures)
    item = next(c for c in j.suggested_changes if "get_joy_axis_index_from_string" in c.old)
    assert item.old_docs_url == ("https://docs.godotengine.org/en/3.4/classes/class_input.html"
                                 "#class-input-method-get-joy-axis-index-from-string")
    derived = next(h for h in inp.evidence.api_mapping_evidence if h.record_id == item.evidence_id)
    assert derived.metadata["status"] == "candidate" and derived.metadata["provenance"]["source"] == "api_index"
    assert derived.metadata["evidence_chunk_ids"][0] in j.evidence_ids  # the 3.4 page is cited


async def test_a_stated_rename_on_a_resolved_receiver_cites_both_pages(retriever, evidence_judge, api):
    code = "extends Node\n\nfunc f():\n\tvar label: Label = Label.new()\n\tlabel.percent_visible = 0.5\n"
    _, out = await _judge(retriever, evidence_judge, code, needle="percent_visible", api=api)
    items = [c for c in out.judgment.suggested_changes if "percent_visible" in c.old]
    assert len(items) == 1 and items[0].new == "label.visible_ratio", items  # no second, "removed" item
    assert items[0].old_docs_url.startswith("https://docs.godotengine.org/en/3.4/classes/class_label.html#")
    assert "/en/3.4/" not in (items[0].docs_url or "")


async def test_an_unresolved_receiver_alone_is_no_verdict(retriever, evidence_judge, api):
    code = 'func f(thing):\n\treturn thing.get_joy_axis_index_from_string("Left Stick X")\n'
    _, out = await _judge(retriever, evidence_judge, code, api=api)
    assert out.judgment.version_signal == "neutral", out.judgment.rationale


@pytest.mark.parametrize("code", [
    "func fade():\n\tvar t = create_tween()\n\t\t.tween_property(self, \"modulate:a\", 1.0, 0.6)\n",
    "func names(items):\n\treturn (items\n\t\t.filter(func(s: String): return not s.is_empty()))\n",
])
async def test_chained_continuation_lines_are_not_parent_calls(retriever, evidence_judge, code):
    _, out = await _judge(retriever, evidence_judge, code)
    assert out.judgment.version_signal != "godot3", out.judgment.rationale


@pytest.mark.parametrize("code, call", [
    ("func _ready():\n\tprint(1)\n\t._ready()\n", "._ready()"),
    ("func validate(arguments):\n\tif not .validate(arguments):\n\t\treturn false\n\treturn true\n",
     ".validate(arguments)"),  # after a keyword no expression continues
])
async def test_a_parent_call_statement_is_still_godot3(retriever, evidence_judge, code, call):
    _, out = await _judge(retriever, evidence_judge, code)
    assert out.judgment.version_signal == "godot3"
    assert [(c.old, c.new) for c in out.judgment.suggested_changes] == [(call, f"super{call}")]


def test_docs_evidence_says_which_version_it_quotes(retriever):
    inp = judge_input(retriever, gd_chunks("func f():\n\tInput.get_mouse_mode()\n\tvar n = Spatial.new()\n")[-1])
    assert inp.evidence.doc_evidence
    assert all(h.metadata.get("doc_version") in ("stable", "3.4") for h in inp.evidence.doc_evidence)


def test_the_validator_rejects_an_api_only_3_4_defines(retriever, api):
    from agent.apiindex import ApiIndex

    complete = ApiIndex([e for k in api._members.values() for e in k] + list(api._classes.values()),
                        [], complete_v4=True)
    chunk = gd_chunks("func f():\n\tvar n = Spatial.new()\n")[-1]
    inp = judge_input(retriever, chunk)
    inp.project = build_project_context({}, complete)
    bad = Judgment(version_signal="godot3", label="migration_required", migration_required=True, confidence=0.8,
                   rationale="r", suggested_changes=[SuggestedChange(old="Spatial.new()", new="Camera.new()",
                                                                     change_type="rename", evidence_id="")])
    failures = recommendation_failures(bad, inp, code_facts(inp.chunk, inp.evidence, inp.project))
    assert any("'Camera', which only the Godot 3.4 reference defines" in f for f in failures), failures


@pytest.mark.parametrize("code, needle, new", [
    ("func _ready():\n\t$Anim.connect('animation_finished', self, '_on_done')\n", "connect(", "animation_finished.connect"),
    ("func handle_input(host, event):\n\treturn .handle_input(host, event)\n", ".handle_input", "super"),
    ("func f():\n\tvar x := .compute(1)\n\treturn x\n", ".compute", "super"),
    ("func t():\n\tvar th = Thread.new()\n\tth.start(self, '_work')\n", "start(self", "th.start(_work)"),
])
async def test_godot3_forms_with_single_quotes_and_parent_calls_in_expressions(retriever, evidence_judge, code, needle,
                                                                                new):
    _, out = await _judge(retriever, evidence_judge, code, needle=needle)
    j = out.judgment
    assert j.version_signal == "godot3", (j.rationale, out.validation_failures)
    assert any(new in (c.new or "") for c in j.suggested_changes) or new in (j.suggested_code or ""), j


async def test_a_float_after_an_operator_is_no_parent_call(retriever, evidence_judge):
    _, out = await _judge(retriever, evidence_judge, "func f(a):\n\tvar half = .5\n\treturn a == .5\n")
    assert out.judgment.version_signal != "godot3", out.judgment.rationale


@pytest.mark.parametrize("code,needle,old,new", [
    ('func f():\n\tdisconnect("pressed", self, "_on_pressed")\n', "disconnect",
     'disconnect("pressed", self, "_on_pressed")', "pressed.disconnect(_on_pressed)"),
    ('func f(t):\n\tif t.is_connected("timeout", self, "_on_t"):\n\t\treturn\n', "is_connected",
     't.is_connected("timeout", self, "_on_t")', "t.timeout.is_connected(_on_t)"),
    ('class_name Item, "res://item.svg"\nextends Node\n', "class_name",
     'class_name Item, "res://item.svg"', '@icon("res://item.svg"); class_name Item'),
])
async def test_godot3_call_and_declaration_forms_with_their_rewrite(retriever, evidence_judge, code, needle, old, new):
    _, out = await _judge(retriever, evidence_judge, code, needle=needle)
    j = out.judgment
    assert j.version_signal == "godot3", (j.rationale, out.validation_failures)
    assert [(c.old, c.new) for c in j.suggested_changes] == [(old, new)]
    assert j.evidence_ids and not out.validation_failures


async def test_a_call_shown_by_its_mapping_is_not_repeated_by_the_syntax_rule(retriever, evidence_judge):
    _, out = await _judge(retriever, evidence_judge, 'func f():\n\tvar v = str2var("1")\n')
    olds = [c.old for c in out.judgment.suggested_changes]
    assert olds == ['str2var("1")'], out.judgment.suggested_changes
    assert out.judgment.suggested_changes[0].new == 'str_to_var("1")'


async def test_every_godot3_use_is_an_item_in_code_order(retriever, evidence_judge):
    code = ('func _ready():\n\t$A.connect("pressed", self, "_on_a")\n\tyield(get_tree(), "idle_frame")\n'
            '\t$B.connect("pressed", self, "_on_b")\n')
    _, out = await _judge(retriever, evidence_judge, code)
    assert [c.old for c in out.judgment.suggested_changes] == [
        '$A.connect("pressed", self, "_on_a")', 'yield(get_tree(), "idle_frame")', '$B.connect("pressed", self, "_on_b")']
