"""lookup_api on a hand-made index and mapping table: definitions per version, successors, anchors."""

from __future__ import annotations

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry
from agent.apilookup import lookup_api, split_name
from agent.models import RetrievalHit
from agent.retrieve.mapping_table import MappingTable, row_of
from agent.retrieve.search import anchored_url, in_version

P3 = "https://docs.godotengine.org/en/3.4/classes/class_kinematicbody2d.html"
P4 = "https://docs.godotengine.org/en/stable/classes/class_characterbody2d.html"


def _index() -> ApiIndex:
    entries = [
        ApiEntry(V3, "KinematicBody2D", "", "class", chunk_id="godot-3.4:k.html#class-kinematicbody2d:0001",
                 source_url=P3),
        ApiEntry(V3, "KinematicBody2D", "move_and_slide", "method", arg_count=6, default_count=5,
                 signature="Vector2 move_and_slide(linear_velocity: Vector2, ...)",
                 chunk_id="godot-3.4:k.html#class-kinematicbody2d-method-move-and-slide:0001", source_url=P3),
        ApiEntry(V4, "CharacterBody2D", "", "class", chunk_id="godot-stable:c.html#class-characterbody2d:0001",
                 source_url=P4),
        ApiEntry(V4, "CharacterBody2D", "move_and_slide", "method", signature="bool move_and_slide()",
                 chunk_id="godot-stable:c.html#class-characterbody2d-method-move-and-slide:0001", source_url=P4),
    ]
    classes = [ClassEntry(V3, "KinematicBody2D", "PhysicsBody2D"), ClassEntry(V4, "CharacterBody2D", "PhysicsBody2D")]
    return ApiIndex(entries, classes, class_renames={"KinematicBody2D": "CharacterBody2D"})


def _table() -> MappingTable:
    hit = RetrievalHit(table="api_mapping", record_id="m1", title="t", content="", score=0.0, metadata={
        "source_api": "move_and_slide(velocity)", "target_api": "velocity + move_and_slide()",
        "change_type": "behavior_change", "status": "candidate", "match_terms": ["move_and_slide"],
        "evidence_chunk_ids": ["godot-stable:c.html#class-characterbody2d-method-move-and-slide:0001"]})
    return MappingTable([row_of(hit)])


def test_split_name():
    index = _index()
    assert split_name(index, "KinematicBody2D.move_and_slide") == ("KinematicBody2D", "move_and_slide")
    assert split_name(index, "KinematicBody2D") == ("KinematicBody2D", None)
    assert split_name(index, "move_and_slide()") == (None, "move_and_slide")


def test_a_renamed_class_member_gives_both_signatures():
    found = lookup_api(_index(), _table(), "KinematicBody2D.move_and_slide")
    assert found.defined_in == ["3.4"] and found.successors == ["CharacterBody2D.move_and_slide"]
    assert found.definitions[0].url == P3 + "#class-kinematicbody2d-method-move-and-slide"
    assert [d.signature for d in found.successor_definitions] == ["bool move_and_slide()"]


def test_a_bare_member_finds_its_mapping_rows_and_both_versions():
    found = lookup_api(_index(), _table(), "move_and_slide")
    assert found.defined_in == ["3.4", "4.x"] and [r.mapping_id for r in found.replacements] == ["m1"]
    assert lookup_api(_index(), _table(), "move_and_slide", "4").defined_in == ["4.x"]


def test_anchors_and_versions():
    assert anchored_url("https://x/p.html", "godot-stable:p.html#sec-a:0002") == "https://x/p.html#sec-a"
    assert anchored_url("https://x/p.html#b", "id#a:1") == "https://x/p.html#b"
    assert anchored_url("https://x/p.html", "no-anchor") == "https://x/p.html"
    assert in_version("3.4", "3.4") and not in_version("stable", "3.4") and in_version("stable", "4")
    assert not in_version("3.4", "4") and in_version("3.4", "both")


def test_every_successor_the_migration_engine_knows(full_api):
    """Issue 47: the call forms, the Tween node's methods, the member renames (off rows included where they hold)
    and the removed rows' notes are successors too, with the form the migration writes."""
    tween = lookup_api(full_api, None, "Tween.interpolate_property")
    assert "Tween.tween_property" in tween.successors and any("create_tween()" in f for f in tween.forms)
    assert lookup_api(full_api, None, "interpolate_property", "4").successors
    assert "JSON.parse_string" in lookup_api(full_api, None, "parse_json").successors
    assert "PackedScene.instantiate" in lookup_api(full_api, None, "PackedScene.instance").successors
    assert "Tween.finished" in lookup_api(full_api, None, "Tween.tween_all_completed").successors
