"""Fast tests of the Markdown parser, chunkers and windowing (no database)."""

from __future__ import annotations

import json

import pytest

from agent.ingest.chunks import Page, chunk_prefix, page_chunks
from agent.ingest.markdown import detect_language, parse_blocks
from agent.ingest.sections import class_drafts, text_drafts
from agent.ingest.symbols import SymbolIndex
from agent.ingest.tokens import TokenCounter
from agent.ingest.windows import Unit, embedding_text, pack
from agent.settings import default_docs_dir

# Our own text, written in the corpus's Markdown shape.
CLASS_PAGE = """# Lantern

Inherits: Node2D < CanvasItem < Node < Object

A made-up light source used to test the chunker.

## Description

Lantern glows. It has a brightness and can be toggled.

## Properties

float | brightness | `1.0`  
---|---  
bool | lit | `true`  
  
## Methods

void | toggle(force: bool = false)  
---|---  
  
## Signals

toggled(lit: bool)

Sent after the lantern changes state.

## Constants

MAX_BRIGHTNESS = `4`

Upper bound for brightness.

## Property Descriptions

float brightness = `1.0`

  * void set_brightness(value: float)

  * float get_brightness()

How strongly it glows.

## Method Descriptions

void toggle(force: bool = false)

Switches the lantern. Example:

    
    
    func _ready():
        $Lantern.toggle()
    
    
    
    public override void _Ready()
    {
        GetNode<Lantern>("Lantern").Toggle();
    }
    

## User-contributed notes

Please read the User-contributed notes policy before submitting a comment.
"""


def test_blocks_code_regions_split_into_languages():
    blocks = parse_blocks(CLASS_PAGE)
    code = [c for b in blocks if b.kind == "code" for c in b.code]
    assert [c.language for c in code] == ["gdscript", "csharp"]
    assert code[0].code.startswith("func _ready():")
    assert not any("User-contributed" in b.text for b in blocks)
    tables = [b for b in blocks if b.kind == "table"]
    assert tables[0].header == "float | brightness | `1.0`" and tables[0].items == ["bool | lit | `true`"]


def test_class_page_gets_one_draft_per_member():
    cls, drafts = class_drafts(CLASS_PAGE, "x")
    assert cls == "Lantern"
    symbols = [d.symbol for d in drafts]
    for expected in ("Lantern.brightness", "Lantern.toggle", "Lantern.toggled", "Lantern.MAX_BRIGHTNESS"):
        assert expected in symbols
    toggle = next(d for d in drafts if d.symbol == "Lantern.toggle")
    assert toggle.member_kind == "method" and toggle.section_path == ["Lantern", "Method Descriptions", "toggle"]
    assert [u.code.language for u in toggle.units if u.code] == ["gdscript", "csharp"]


def test_language_detection():
    assert detect_language("extends Node\nvar x = 1") == "gdscript"
    assert detect_language("using Godot;\npublic partial class A : Node {}") == "csharp"
    assert detect_language("shader_type canvas_item;\nvoid fragment() {}") == "shader"


def test_migration_labels_become_sections():
    text = "# Moving on\n\n## Renames\n\nMethods\n\n  * Thing's `old()` is now `new()`.\n\nSignals\n\n  * Thing's `a` is now `b`.\n"
    _, drafts = text_drafts(text, "x", migration=True)
    assert [d.section_path for d in drafts] == [["Moving on", "Renames", "Methods"], ["Moving on", "Renames", "Signals"]]


def test_windows_fit_the_model_and_keep_table_headers(embedder):
    rows = [Unit(f"OldName{i} | NewName{i}", table_header="Old | New") for i in range(200)]
    windows = pack("Page > Section", [Unit("Old | New", table_header="Old | New"), *rows], 256, embedder.token_count)
    assert len(windows) > 1
    for w in windows:
        assert embedder.token_count(embedding_text("Page > Section", w.text)) <= 256
        assert w.text.startswith("Old | New")
    long_para = Unit(" ".join(["The lantern glows brightly in the dark forest night."] * 80))
    for w in pack("P", [long_para], 256, embedder.token_count):
        assert embedder.token_count(embedding_text("P", w.text)) <= 256


def test_real_pages_chunk_deterministically_and_fit(embedder):
    docs = default_docs_dir()
    if docs is None:
        pytest.skip("../shared/godot-docs is absent")
    manifest = {r["file"]: r for r in json.loads((docs / "manifest.json").read_text())}
    sym = SymbolIndex({"Node2D", "CharacterBody2D", "Node", "Vector2"})
    for name in ("pages/classes__class_characterbody2d.md", "pages/tutorials__scripting__gdscript__gdscript_basics.md"):
        r = manifest[name]
        page = Page(r["url"], name, r["sha256"], r["bytes"], (docs / name).read_text())
        kw = dict(symbols=sym, count_tokens=embedder.token_count, max_tokens=embedder.max_seq_length,
                  doc_version="stable", godot_version="4.4")
        a, b = page_chunks(page, **kw), page_chunks(page, **kw)
        assert [c["chunk_id"] for c in a] == [c["chunk_id"] for c in b]
        assert len({c["chunk_id"] for c in a}) == len(a)
        assert all(c["token_count"] <= embedder.max_seq_length for c in a)
        fast = TokenCounter(embedder)  # the batched counter the pipeline uses agrees with the model's own count
        c = page_chunks(page, **{**kw, "count_tokens": fast})
        assert [x["chunk_id"] for x in c] == [x["chunk_id"] for x in a]
        for x in c:
            assert x["token_count"] == embedder.token_count(embedding_text(chunk_prefix(x["section_path"]), x["content"]))
        assert all(c["content"].strip() for c in a)
    ids = [c["chunk_id"] for c in a]
    assert "godot-stable:tutorials/scripting/gdscript/gdscript_basics.html#awaiting-signals-or-coroutines:0001" in ids


def test_crawler_markdown_fences_anchors_and_escaped_pipes():
    """`godot-rag crawl` writes fenced code with a tag and member-anchor lines; both must read right."""
    from agent.ingest.markdown import parse_blocks

    text = (
        "# Moving\n\nMove a node.\n```gdscript\nfunc _process(delta):\n    position.x += 1\n```\n\n"
        "```csharp\npublic override void _Process(double delta) { }\n```\n\n"
        '<a id="class-node2d-property-position"></a>\n\n'
        "op | meaning\n---|---\n`a \\| b` | bitwise or\n"
    )
    blocks = parse_blocks(text)
    code = [c for b in blocks if b.kind == "code" for c in b.code]
    assert [c.language for c in code] == ["gdscript", "csharp"]
    assert code[0].code.startswith("func _process(delta):")
    assert not any("<a id=" in (b.text + " ".join(b.items)) for b in blocks)
    table = next(b for b in blocks if b.kind == "table")
    assert table.items == ["`a | b` | bitwise or"]
