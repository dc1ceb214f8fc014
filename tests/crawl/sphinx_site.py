"""A small Sphinx/Read-the-Docs-like site written by the tests themselves (own texts, real API names).

`write_fixture_site` builds the site the crawl tests check; `write_generated_site` builds N class pages
for the bench. Both lay files out under `<root>/en/stable/` like docs.godotengine.org.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

BASE_PATH = "/en/stable/"


def _nav_items(root: str) -> str:
    links = [
        ("index.html", "Home"),
        ("classes/index.html", "Class reference"),
        ("tutorials/index.html", "Tutorials"),
        ("genindex.html", "Index"),
        ("search.html", "Search"),
        ("_sources/index.rst.txt", "Page source"),
    ]
    items = "".join(f'<li class="toctree-l1"><a class="reference internal" href="{root}{h}">{t}</a></li>' for h, t in links)
    return items + '<li><a href="https://example.org/community">Community</a></li><li><a href="mailto:x@example.org">Mail</a></li>'


def page_html(*, title: str, body: str, depth: int) -> str:
    """Wrap article HTML in the theme chrome the converter must strip (nav, breadcrumbs, footer, notes)."""
    root = "../" * depth
    return f"""<!DOCTYPE html>
<html class="writer-html5" lang="en">
<head><meta charset="utf-8" /><title>{escape(title)} &mdash; Fixture Engine (stable) documentation</title>
<script id="documentation_options" src="{root}_static/documentation_options.js"></script>
<script src="{root}_static/searchtools.js"></script>
<link rel="stylesheet" href="{root}_static/css/theme.css" type="text/css" /></head>
<body class="wy-body-for-nav"><div class="wy-grid-for-nav">
<nav data-toggle="wy-nav-shift" class="wy-nav-side"><div class="wy-side-scroll">
<div class="wy-side-nav-search"><a href="{root}index.html">Fixture Engine</a>
<form id="rtd-search-form" class="wy-form" action="{root}search.html" method="get"><input type="text" name="q" placeholder="Search docs" /></form></div>
<div class="wy-menu wy-menu-vertical" data-spy="affix" role="navigation" aria-label="Main">
<p class="caption" role="heading"><span class="caption-text">Contents</span></p><ul>{_nav_items(root)}</ul></div>
</div></nav>
<section data-toggle="wy-nav-shift" class="wy-nav-content-wrap">
<nav class="wy-nav-top" aria-label="Mobile navigation menu"><a href="{root}index.html">Fixture Engine</a></nav>
<div class="wy-nav-content"><div class="rst-content">
<div role="navigation" aria-label="Page navigation"><ul class="wy-breadcrumbs">
<li><a href="{root}index.html" class="icon icon-home" aria-label="Home"></a></li><li class="breadcrumb-item active">{escape(title)}</li>
<li class="wy-breadcrumbs-aside"><a href="https://example.org/edit/page.rst" class="fa fa-github"> Edit on GitHub</a></li>
</ul><hr/></div>
<div role="main" class="document" itemscope="itemscope" itemtype="http://schema.org/Article">
<div itemprop="articleBody">
{body}
</div>
<div id="godot-giscus"><hr><h2>User-contributed notes</h2><p>Please read the notes policy first.</p>
<script src="https://giscus.example/client.js"></script></div>
</div>
<footer><div class="rst-footer-buttons" role="navigation" aria-label="Footer">
<a href="{root}index.html" class="btn btn-neutral float-left" rel="prev">Previous</a>
<a href="{root}tutorials/index.html" class="btn btn-neutral float-right" rel="next">Next</a></div>
<hr/><div role="contentinfo"><p>&#169; Copyright the fixture authors.</p></div>
Built with <a href="https://www.sphinx-doc.org/">Sphinx</a> using a <a href="https://example.org/theme">theme</a> provided by <a href="https://example.org">Read the Docs</a>.
</footer></div></div></section></div>
<div class="rst-versions" data-toggle="rst-versions" role="note" aria-label="Versions"><span class="rst-current-version">v: stable</span></div>
</body></html>
"""


def _toctree(entries: list[tuple[str, str]]) -> str:
    items = "".join(
        f'<li class="toctree-l1"><a class="reference internal" href="{h}">{escape(t)}</a></li>' for h, t in entries
    )
    return f'<div class="toctree-wrapper compound"><ul>{items}</ul></div>'


def _section(anchor: str, heading: str, level: int, inner: str) -> str:
    return (
        f'<section id="{anchor}"><h{level}>{escape(heading)}<a class="headerlink" href="#{anchor}" '
        f'title="Link to this heading">\u00b6</a></h{level}>{inner}</section>'
    )


def _ref(name: str) -> str:
    """A type reference; only Node2D (a page) and Node (a dead link on this site) are links."""
    if name not in ("Node2D", "Node"):
        return f'<span class="std std-ref">{name}</span>'
    return f'<a class="reference internal" href="class_{name.lower()}.html#class-{name.lower()}"><span class="std std-ref">{name}</span></a>'


def _code(text: str) -> str:
    return '<code class="docutils literal notranslate">' + " ".join(
        f'<span class="pre">{escape(part)}</span>' for part in text.split(" ")
    ) + "</code>"


def _member(anchor: str, signature_html: str, description: str, *, span_style: bool = False) -> str:
    link = f'<a class="headerlink" href="#{anchor}" title="Link to this definition">\u00b6</a>'
    if span_style:  # id on a span inside the paragraph
        head = f'<p class="classref-method"><span class="target" id="{anchor}"></span>{signature_html} {link}</p>'
    else:
        head = f'<p class="classref-property" id="{anchor}">{signature_html} {link}</p>'
    sep = '<div class="classref-item-separator docutils container"><hr class="docutils" /></div>'
    return f"{head}<p>{description}</p>{sep}"


def class_page(name: str, *, parent: str = "CanvasItem", members: int = 3) -> str:
    """A class-reference body: inheritance, description, member tables, and member descriptions."""
    low = name.lower()
    props = [("Vector2", "position", "Vector2(0, 0)"), ("float", "rotation", "0.0"), ("Vector2", "scale", "Vector2(1, 1)")]
    props += [("int", f"extra_value_{i}", str(i)) for i in range(max(0, members - 3))]
    prop_rows = "".join(
        f'<tr class="row-odd"><td><p>{_ref(t)}</p></td><td><p><a class="reference internal" '
        f'href="#class-{low}-property-{n.replace("_", "-")}"><span class="std std-ref">{n}</span></a></p></td>'
        f"<td><p>{_code(d)}</p></td></tr>"
        for t, n, d in props
    )
    methods = [
        ("void", "apply_scale", f'ratio: {_ref("Vector2")}', "", "apply-scale"),
        ("float", "get_angle_to", f'point: {_ref("Vector2")}', " const", "get-angle-to"),
        ("void", "move_local_x", f'delta: {_ref("float")}, scaled: {_ref("bool")} = false', "", "move-local-x"),
    ]
    method_rows = "".join(
        f"<tr><td><p>{_ref(r) if r != 'void' else 'void'}</p></td><td><p><a class=\"reference internal\" "
        f'href="#class-{low}-method-{a}"><span class="std std-ref">{n}</span></a>({args}){q}</p></td></tr>'
        for r, n, args, q, a in methods
    )
    table = '<div class="classref-reftable-group docutils container"><table class="docutils align-default"><colgroup><col style="width: 50%" /><col style="width: 50%" /></colgroup><tbody>{}</tbody></table></div>'
    prop_desc = "".join(
        _member(
            f"class-{low}-property-{n.replace('_', '-')}",
            f"{_ref(t)} <strong>{n}</strong> = {_code(d)}",
            f"The {n.replace('_', ' ')} of this {name}, measured in its parent's space.",
        )
        for t, n, d in props
    )
    method_desc = "".join(
        _member(
            f"class-{low}-method-{a}",
            f"{_ref(r) if r != 'void' else 'void'} <strong>{n}</strong>({args}){q}",
            f"Fixture text for <code class=\"docutils literal notranslate\"><span class=\"pre\">{n}</span></code>, "
            f"written for the crawler tests.",
            span_style=True,
        )
        for r, n, args, q, a in methods
    )
    signal = _member(
        f"class-{low}-signal-moved",
        f'<strong>moved</strong>(by: {_ref("Vector2")})',
        "Sent after the node changed place.",
    )
    enum = _member(
        f"class-{low}-enum-anchormode",
        "enum <strong>AnchorMode</strong>:",
        "How the node is pinned.",
    ) + f'<p class="classref-enumeration-constant"><span class="target" id="class-{low}-constant-anchor-mode-fixed"></span>AnchorMode <strong>ANCHOR_MODE_FIXED</strong> = <code class="docutils literal notranslate"><span class="pre">0</span></code></p><p>Stays where it is put.</p>'
    const = _member(
        f"class-{low}-constant-max-depth",
        f"<strong>MAX_DEPTH</strong> = {_code('16')}",
        "Deepest nesting the fixture allows.",
    )
    body = (
        f'<p><strong>Inherits:</strong> {_ref(parent)} <strong>&lt;</strong> {_ref("Node")} <strong>&lt;</strong> {_ref("Object")}</p>'
        f"<p>A fixture class named {name}; it stands in for a real class page.</p>"
        + _section("description", "Description", 2, f"<p>{name} has a place, a turn and a size. Read <em>Moving things</em> to see it used.</p>")
        + _section("properties", "Properties", 2, table.format(prop_rows))
        + _section("methods", "Methods", 2, table.format(method_rows))
        + '<hr class="classref-section-separator docutils" />'
        + _section("signals", "Signals", 2, signal)
        + _section("enumerations", "Enumerations", 2, enum)
        + _section("constants", "Constants", 2, const)
        + _section("property-descriptions", "Property Descriptions", 2, prop_desc)
        + _section("method-descriptions", "Method Descriptions", 2, method_desc)
    )
    return f'<section id="{low}"><span id="class-{low}"></span><h1>{name}<a class="headerlink" href="#{low}">\u00b6</a></h1>{body}</section>'


GDSCRIPT_SNIPPET = """extends Node2D

