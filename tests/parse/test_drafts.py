"""The C `drafts` (the draft loop of `chunk_gdscript` in one call) equals `_drafts_py`."""

from __future__ import annotations

import copy
import json
import random
from hashlib import sha256
from typing import Any

import pytest

from agent.parse import DRAFT_LAYOUT, SPAN_LAYOUT, speedups
from agent.parse.gdscript import _CONTEXT_KINDS, _NO_CONTEXT_KINDS, _ORDINAL_KINDS, Piece, _drafts_py
from tests.parse.helpers import traced_growth

C = speedups.compiled
pytestmark = pytest.mark.skipif(C is None, reason="C speedups not built")

KINDS = ["function", "inner_class", "unparsed", "class_extends", "class_name", "tool", "declaration_group"]
KINDS += ["signal", "enum", "odd kind", "é"]
NAMES = [None, "", "f", "f", "_init", "é", "𝔘x", "a\x00b", "name" * 50]
NODE_KINDS = ["function_definition", "variable_statement", "const_statement", "ERROR", "comment", "é"]
CODES = ["", "func f():\n\tpass", "a\r\nb", "\ufeffx", "é𝔘\x00", "x" * 5000, "\n\n", "\t"]
IDS = ["speed", "health", "x", "é", "𝔘", "self", "", "speed_health"]
ROWS = ["var speed = 1", "const X := 2", "var é = 'ü'", "\tvar 𝔘 = 3 # c", "", "var a = 1\r"]
EXTENDS = ["", "extends Node", "extends Node\nclass_name Foo", "  extends Node2D  ", "extends é\r\n", "\n"]


def _kinds() -> tuple[object, ...]:
    return (_ORDINAL_KINDS, _CONTEXT_KINDS, _NO_CONTEXT_KINDS, sha256)


def _case(rng: random.Random) -> tuple[Any, ...]:
    n = rng.randint(0, 14)
    pieces, ranges, facts, spans = [], [], [], []
    row = 0
    for _ in range(n):
        start = row + rng.randint(0, 3)
        last = start + rng.randint(1, 5)
        row = last
        node_kinds = [rng.choice(NODE_KINDS) for _ in range(rng.choice([1, 1, 2, 3, 0]))]
        notes = [rng.choice(["@export", "@rpc(\"any_peer\")"]) for _ in range(rng.choice([0, 0, 1, 2]))]
        status = rng.choice(["ok", "error"])
        piece = Piece(rng.choice(KINDS), node_kinds, start, last - 1, rng.choice(NAMES), status, notes=notes)
        pieces.append(piece)
        ranges.append((start, last))
        extra: dict[str, Any] = {
            "syntax": {"lambda": False, "rpc_keyword": None},
            "declared_names": rng.sample(IDS, rng.randint(0, 3)),
            "identifiers": [rng.choice(IDS) for _ in range(rng.randint(0, 30))],
        }
        facts.append(
            {
                "symbol_candidates": [rng.choice(IDS)],
                "api_call_candidates": [],
                "reference_candidates": rng.sample(IDS, 2),
                "extra": extra,
            }
        )
        spans.append((rng.choice(CODES) * rng.randint(1, 2), rng.randint(0, 9), rng.randint(10, 99)))
    decl_text = {i: rng.choice(ROWS) for i in rng.sample(IDS, rng.randint(0, len(IDS)))}
    extends_text = rng.choice(EXTENDS)
    return pieces, ranges, facts, spans, decl_text, extends_text, extends_text.strip()


