"""The optional C speedups give exactly what the pure-Python reference gives.

`agent.parse._speedups` replaces comment masking, the token scan and the line-local syntax cues;
every chunk it produces must be byte-identical to the pure path's, on the bench corpus, the
fixtures and odd input. Skipped (with the reason) only when the extension was not built.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import random
import sys
from pathlib import Path

import pytest

from agent.parse import chunk_file, clear_cache, speedups
from agent.parse.facts import _FLAGS, FileFacts, mask_comments
from agent.parse.scan import KEYWORDS, scan, scan_facts
from tests.parse.helpers import rss_growth_kb, source
from tests.parse.test_facts_equivalence import ODD

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "projects"
C = speedups.compiled
needs_c = pytest.mark.skipif(C is None, reason="agent.parse._speedups is not built (no C compiler at install?)")


def _bench_corpus(lines: int) -> list[str]:
    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "bench" / "parse.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # registered while it runs, as an import would (dataclasses look it up)
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[spec.name]
    return [text for _, text, _ in mod.corpus(lines, 7)]


EDGE = [
    "",
    "\n",
    "\n\n\n",
    "#",
    '"',
    "'",
    '"""',
    "'''\n\n",
    "\\",
    '"abc\\',
    '"abc\\\n"def"',
    "x = 'it''s' # c\n",
    "extends Node\r\nfunc _ready():\r\n\tprint(\"hi\") # c\r\n",
    "\ufeffextends Node\nfunc f():\n\tpass\n",
    "extends Node\nvar größe = 1\nfunc f(ä, b):\n\treturn Größe.X + größe\n",
    "extends Node\nvar 名前 = 1\nfunc 関数(x):\n\t$ノード.play()\n\t%ユニーク.x = 名前\n",
    "func f():\n\tvar s = \"unterminated\n\tvar t = 'also\n\tcall(s)\n",
    'func f():\n\tvar s = """never\nclosed\n\tcall()\n',
    "func f():\n\tvar a = 1\x00\n\tx\x00y()\n",
    "func f():\n\t" + "a." * 5000 + "b()\n",
    "func f():\n\t" + "Vector2.ZERO + " * 3000 + "x\n",
    "var s = '" + "\\'" * 4000 + "'\n",
    "extends Node\n" + "# " + "x" * 100_000 + "\nfunc f(): pass\n",
    "@tool\n@export_range(0,1) var a\n  @onready var b = $B\nfunc g(): return super(1)\n",
    "remotesync func a(): pass\nmastersync   var b\n\tpuppetsync static func c(): pass\nslave func d(): pass\n"
    "remotesyncx func e(): pass\nsync funcx\nremote\tvar x\n",
    "var p:\n\tset(value):\n\t\tp = value\n\tget:\n\t\treturn p\n\tset ( v_2 ) :\n\tset():\n\tgetter:\n",
    "func f(a, b = g(1, 2), c := [1, 2]):\n\tvar l = func(x, y): return x\n\tfunc(z): pass\n",
    "x = 12.5e3.foo + 0x1F + ٣٤ + a٣()\n",
    "tool\ntoolx\n @tool\nexport(int) var e\nexportx var f\nonready var o\n",
    "var s = get_node('A/B') + get_node_or_null(\"C\")\nconnect('x', self, 'y')\nsig.connect(f)\n",
    "var r = preload(\"res://a.gd\")  # user://b\nvar u = 'uid://c'\n",
    "yield (x, 'y')\nawait\nArray [int]\nsuper . f()\nsetget\nxawait xArray[1]\n",
    "a%b\nreturn %U\nawait %V\n(%W)\n$%X.y()\n$'quoted node'.z()\n",
    "\ud7ff \U0001f600 emoji = 1\nfunc \U0001f600(): pass\nÅngström.call()\nǅx.y()\n",
    "ΣΑΣ.x()\nΣας.y()\nDŽ.z()\n",
    # node paths, unique nodes, get_node, res:// refs and connect(), as facts._facts reads them
    "$%.x\n$%\"A/B\".y\n$%\"open\n$'q'.z\n$\"A\" $'B\n$%%C/D.e\n$\n$/A/B%C\n$-x\n",
    "%A\n x %B\n(%C)\n[%D, %E]\nreturn %F\nawait   %G\nreturn%H\nx=%I\n{%J:%K}\n's'%L\nb% M\n %N%O\n",
    "\treturn\t%P\nreturn %Q\nnotreturn %R\nyield %S\n%\n%1\n%_u\n%Ünïcode\n",
    "get_node(\"A\")\nget_node_or_null( 'B/C' )\nget_node  (\n  \"D\")\nget_node(\"\")\nget_node(\"E\nF\")\n"
    "get_node(\"G')\nget_node_or_nullx(\"H\")\nxget_node(\"I\")\nget_node(\"get_node(\"J\")\nget_node(\xa0'K')\n",
    "res://a.gd\nuser://b c\nuid://\n_res://x\nares://y\n(res://z)\n'res://q'\"uid://r\"\nres://s]t\nres:/u\n"
    "é res://v\nrés://w\n1res://x\n\u3000res://y\u3000z\n",
    "a.connect(f)\na . connect ( f )\na.connect(\"s\")\na.connect()\na.connect( )\na.connect(\n\tf)\n"
    "a.connect(\nb.connect(\n.connect(\n.connected(f)\nconnect(x)\na.connect('x')\n",
    "connect(\"a\", self, \"b\")\nconnect ( 'a' , self , 'b' )\nconnect(\"a\",self,\"b\")\nconnect(\"a\", , \"b\")\n"
    "connect(\"a\",,\"b\")\nconnect(\"a\",\n,\"b\")\nconnect(\"a\", f(x), \"b\")\nconnect(\"a\", self,\n\"b\")\n"
    "connect(\"a\n\", self, \"b\")\nconnect(\"a', self, 'b\")\nconnect(\"a\", self, x)\nconnect(\"a\"\x1c, \x1c,\x1c'b')\n",
    "func f():\n\t$Sprite.play() # $Commented.x()\n\tvar p = get_node(\"Path/To/Label\") # res://c\n"
    "\tload(\"res://x.tscn\") + $%Uni/Que\n\tsig.connect(_on) ; connect(\"a\", self, \"b\")\n\tvar PI = $PI\n",
]


