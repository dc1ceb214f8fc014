"""HTML -> Markdown: main content only, in the shape ingest chunks."""

from __future__ import annotations

import re

import pytest

from agent.crawl.convert import convert_page, html_to_markdown
from agent.crawl.errors import PageError
from agent.ingest.sections import class_drafts
from tests.crawl.sphinx_site import CSHARP_SNIPPET, GDSCRIPT_SNIPPET, class_page, page_html, tutorial_page

THEME_TEXT = ("Edit on GitHub", "Built with", "Read the Docs", "User-contributed notes", "Previous", "Next",
              "Search docs", "Copyright", "v: stable", "Page source", "\u00b6")


@pytest.fixture(scope="module")
def class_md() -> str:
    return html_to_markdown(page_html(title="Node2D", depth=1, body=class_page("Node2D")))


@pytest.fixture(scope="module")
def tutorial_md() -> str:
    return html_to_markdown(page_html(title="Moving things", depth=2, body=tutorial_page()))


def test_theme_navigation_and_footer_are_stripped(class_md: str, tutorial_md: str) -> None:
    for md in (class_md, tutorial_md):
        for junk in THEME_TEXT:
            assert junk not in md, junk
        assert "**" not in md and "](" not in md  # no emphasis markers, no link targets
        assert "\n---\n" not in md  # separators dropped
        assert "Class reference" not in md  # sidebar toctree is navigation


def test_class_page_keeps_headings_tables_signatures_and_anchors(class_md: str) -> None:
    assert class_md.startswith("# Node2D\n")
    headings = re.findall(r"^## (.+)$", class_md, re.M)
    assert headings == ["Description", "Properties", "Methods", "Signals", "Enumerations", "Constants",
                        "Property Descriptions", "Method Descriptions"]
    assert "Inherits: CanvasItem < Node < Object" in class_md
    assert "Vector2 | position | `Vector2(0, 0)`\n---|---|---\nfloat | rotation | `0.0`" in class_md
    assert "void | apply_scale(ratio: Vector2)\n---|---\n" in class_md
    # signature paragraph, then its anchor line, then the description
    assert ('Vector2 position = `Vector2(0, 0)`\n\n<a id="class-node2d-property-position"></a>\n\n'
            "The position of this Node2D") in class_md
    assert ('float get_angle_to(point: Vector2) const\n\n<a id="class-node2d-method-get-angle-to"></a>\n\n'
            in class_md)
    assert 'moved(by: Vector2)\n\n<a id="class-node2d-signal-moved"></a>' in class_md
    assert 'enum AnchorMode:\n\n<a id="class-node2d-enum-anchormode"></a>' in class_md
    assert 'MAX_DEPTH = `16`\n\n<a id="class-node2d-constant-max-depth"></a>' in class_md
    assert len(re.findall(r'^<a id="class-node2d-', class_md, re.M)) == 10  # each anchor once


def test_ingest_cuts_one_chunk_per_member_from_our_markdown(class_md: str) -> None:
    _, drafts = class_drafts(class_md, "fallback")
    members = {d.symbol: d.anchor for d in drafts if d.member_kind}
    assert members == {
        "Node2D.position": "class-node2d-property-position",
        "Node2D.rotation": "class-node2d-property-rotation",
        "Node2D.scale": "class-node2d-property-scale",
        "Node2D.apply_scale": "class-node2d-method-apply-scale",
        "Node2D.get_angle_to": "class-node2d-method-get-angle-to",
        "Node2D.move_local_x": "class-node2d-method-move-local-x",
        "Node2D.moved": "class-node2d-signal-moved",
        "Node2D.AnchorMode": "class-node2d-enum-anchormode",
        "Node2D.MAX_DEPTH": "class-node2d-constant-max-depth",
    }
    # the anchor the converter kept is the anchor ingest derives
    for anchor in members.values():
        assert f'<a id="{anchor}"></a>' in class_md


def test_code_tabs_become_fenced_blocks_with_their_language(tutorial_md: str) -> None:
    assert f"```gdscript\n{GDSCRIPT_SNIPPET.rstrip()}\n```" in tutorial_md
    assert f"```csharp\n{CSHARP_SNIPPET.rstrip()}\n```" in tutorial_md
    assert "GDScript" not in tutorial_md.replace("```gdscript", "")  # tab buttons dropped
    assert "It uses position and the frame time." in tutorial_md  # link text kept
    assert "Note\n\nThe speed is in pixels per second." in tutorial_md
    assert "Key | Effect\n---|---\nRight | move \\| fast\nLeft | stop" in tutorial_md
    assert tutorial_md.startswith("# Moving things\n\n## Setup\n")


def test_links_are_collected_from_navigation_too() -> None:
    page = convert_page(page_html(title="T", depth=1, body=tutorial_page()), url="x")
    assert "../classes/index.html" in page.links  # sidebar
    assert "../tutorials/index.html" in page.links  # footer next button
    assert "Class reference" not in page.markdown


def test_page_without_content_is_an_error() -> None:
    with pytest.raises(PageError, match="no main content"):
        html_to_markdown("<html><body><nav><a href='x.html'>Home</a></nav><footer>Built with Sphinx</footer></body></html>")


def test_plain_html_without_theme_uses_body_and_title() -> None:
    md = html_to_markdown("<html><head><title>Plain - Site</title></head><body><p>Just text.</p></body></html>")
    assert md == "# Plain\n\nJust text.\n"