@export var speed = 300.0

func _process(delta):
    position.x += speed * delta
"""

CSHARP_SNIPPET = """using Godot;

public partial class Mover : Node2D
{
    [Export]
    public float Speed { get; set; } = 300.0f;

    public override void _Process(double delta)
    {
        Position += new Vector2((float)(Speed * delta), 0);
    }
}
"""


def _highlight(lang: str, code: str) -> str:
    lines = "".join(f'<span class="n">{escape(line)}</span>\n' for line in code.rstrip("\n").split("\n"))
    return f'<div class="highlight-{lang} notranslate"><div class="highlight"><pre><span></span>{lines}</pre></div></div>'


def tutorial_page() -> str:
    """A tutorial body with GDScript/C# code tabs, a note, a table and an inline link."""
    tabs = (
        '<div class="sphinx-tabs docutils container">'
        '<div aria-label="Tabbed content" class="closeable" role="tablist">'
        '<button aria-controls="panel-0-0-0" aria-selected="true" class="sphinx-tabs-tab code-tab group-tab" id="tab-0-0-0" role="tab">GDScript</button>'
        '<button aria-controls="panel-0-0-1" aria-selected="false" class="sphinx-tabs-tab code-tab group-tab" id="tab-0-0-1" role="tab">C#</button>'
        "</div>"
        f'<div aria-labelledby="tab-0-0-0" class="sphinx-tabs-panel code-tab group-tab" id="panel-0-0-0" role="tabpanel">{_highlight("gdscript", GDSCRIPT_SNIPPET)}</div>'
        f'<div aria-labelledby="tab-0-0-1" class="sphinx-tabs-panel code-tab group-tab" hidden="true" id="panel-0-0-1" role="tabpanel">{_highlight("csharp", CSHARP_SNIPPET)}</div>'
        "</div>"
    )
    intro = (
        "<p>This fixture page moves a sprite to the right every frame. It uses "
        f'<a class="reference internal" href="../../classes/class_node2d.html#class-node2d-property-position">position</a>'
        " and the frame time.</p>"
    )
    note = '<div class="admonition note"><p class="admonition-title">Note</p><p>The speed is in pixels per second.</p></div>'
    table = (
        '<table class="docutils align-default"><thead><tr class="row-odd"><th class="head"><p>Key</p></th>'
        '<th class="head"><p>Effect</p></th></tr></thead><tbody><tr class="row-even"><td><p>Right</p></td>'
        "<td><p>move | fast</p></td></tr><tr><td><p>Left</p></td><td><p>stop</p></td></tr></tbody></table>"
    )
    body = _section("setup", "Setup", 2, intro + note) + _section("the-script", "The script", 2, "<p>Attach this script:</p>" + tabs + table)
    return f'<section id="moving-things"><h1>Moving things<a class="headerlink" href="#moving-things">\u00b6</a></h1>{body}</section>'


