"""The Godot 3.4 XML reference: BBCode, pages in the 4.x layout, member chunks, the quality gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.apiindex import V3, V4, ApiIndex, rows_from_chunks
from agent.ingest.chunks import Page, page_chunks
from agent.ingest.classref import bbcode_to_markdown, codeblocks, load_classref, parse_class, render_markdown
from agent.ingest.corpus import CorpusError
from agent.ingest.symbols import SymbolIndex
from agent.settings import default_classref3_dir, default_docs_dir

XML = """<?xml version="1.0" encoding="UTF-8" ?>
<class name="Toy" inherits="Node" version="3.4">
  <brief_description>A [Node] for tests.</brief_description>
  <description>
    Use [method spin] with [member speed]; see [signal spun] and [constant MAX_SPIN].
    [codeblock]
    func _ready():
        yield(get_tree(), "idle_frame")
    [/codeblock]
  </description>
  <methods>
    <method name="spin" qualifiers="const">
      <return type="int" />
      <argument index="0" name="times" type="int" />
      <argument index="1" name="fast" type="bool" default="false" />
      <description>Spins [code]times[/code] times.</description>
    </method>
  </methods>
  <members>
    <member name="speed" type="float" setter="set_speed" getter="get_speed" default="1.0">How fast.</member>
    <member name="pause_mode" type="int" setter="set_pause_mode" getter="get_pause_mode" override="true" default="0" />
  </members>
  <signals>
    <signal name="spun"><argument index="0" name="times" type="int" /><description>After a spin.</description></signal>
  </signals>
  <constants>
    <constant name="MAX_SPIN" value="3">Most spins.</constant>
    <constant name="MODE_A" value="0" enum="Mode">First mode.</constant>
  </constants>