def _chunks_json(text: str) -> list[str]:
    clear_cache()
    return [c.model_dump_json() for c in chunk_file(source("a.gd", text))]


def _both(text: str) -> tuple[list[str], list[str]]:
    saved, speedups.C = speedups.C, C  # the C path even under GODOT_RAG_PURE_PYTHON_PARSE=1
    try:
        c = _chunks_json(text)
    finally:
        speedups.C = saved
    with speedups.pure_python():
        assert speedups.C is None
        p = _chunks_json(text)
    return c, p


def test_pure_python_forced_by_env():
    import subprocess

    code = "from agent.parse import speedups; print(speedups.implementation())"
    env = {**os.environ, speedups.ENV_PURE: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "pure Python"


@needs_c
def test_extension_is_loaded():
    """When built (CI builds it with `pip install -e .`), the C path is the one that runs."""
    assert C.__file__.endswith((".so", ".pyd"))
    if os.environ.get(speedups.ENV_PURE, "") in ("", "0"):
        assert speedups.C is C
        assert speedups.implementation() == "C speedups"


@needs_c
def test_tables_match_python():
    assert C.KEYWORDS == KEYWORDS
    assert C.FLAG_NAMES == tuple(_FLAGS)


@needs_c
@pytest.mark.parametrize("text", EDGE + [ODD], ids=range(len(EDGE) + 1))
def test_edge_cases_identical(text):
    assert C.mask_comments(text) == mask_comments(text)
    _, masked = mask_comments(text)
    assert C.scan(masked) == scan(masked)
    rows = masked.split("\n")
    ranges = [(a, b) for a in range(min(len(rows), 40)) for b in (a, a + 1, a + 3, len(rows) + 5)]
    ranges += [(len(rows) + 2, len(rows) + 9)]
    with speedups.pure_python():
        pure = FileFacts(text).chunks(ranges)
    assert FileFacts(text).chunks(ranges) == pure
    for (a, b), got in zip(ranges, C.scan_rows(masked, ranges), strict=True):
        assert got[:6] == scan_facts("\n".join(rows[a:b])), (a, b)
    c, p = _both(text)
    assert c == p


@needs_c
def test_fixtures_identical():
    files = sorted(FIXTURES.rglob("*.gd")) + sorted(FIXTURES.glob("*.txt"))
    assert files
    for path in files:
        c, p = _both(path.read_text())
        assert c == p, path.name


@needs_c
def test_bench_corpus_identical():
    texts = _bench_corpus(6000)
    assert len(texts) > 20
    for text in texts:
        c, p = _both(text)
        assert c == p


@needs_c
def test_random_text_identical():
    """Random mixes of GDScript fragments and hostile characters, including non-BMP and NUL."""
    alphabet = list("abcAZ_09 \t\n\r.,()[]{}$%@#\"'\\/:=") + ["\x00", "é", "ß", "Σ", "ǅ", "名", "\U0001f600", "٣"]
    words = ["func ", "var ", "export ", "onready ", "@tool", "tool", "setget", "yield(", "await ", "Array[", "super.",
             "remote ", "sync ", '"""', "get_node(\"A\")", "connect(", "$A.b()", "%U", "res://x", "set(v):", "get:"]
    rng = random.Random(11)
    for _ in range(300):
        parts = [rng.choice(words) if rng.random() < 0.3 else rng.choice(alphabet) for _ in range(rng.randint(0, 200))]
        text = "".join(parts)
        assert C.mask_comments(text) == mask_comments(text)
        _, masked = mask_comments(text)
        assert C.scan(masked) == scan(masked)
        c, p = _both(text)
        assert c == p, repr(text)


@needs_c
def test_random_facts_identical():
    """Node paths, refs and connect() patterns mixed at random: every row range of chunk_facts."""
    words = ["$", "$%", "%", "A", "b", "/", '"', "'", "\n", " ", "\t", "get_node", "_or_null", "(", ")", ",",
             "res://", "user://", "uid://", ".", "connect", "return", "await", "self", "\xa0", "é", "]", "#", "func f",
             "var ", "Node2D", "PI", ":", "=", "\\"]
    rng = random.Random(5)
    for _ in range(400):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 60)))
        n = text.count("\n") + 1
        ranges = [(a, b) for a in range(n) for b in range(a, min(n, a + 4) + 1)]
        with speedups.pure_python():
            pure = FileFacts(text).chunks(ranges)
        assert FileFacts(text).chunks(ranges) == pure, repr(text)