def simple_page(title: str, text: str, *, toc: list[tuple[str, str]] | None = None) -> str:
    """A plain page: a heading, a paragraph, and optionally a toctree."""
    anchor = title.lower().replace(" ", "-")
    inner = f"<p>{escape(text)}</p>" + (_toctree(toc) if toc else "")
    return f'<section id="{anchor}"><h1>{escape(title)}<a class="headerlink" href="#{anchor}">\u00b6</a></h1>{inner}</section>'


def searchindex_js(docnames: list[str], *, quoted_keys: bool = True) -> str:
    """`Search.setIndex({...})` as Sphinx writes it (JSON keys in new builds, bare keys in old ones)."""
    titles = [d.rsplit("/", 1)[-1] for d in docnames]
    if quoted_keys:
        payload = json.dumps({"alltitles": {}, "docnames": docnames, "envversion": {"sphinx": 61},
                              "filenames": [d + ".rst" for d in docnames], "titles": titles, "terms": {}})
    else:
        payload = ("{docnames:" + json.dumps(docnames) + ",envversion:{sphinx:56},filenames:"
                   + json.dumps([d + ".rst" for d in docnames]) + ",titles:" + json.dumps(titles) + ",terms:{}}")
    return f"Search.setIndex({payload})"


@dataclass
class FixtureSite:
    """What the fixture site holds, as paths under BASE_PATH."""

    root: Path
    docnames: list[str]
    expected_collected: list[str] = field(default_factory=list)
    expected_failed: list[str] = field(default_factory=list)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / BASE_PATH.strip("/") / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _common(root: Path, docnames: list[str], version: str = "4.4") -> None:
    _write(root, "searchindex.js", searchindex_js(docnames))
    _write(root, "_static/documentation_options.js",
           f"const DOCUMENTATION_OPTIONS = {{\n    VERSION: '{version}',\n    LANGUAGE: 'en',\n}};\n")
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /en/stable/private/\n", encoding="utf-8")


