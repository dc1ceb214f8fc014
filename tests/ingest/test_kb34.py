"""The 3.4 reference in the knowledge base: chunks, the API index, derived candidates, re-ingest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.ingest.pipeline import run_ingest
from agent.settings import default_classref3_dir
from agent.storage import connection


@pytest.fixture(scope="module")
def conn(kb_settings):
    with connection(kb_settings) as c:
        yield c


def test_3_4_member_chunks_have_their_url_anchor_and_provenance(conn):
    row = conn.execute(
        "SELECT chunk_id, doc_version, source_url, source_file, metadata FROM godot_rag.docs_chunks"
        " WHERE symbol = 'Label.percent_visible'").fetchone()
    assert row["chunk_id"] == "godot-3.4:classes/class_label.html#class-label-property-percent-visible:0001"
    assert row["doc_version"] == "3.4"
    assert row["source_url"] == "https://docs.godotengine.org/en/3.4/classes/class_label.html"
    assert row["source_file"] == "godot-class-ref-3.4/classes/Label.xml"
    assert row["metadata"]["converter_version"] and "4.x" not in row["metadata"]["godot_version_tags"]


def test_the_api_index_knows_both_versions(conn):
    rows = conn.execute(
        "SELECT version, class_name, member, kind, accessor_of FROM godot_rag.api_index"
        " WHERE (class_name, member) IN (('Input', 'get_mouse_mode'), ('Label', 'percent_visible'),"
        " ('Label', 'visible_ratio'), ('Spatial', ''), ('Node3D', ''))").fetchall()
    got = {(r["version"], r["class_name"], r["member"], r["kind"]) for r in rows}
    assert {("4.x", "Input", "get_mouse_mode", "method"), ("3.4", "Input", "get_mouse_mode", "method"),
            ("3.4", "Label", "percent_visible", "property"), ("4.x", "Label", "visible_ratio", "property"),
            ("3.4", "Spatial", "", "class"), ("4.x", "Node3D", "", "class")} <= got
    assert ("4.x", "Label", "percent_visible", "property") not in got
    chain = conn.execute("SELECT inherits FROM godot_rag.api_classes WHERE version = '3.4' AND class_name = 'Camera'")
    assert chain.fetchone()["inherits"] == "Spatial"


def test_derived_candidates_cite_both_versions_and_stay_candidates(conn):
    rows = conn.execute(
        "SELECT mapping_id, source_api, target_api, change_type, status, confidence, evidence_chunk_ids"
        " FROM godot_rag.api_mapping WHERE provenance->>'source' = 'api_index'").fetchall()
    assert rows and all(r["status"] == "candidate" and r["confidence"] == "candidate" for r in rows)
    by = {r["source_api"]: r for r in rows}
    tr = by["Spatial.translation"]
    assert tr["target_api"] == "Node3D.position" and tr["change_type"] == "rename"
    assert tr["evidence_chunk_ids"] == ["godot-3.4:classes/class_spatial.html#class-spatial-property-translation:0001",
                                        "godot-stable:classes/class_node3d.html#class-node3d-property-position:0001"]
    # renames the converter does not list come from the committed supplement, checked against 4.x
    assert (by["Label.percent_visible"]["target_api"], by["Label.percent_visible"]["change_type"]) == (
        "Label.visible_ratio", "rename")
    assert by["Label.get_percent_visible"]["target_api"] == "Label.get_visible_ratio"
    # a disabled converter row whose target changes the meaning is not derived (bool autowrap -> enum mode)
    assert by["Label.autowrap"]["change_type"] == "removed"
    assert by["Input.get_joy_axis_index_from_string"]["change_type"] == "removed"  # no row: still removed
    # a subset of the 4.x reference proves no class gone: no class is derived as removed
    assert not [r for r in rows if "." not in r["source_api"] and r["change_type"] == "removed"]


def test_reingest_with_the_3_4_reference_is_incremental(empty_db_factory, mini_corpus: Path, mini_renames, tmp_path):
    src = default_classref3_dir()
    if src is None:
        pytest.skip("../shared/godot-class-ref-3.4 is absent")
    ref = tmp_path / "ref"
    (ref / "classes").mkdir(parents=True)
    for name in ("Thread.xml", "Spatial.xml"):
        shutil.copyfile(src / "classes" / name, ref / "classes" / name)
    (ref / "summary.json").write_text(json.dumps({"doc_version": "3.4", "godot_version": "3.4.5-stable",
                                                  "counts": {"classes": 2}}))
    settings = empty_db_factory("kb34")
    out = tmp_path / "kb"
    first = run_ingest(settings, docs_dir=mini_corpus, renames_file=mini_renames, out_dir=out, progress=False,
                       classref_dir=ref)
    assert first.errors == [] and first.pages == 6 and first.pages_3_4 == 2 and first.api_index_rows > 0
    second = run_ingest(settings, docs_dir=mini_corpus, renames_file=mini_renames, out_dir=out, progress=False,
                        classref_dir=ref)
    assert second.embeddings == 0 and second.pages_changed == 0 and second.api_index_rows == first.api_index_rows
    # the reference gone: its pages go, and the 4.x knowledge base stays as it was
    third = run_ingest(settings, docs_dir=mini_corpus, renames_file=mini_renames, out_dir=out, progress=False)
    assert third.pages_removed == 2 and third.pages_3_4 == 0 and third.errors == []


def test_disabled_rename_rows_that_change_the_meaning_are_not_derived():
    from agent.ingest.mappings import _rename_rows
    from agent.settings import default_renames_file

    table = _rename_rows(default_renames_file())["gdscript_function_renames"]
    disabled = {r["old"] for r in table if not r.get("enabled", True)}
    assert any(r["old"] == "update" and r["from"] == "supplement" for r in table)  # loads without ../shared too
    if default_renames_file() is not None:
        assert "get_network_peer" not in disabled  # `-> has_multiplayer_peer` asks another question
        assert "set_margin" in disabled  # disabled for blind text replacement only: kept, scoped to Control


def test_a_converter_row_disabled_for_text_replacement_serves_the_class_it_names():
    from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
    from agent.ingest.mappings import derived_mappings
    from agent.settings import default_renames_file

    if default_renames_file() is None:
        pytest.skip("../shared/godot-data/renames_3_to_4.json is absent")
    entries = [ApiEntry(V3, "Control", "", "class"), ApiEntry(V4, "Control", "", "class"),
               ApiEntry(V3, "Control", "set_margin", "method"), ApiEntry(V4, "Control", "set_offset", "method"),
               ApiEntry(V3, "Shape", "", "class"), ApiEntry(V4, "Shape3D", "", "class"),
               ApiEntry(V3, "Shape", "set_margin", "method")]
    classes = [ClassEntry(V3, "Control", "Node"), ClassEntry(V4, "Control", "Node"), ClassEntry(V3, "Shape", "Resource"),
               ClassEntry(V4, "Shape3D", "Resource")]
    by = {d.source_api: d for d in derived_mappings(ApiIndex(entries, classes), default_renames_file(), [])}
    assert (by["Control.set_margin"].target_api, by["Control.set_margin"].change_type) == ("Control.set_offset", "rename")
    assert by["Control.set_margin"].provenance["rename_row"] == {"from": "converter", "enabled": False}
    assert by["Shape.set_margin"].target_api is None  # the row names Control only


def test_a_class_rename_the_converter_switched_off_derives_no_removal():
    """`World -> World3D` is disabled as too common a word: `World` is then no removed class either."""
    from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
    from agent.ingest.mappings import derived_mappings
    from agent.settings import default_renames_file

    if default_renames_file() is None:
        pytest.skip("../shared/godot-data/renames_3_to_4.json is absent")
    shared = [f"Shared{i}" for i in range(10)]  # a 4.x reference complete enough to derive removals from
    entries = [ApiEntry(V3, "World", "", "class"), ApiEntry(V3, "WebSocketClient", "", "class"),
               ApiEntry(V4, "World3D", "", "class"),
               *(ApiEntry(v, c, "", "class") for v in (V3, V4) for c in shared)]
    classes = [ClassEntry(V3, "World", "Resource"), ClassEntry(V3, "WebSocketClient", "Reference"),
               ClassEntry(V4, "World3D", "Resource"),
               *(ClassEntry(v, c, "Object") for v in (V3, V4) for c in shared)]
    by = {d.source_api: d for d in derived_mappings(ApiIndex(entries, classes), default_renames_file(), [])}
    assert "World" not in by
    assert by["WebSocketClient"].change_type == "removed"


def test_surface_tool_adders_of_3_4_are_the_setters_of_4x():
    """`st.add_uv(uv)` sets the next vertex's UV in 3.4, as `st.set_uv(uv)` does in 4.x: a rename, not a removal."""
    from agent.ingest.mappings import _rename_rows
    from agent.settings import default_renames_file

    table = _rename_rows(default_renames_file())["gdscript_function_renames"]
    rows = {r["old"]: r for r in table if r.get("from") == "supplement" and r["classes"] == "SurfaceTool"}
    assert {old: r["new"] for old, r in rows.items()} == {
        "add_uv": "set_uv", "add_uv2": "set_uv2", "add_color": "set_color", "add_normal": "set_normal",
        "add_tangent": "set_tangent", "add_bones": "set_bones", "add_weights": "set_weights",
        "add_smooth_group": "set_smooth_group"}