</class>
"""


def _chunks(text: str, url: str, file: str, version: str) -> list[dict]:
    page = Page(url=url, source_file=file, sha256="0" * 64, bytes=len(text), text=text)
    return page_chunks(page, symbols=SymbolIndex({"Toy", "Node", "Input"}), count_tokens=lambda t: len(t.split()) + 2,
                       max_tokens=256, doc_version=version, godot_version=version)


def test_bbcode_becomes_markdown_and_codeblocks_are_fenced():
    md = bbcode_to_markdown("Call [method spin] on a [Node]: [code]x[/code] [b]now[/b].\n[codeblock]\nvar a = 1\n[/codeblock]")
    assert "`spin()`" in md and "Node" in md and "`x`" in md and "**now**" in md
    assert "```gdscript\nvar a = 1\n```" in md
    assert "[" not in md.replace("[", "", 0).split("```")[0]
    assert codeblocks(XML) == ['func _ready():\n    yield(get_tree(), "idle_frame")']


def test_one_chunk_per_member_with_the_3_4_url_and_anchor():
    cls = parse_class(XML)
    assert [m.name for m in cls.members] == ["spin", "speed", "spun", "MAX_SPIN", "MODE_A"]  # override dropped
    chunks = _chunks(render_markdown(cls, ["Node", "Object"]), "https://docs.godotengine.org/en/3.4/classes/class_toy.html",
                     "godot-class-ref-3.4/classes/Toy.xml", "3.4")
    by_symbol = {c["symbol"]: c for c in chunks}
    assert "godot-3.4:classes/class_toy.html#class-toy-method-spin:0001" == by_symbol["Toy.spin"]["chunk_id"]
    assert by_symbol["Toy.speed"]["metadata"]["member_kind"] == "property"
    assert by_symbol["Toy.spun"]["metadata"]["member_kind"] == "signal"
    assert all(c["doc_version"] == "3.4" and "4.x" not in c["godot_version_tags"] for c in chunks)
    assert any(b["language"] == "gdscript" and "yield" in b["code"] for c in chunks for b in c["code_blocks"])
    entries, classes = rows_from_chunks(chunks, V3)
    index = ApiIndex(entries, classes)
    spin = index.lookup(V3, "Toy", "spin")
    assert (spin.arg_count, spin.default_count, spin.return_type) == (2, 1, "int")
    assert spin.accepts(1) and spin.accepts(2) and not spin.accepts(3)
    assert index.lookup(V3, "Toy", "get_speed").accessor_of == "speed"
    assert index.lookup(V3, "Toy", "MODE_A").kind == "constant"
    assert classes[0].inherits == "Node"


def test_a_4x_property_accessor_is_a_4x_name():
    docs = default_docs_dir()
    if docs is None:
        pytest.skip("../shared/godot-docs is absent")
    text = (docs / "pages" / "classes__class_input.md").read_text()
    chunks = _chunks(text, "https://docs.godotengine.org/en/stable/classes/class_input.html",
                     "pages/classes__class_input.md", "stable")
    index = ApiIndex(*rows_from_chunks(chunks, V4))
    entry = index.lookup(V4, "Input", "get_mouse_mode")
    assert entry is not None and entry.accessor_of == "mouse_mode"
    assert index.lookup(V4, "Input", "is_action_pressed", ["method"]).arg_count == 2


def test_load_classref_reports_a_bad_file_and_keeps_the_rest(tmp_path: Path):
    (tmp_path / "classes").mkdir()
    (tmp_path / "classes" / "Toy.xml").write_text(XML)
    (tmp_path / "classes" / "Broken.xml").write_text("<class name='Broken'><methods>")
    (tmp_path / "summary.json").write_text(json.dumps({"doc_version": "3.4", "counts": {"classes": 2}}))
    ref = load_classref(tmp_path)
    assert [p.source_file for p in ref.pages] == ["godot-class-ref-3.4/classes/Toy.xml"]
    assert ref.pages[0].url == "https://docs.godotengine.org/en/3.4/classes/class_toy.html"
    assert "godot-class-ref-3.4/classes/Broken.xml" in ref.failed_files
    causes = [str(i) for i in ref.issues]
    assert any("Broken.xml" in c and "unreadable" in c for c in causes)
    assert any("classes: summary.json says 2, the files hold 1" in c for c in causes)


def test_missing_classes_dir_is_a_clear_error(tmp_path: Path):
    with pytest.raises(CorpusError, match="classes"):
        load_classref(tmp_path)


def test_the_shared_reference_matches_its_summary(tmp_path: Path):
    src = default_classref3_dir()
    if src is None:
        pytest.skip("../shared/godot-class-ref-3.4 is absent")
    ref = load_classref(src)
    assert len(ref.pages) == 682
    assert not [str(i) for i in ref.issues], "the quality gate found count mismatches"
    dest = tmp_path / "ref"
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("Node2D.xml"))
    partial = load_classref(dest)
    assert any("summary.json says 682" in str(i) for i in partial.issues)


def test_every_constructor_overload_is_indexed_and_none_is_derived_as_removed():
    """3.4's `Toy(from: int)` and `Toy(from: Vector2)` are two rows; 4.x lists constructors apart, so
    neither becomes a `removed` candidate (a call is checked against both versions' overloads instead)."""
    from agent.ingest.mappings import derived_mappings

    ctor = ('    <method name="Toy">\n      <return type="Toy" />\n'
            '      <argument index="0" name="from" type="{t}" />\n      <description>From a {t}.</description>\n'
            '    </method>\n')
    xml = XML.replace("  <methods>\n", "  <methods>\n" + ctor.format(t="int") + ctor.format(t="Vector2"))
    chunks = _chunks(render_markdown(parse_class(xml), ["Node", "Object"]),
                     "https://docs.godotengine.org/en/3.4/classes/class_toy.html", "godot-class-ref-3.4/classes/Toy.xml",
                     "3.4")
    entries, classes = rows_from_chunks(chunks, V3)
    assert [e.signature for e in entries if e.member == "Toy"] == ["Toy Toy(from: int)", "Toy Toy(from: Vector2)"]
    index = ApiIndex(entries, classes)
    assert len(index.all_lookup(V3, "Toy", "Toy", ["method"])) == 2
    from agent.apiindex import ApiEntry, ClassEntry
    both = ApiIndex(entries + [ApiEntry(V4, "Toy", "", "class")], classes + [ClassEntry(V4, "Toy", "Node")])
    assert not any(d.source_api == "Toy.Toy" for d in derived_mappings(both, None, []))