# Server behaviour the fixture site needs (paths on the server).
REDIRECTS = {"/en/stable/tutorials/renamed.html": "renamed_target.html"}
FAIL_FIRST = {"/en/stable/tutorials/flaky.html": 1}


def write_fixture_site(root: Path, *, clean: bool = False) -> FixtureSite:
    """The crawl-test site (see tests/crawl/test_crawl.py for what each page exercises).

    `clean=True` leaves out the page that 404s and the one robots.txt blocks, so the crawl passes the gate.
    """
    docnames = [
        "index", "classes/index", "classes/class_node2d", "classes/class_@gdscript", "tutorials/index",
        "tutorials/scripting/moving_things", "tutorials/flaky", "tutorials/renamed", "tutorials/gone",
        "tutorials/hidden", "private/secret",
    ]
    if clean:
        docnames = [d for d in docnames if d not in ("tutorials/gone", "private/secret")]
    _common(root, docnames)
    _write(root, "index.html", page_html(title="Fixture docs", depth=0, body=simple_page(
        "Fixture docs", "Welcome to the fixture documentation.",
        toc=[("classes/index.html", "Class reference"), ("tutorials/index.html", "Tutorials")])))
    _write(root, "classes/index.html", page_html(title="Class reference", depth=1, body=simple_page(
        "Class reference", "All fixture classes.",
        toc=[("class_node2d.html", "Node2D"), ("class_%40gdscript.html", "@GDScript")])))
    _write(root, "classes/class_node2d.html", page_html(title="Node2D", depth=1, body=class_page("Node2D")))
    _write(root, "classes/class_@gdscript.html", page_html(title="@GDScript", depth=1, body=simple_page(
        "@GDScript", "Built-in annotations and functions of the fixture language.")))
    _write(root, "tutorials/index.html", page_html(title="Tutorials", depth=1, body=simple_page(
        "Tutorials", "Step-by-step fixture guides.",
        toc=[("scripting/moving_things.html", "Moving things"), ("flaky.html", "Flaky"), ("renamed.html", "Renamed"),
             ("extra.html", "Extra")] + ([] if clean else [("gone.html", "Gone"), ("../private/secret.html", "Secret")]))))
    _write(root, "tutorials/scripting/moving_things.html",
           page_html(title="Moving things", depth=2, body=tutorial_page()))
    _write(root, "tutorials/flaky.html", page_html(title="Flaky", depth=1, body=simple_page(
        "Flaky", "This page fails once before it is served.")))
    _write(root, "tutorials/renamed_target.html", page_html(title="Renamed", depth=1, body=simple_page(
        "Renamed", "The page that an old address now points to.")))
    _write(root, "tutorials/hidden.html", page_html(title="Hidden", depth=1, body=simple_page(
        "Hidden", "Only the search index knows this page.")))
    _write(root, "tutorials/extra.html", page_html(title="Extra", depth=1, body=simple_page(
        "Extra", "Only the navigation knows this page.")))
    _write(root, "private/secret.html", page_html(title="Secret", depth=1, body=simple_page(
        "Secret", "robots.txt keeps crawlers out of here.")))
    collected = [
        "index.html", "classes/index.html", "classes/class_node2d.html", "classes/class_@gdscript.html",
        "tutorials/index.html", "tutorials/scripting/moving_things.html", "tutorials/flaky.html",
        "tutorials/renamed_target.html", "tutorials/hidden.html", "tutorials/extra.html",
    ]
    return FixtureSite(root=root, docnames=docnames, expected_collected=sorted(collected),
                       expected_failed=[] if clean else ["private/secret.html", "tutorials/gone.html"])


def write_generated_site(root: Path, pages: int) -> FixtureSite:
    """`pages` class pages (plus index pages) for the bench; every page is in the search index and the toctree."""
    names = [f"Bench{i:04d}" for i in range(pages)]
    docnames = ["index", "classes/index"] + [f"classes/class_{n.lower()}" for n in names]
    _common(root, docnames)
    _write(root, "index.html", page_html(title="Bench docs", depth=0, body=simple_page(
        "Bench docs", "Generated pages.", toc=[("classes/index.html", "Class reference")])))
    _write(root, "classes/index.html", page_html(title="Class reference", depth=1, body=simple_page(
        "Class reference", "Generated classes.", toc=[(f"class_{n.lower()}.html", n) for n in names])))
    for i, n in enumerate(names):
        _write(root, f"classes/class_{n.lower()}.html",
               page_html(title=n, depth=1, body=class_page(n, members=3 + i % 20)))
    return FixtureSite(root=root, docnames=docnames)