@needs_c
def test_bad_arguments_raise_not_crash():
    with pytest.raises(ValueError):
        C.chunk_facts("a\nb", "a", [(0, 1)])  # the two texts must have the same rows
    with pytest.raises(ValueError):
        C.chunk_facts("a", "a\nb", [(0, 1)])
    with pytest.raises(TypeError):
        C.chunk_facts("a", None, [(0, 1)])
    with pytest.raises(TypeError):
        C.mask_comments(b"bytes")
    with pytest.raises(TypeError):
        C.scan(None)
    with pytest.raises(TypeError):
        C.scan_rows("a", [(0,)])
    with pytest.raises(TypeError):
        C.scan_rows("a", 5)
    with pytest.raises(ValueError):
        C.scan_rows("a", [(-1, 1)])


@needs_c
def test_no_leak_over_repeated_runs():
    """The C path run 20x over a corpus: resident memory must not keep growing."""
    texts = _bench_corpus(3000)
    masked = [mask_comments(t)[1] for t in texts]
    ranges = [[(a, a + 7) for a in range(0, m.count("\n") + 1, 5)] for m in masked]

    def run() -> None:
        for t, m, r in zip(texts, masked, ranges, strict=True):
            C.mask_comments(t)
            C.scan(m)
            C.scan_rows(m, r)
            C.chunk_facts(m, mask_comments(t)[0], r)

    grown_kb = rss_growth_kb(run, 20)
    assert grown_kb < 4096, f"max RSS grew {grown_kb} kB over 20 runs"


@needs_c
def test_chunk_facts_results_are_untracked_until_a_container_is_added() -> None:
    """The C facts hold only strs, bools and None: no collection needs to walk them."""
    text = 'extends Node\n@export var a: int\nfunc f(x):\n\t$Sprite.play("run")\n\tload("res://a.tscn")\n'
    no_comments, masked = C.mask_comments(text)
    facts = C.chunk_facts(masked, no_comments, [(0, 2), (2, 5)])
    for f in facts:
        extra = f["extra"]
        kept = [f["symbol_candidates"], f["api_call_candidates"], f["reference_candidates"], extra, extra["syntax"]]
        kept += [extra["declared_names"], extra["identifiers"], extra["syntax"]["annotations"]]
        assert not any(gc.is_tracked(x) for x in kept)
    extra = facts[1]["extra"]
    extra["leading_annotations"] = ["@rpc"]  # what chunk_gdscript adds: CPython tracks the dict again
    assert gc.is_tracked(extra)
    assert facts[1]["reference_candidates"] == ["res://a.tscn", "$Sprite"]
    assert facts[0]["extra"]["syntax"]["annotations"] == ["@export"]


@needs_c
def test_untracked_copies_equal_set_copy_and_are_untracked_only_for_strs() -> None:
    fields = set(dict.fromkeys(["chunk_id", "chunk_order", "span", "extra"]))
    copies = C.untracked_copies(fields, 3)
    assert len(copies) == 3 and all(list(c) == list(fields.copy()) for c in copies)
    assert len({id(c) for c in copies}) == 3 and not any(gc.is_tracked(c) for c in copies)
    assert all(gc.is_tracked(c) for c in C.untracked_copies({("a", 1), "b"}, 2))
    assert C.untracked_copies(fields, 0) == []
    chunks = chunk_file(source("a.gd", "extends Node\nfunc f():\n\tpass\n"))
    assert chunks and not any(gc.is_tracked(c.model_fields_set) for c in chunks) or speedups.C is None
    assert all(c.model_fields_set == set(type(c).model_fields) for c in chunks)