def test_a_property_4x_dropped_is_found_again_through_its_getter():
    """`collision.collider` is `collision.get_collider()` in 4.x, `TouchScreenButton.pressed` is `texture_pressed`;
    no guess for a property code also sets, nor through an indexed accessor."""
    from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
    from agent.ingest.mappings import derived_mappings

    def acc(v, cls, name, prop, args=0):
        return ApiEntry(v, cls, name, "method", arg_count=args, accessor_of=prop)

    names = ("KinematicCollision2D", "TouchScreenButton", "Light2D", "Camera2D", "Light", "DirectionalLight")
    entries = [
        *(ApiEntry(v, c, "", "class") for v in (V3, V4) for c in names),
        ApiEntry(V3, "KinematicCollision2D", "collider", "property"), acc(V3, "KinematicCollision2D", "get_collider", "collider"),
        ApiEntry(V4, "KinematicCollision2D", "get_collider", "method"),
        ApiEntry(V3, "TouchScreenButton", "pressed", "property"),
        acc(V3, "TouchScreenButton", "get_texture_pressed", "pressed"),
        acc(V3, "TouchScreenButton", "set_texture_pressed", "pressed", 1),
        ApiEntry(V4, "TouchScreenButton", "texture_pressed", "property"),
        acc(V4, "TouchScreenButton", "get_texture_pressed", "texture_pressed"),
        # set in 3.4 (`light.range_height = 10.0`): 4.x's plain getter would not serve the write
        ApiEntry(V3, "Light2D", "range_height", "property"), acc(V3, "Light2D", "get_height", "range_height"),
        acc(V3, "Light2D", "set_height", "range_height", 1), ApiEntry(V4, "Light2D", "get_height", "method"),
        ApiEntry(V4, "Light2D", "set_height", "method", arg_count=1),
        ApiEntry(V3, "Camera2D", "current", "property"), acc(V3, "Camera2D", "is_current", "current"),
        acc(V3, "Camera2D", "_set_current", "current", 1), ApiEntry(V4, "Camera2D", "is_current", "method"),
        # an indexed accessor up the 4.x chain names no one value
        ApiEntry(V3, "DirectionalLight", "shadow_split", "property"), acc(V3, "DirectionalLight", "get_param", "shadow_split"),
        ApiEntry(V4, "DirectionalLight", "fade_start", "property"), acc(V4, "DirectionalLight", "get_param", "fade_start"),
        ApiEntry(V4, "Light", "get_param", "method", arg_count=1),
    ]
    classes = [*(ClassEntry(v, c, "Object") for v in (V3, V4) for c in names if c != "DirectionalLight"),
               *(ClassEntry(v, "DirectionalLight", "Light") for v in (V3, V4))]
    by = {d.source_api: d for d in derived_mappings(ApiIndex(entries, classes), None, [])}
    got = {k: (by[k].target_api, by[k].change_type) for k in ("KinematicCollision2D.collider", "TouchScreenButton.pressed",
                                                            "Light2D.range_height", "Camera2D.current",
                                                            "DirectionalLight.shadow_split")}
    assert got == {"KinematicCollision2D.collider": ("KinematicCollision2D.get_collider()", "signature_change"),
                   "TouchScreenButton.pressed": ("TouchScreenButton.texture_pressed", "rename"),
                   "Light2D.range_height": (None, "removed"),
                   "Camera2D.current": (None, "removed"),
                   "DirectionalLight.shadow_split": (None, "removed")}