def _both(args: tuple[Any, ...]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(Python result, C result), each on its own deep copy (both add leading_annotations to extra)."""
    py = _drafts_py(*copy.deepcopy(args))
    c = C.drafts(*copy.deepcopy(args), *_kinds())
    return py, c


def test_drafts_match_python_on_random_inputs() -> None:
    rng = random.Random(11)
    for _ in range(1500):
        args = _case(rng)
        py, c = _both(args)
        assert c == py, args
        assert json.dumps(c) == json.dumps(py)  # key order too (the dump order)
        for d in c:
            assert tuple(d) == DRAFT_LAYOUT and tuple(d["span"]) == SPAN_LAYOUT


def test_drafts_many_repeats_and_twelve_used_names() -> None:
    names = [f"v{i}" for i in range(40)]
    decl_text = {n: f"var {n} = 1" for n in names}
    pieces = [Piece("function", ["function_definition"], i, i, "f") for i in range(30)]
    facts = [
        {
            "symbol_candidates": [],
            "api_call_candidates": [],
            "reference_candidates": [],
            "extra": {"declared_names": names[:i], "identifiers": names[::-1] + ["zz"]},
        }
        for i in range(30)
    ]
    args = (pieces, [(i, i + 1) for i in range(30)], facts, [("c", i, i + 1) for i in range(30)], decl_text,
            " extends Node ", "extends Node")
    py, c = _both(args)
    assert c == py
    assert [d["chunk_id"] for d in c][:3] == ["function:f", "function:f~2", "function:f~3"]


def test_drafts_empty_and_errors_match() -> None:
    assert C.drafts([], [], [], [], {}, "", "", *_kinds()) == [] == _drafts_py([], [], [], [], {}, "", "")
    piece = Piece("function", ["function_definition"], 0, 0, "f")
    good = {"symbol_candidates": [], "api_call_candidates": [], "reference_candidates": [],
            "extra": {"declared_names": [], "identifiers": ["x"]}}
    cases: list[tuple[Any, ...]] = [
        ([piece], [(0, 1)], [good], [("a\ud800", 0, 1)], {}, "", ""),  # lone surrogate: encode raises
        ([piece], [(0, 1)], [{"extra": good["extra"]}], [("a", 0, 1)], {}, "", ""),  # missing candidates
        ([piece], [(0, 1)], [{**good, "extra": {"declared_names": []}}], [("a", 0, 1)], {"x": "r"}, "", ""),
    ]
    for args in cases:
        with pytest.raises(Exception) as py_err:
            _drafts_py(*copy.deepcopy(args))
        with pytest.raises(Exception) as c_err:
            C.drafts(*copy.deepcopy(args), *_kinds())
        assert type(c_err.value) is type(py_err.value), args


def test_drafts_bad_arguments_raise() -> None:
    piece = Piece("function", ["function_definition"], 0, 0, "f")
    good = {"symbol_candidates": [], "api_call_candidates": [], "reference_candidates": [],
            "extra": {"declared_names": [], "identifiers": []}}
    with pytest.raises(ValueError):
        C.drafts([piece], [], [good], [("a", 0, 1)], {}, "", "", *_kinds())
    bad: list[tuple[Any, ...]] = [
        ((piece,), [(0, 1)], [good], [("a", 0, 1)], {}, "", ""),
        ([piece], [[0, 1]], [good], [("a", 0, 1)], {}, "", ""),
        ([piece], [(0, 1)], [good], [("a", 0)], {}, "", ""),
        ([piece], [(0, 1)], [good], [(b"a", 0, 1)], {}, "", ""),
        ([piece], [(0, 1)], [good], [("a", 0, 1)], {}, b"", ""),
        ([piece], [("0", 1)], [good], [("a", 0, 1)], {}, "", ""),
        ([piece], [(0, 1)], [{**good, "extra": []}], [("a", 0, 1)], {}, "", ""),
        ([object()], [(0, 1)], [good], [("a", 0, 1)], {}, "", ""),
    ]
    for args in bad:
        with pytest.raises((TypeError, AttributeError)):
            C.drafts(*args, *_kinds())
    with pytest.raises(TypeError):
        C.drafts([], [], [], [], {}, "", "")


def test_drafts_no_leak() -> None:
    rng = random.Random(3)
    cases = [_case(rng) for _ in range(50)]
    surrogate = _case(random.Random(4))
    while not surrogate[0]:
        surrogate = _case(rng)
    surrogate[3][-1] = ("\udc80", 0, 1)

    def run() -> None:
        for args in cases:
            C.drafts(*args, *_kinds())
        with pytest.raises(UnicodeEncodeError):
            C.drafts(*surrogate, *_kinds())
        with pytest.raises(ValueError):
            C.drafts([], [(0, 1)], [], [], {}, "", "", *_kinds())

    grown = traced_growth(run, 20)
    assert grown < 20_000, grown


def test_drafts_local_ids_of_odd_names_match() -> None:
    names: list[Any] = [5, "x", "", None, "é𝔘", "x"]
    pieces = [Piece("function", ["function_definition"], i, i, name) for i, name in enumerate(names)]
    facts = [
        {"symbol_candidates": [], "api_call_candidates": [], "reference_candidates": [],
         "extra": {"declared_names": [], "identifiers": []}}
        for _ in names
    ]
    rows = range(len(names))
    args = (pieces, [(i, i + 1) for i in rows], facts, [("c", i, i + 1) for i in rows], {}, "", "")
    py, c = _both(args)
    assert c == py
    assert [d["chunk_id"] for d in c] == ["function:5", "function:x", "function:3", "function:4",
                                          "function:é𝔘", "function:x~2"]
