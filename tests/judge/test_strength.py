"""How much a chunk's signal weighs in its file's verdict (no KB needed: the syntax rules decide these)."""

from __future__ import annotations

import pytest

from agent.judge.base import JudgeInput
from agent.judge.evidence import EvidenceJudge
from agent.judge.strength import signal_strength
from agent.models import EvidenceBundle
from agent.retrieve.query import split_trace
from tests.retrieve.helpers import gd_chunks

EMPTY = EvidenceBundle(query_id="q", task_type="version_check")


def _strengths(code: str) -> list[tuple[str, str | None]]:
    out = []
    for c in gd_chunks(code, "s.gd"):
        inp = JudgeInput(prompt="", trace=split_trace(c, "p"), chunk=c, evidence=EMPTY)
        j = EvidenceJudge().decide(inp)
        out.append((j.version_signal, signal_strength(j, inp.facts, c)))
    return out


@pytest.mark.parametrize("code, expected", [
    # GDScript 1 grammar: Godot 4 cannot parse it
    ("extends Node\n\nexport var speed = 1\n", ("godot3", "decisive")),
    ("extends Node\n\nonready var s = $S\n", ("godot3", "decisive")),
    ("extends Node\n\nfunc f():\n\tyield(get_tree(), \"idle_frame\")\n", ("godot3", "decisive")),
    ("extends Node\n\nvar hp = 1 setget set_hp\n", ("godot3", "decisive")),
    ("extends Node\n\nfunc _ready():\n\t._ready()\n", ("godot3", "decisive")),
    # GDScript 2 grammar: Godot 3 cannot parse it
    ("extends Node\n\n@export var speed := 1.0\n", ("godot4", "decisive")),
    ("extends Node\n\nfunc f():\n\tawait get_tree().process_frame\n", ("godot4", "decisive")),
    ("extends Node\n\nvar xs: Array[int] = []\n", ("godot4", "decisive")),
    # an API only one version has loads in both parsers: strong, never decisive
    ("extends Node\n\nfunc f():\n\tprint(OS.get_ticks_msec())\n", ("godot3", "strong")),
    ("extends Node\n\nfunc f():\n\tvar t = create_tween()\n", ("godot4", "strong")),
    # nothing version-specific
    ("extends Node\n\nfunc f():\n\tprint(1)\n", ("neutral", None)),
])
def test_strength_of_each_kind_of_signal(code, expected):
    assert _strengths(code)[-1] == expected


def test_a_local_named_like_a_godot3_property_is_no_godot3_syntax():
    code = "extends Node\n\nfunc f():\n\tvar rect_position := Vector2.ZERO\n\trect_position.x += 1\n"
    assert _strengths(code)[-1] == ("neutral", None)
