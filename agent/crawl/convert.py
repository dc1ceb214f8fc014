"""Sphinx HTML page -> Markdown of the corpus shape that ingest chunks.

Only the article body is kept: navigation, breadcrumbs, footer, tab buttons, permalink marks and
comment widgets are dropped. Headings stay ATX (`#`), tables become pipe tables, code blocks are
fenced with their Sphinx language (`highlight-gdscript` -> ```` ```gdscript ````), links keep their
text only, emphasis markers are dropped so class-reference signatures read `void rotate(radians:
float)`, and each class-reference member keeps its anchor as a line of its own right after its
signature paragraph (after, so a chunker that cuts at signatures keeps the anchor with its member).
Tables are written `a | b` / `---|---` (no outer pipes), the shape of the shared corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bs4 import BeautifulSoup, Tag
from markdownify import MarkdownConverter

from agent.crawl.errors import PageError

# First match wins: Read the Docs theme, basic Sphinx themes, then generic HTML.
_MAIN = ('div[itemprop="articleBody"]', 'div[role="main"]', "div.body", "main", "article", "body")

# Sphinx and theme UI that is not page content (matched in one walk; CSS selectors cost 25 ms a page).
_DROP_TAGS = frozenset({
    "script", "style", "noscript", "template", "nav", "footer", "header", "form", "button",
    "img", "svg", "picture", "video", "audio", "iframe", "hr",
})
_DROP_CLASSES = frozenset({
    "headerlink", "wy-breadcrumbs", "rst-footer-buttons", "classref-item-separator", "sphinx-tabs-tab",
    "rst-versions", "wy-nav-side", "wy-nav-top", "related", "sphinxsidebar",
})
_DROP_ROLES = frozenset({"navigation", "tablist"})


def _is_chrome(tag: Tag) -> bool:
    if tag.name in _DROP_TAGS or tag.get("role") in _DROP_ROLES:
        return True
    classes = tag.get("class") or ()
    if not _DROP_CLASSES.isdisjoint(classes):
        return True
    return "giscus" in (tag.get("id") or "") or any("giscus" in c for c in classes)


# Class-reference member anchors, e.g. `class-node2d-property-position`, `class-node-method-add-child`.
MEMBER_ANCHOR = re.compile(
    r"^class-[a-z0-9_@-]+?-(property|method|signal|constant|enum|theme|annotation|constructor|operator)-"
)
_ANCHOR_TOKEN = "GODOTRAGANCHOR{}END"
_ANCHOR_TOKEN_RE = re.compile(r"GODOTRAGANCHOR(\d+)END")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_LANGUAGE = re.compile(r"^highlight-([\w+#.-]+)$")
_LANGUAGE_ALIASES = {"none": "text", "default": "", "python3": "python", "c#": "csharp", "cs": "csharp"}


def anchor_line(anchor_id: str) -> str:
    """How a member anchor is written: an empty HTML anchor on its own line below the signature."""
    return f'<a id="{anchor_id}"></a>'


def _code_language(pre: Tag) -> str:
    for parent in pre.parents:
        for cls in parent.get("class") or ():
            match = _LANGUAGE.match(cls)
            if match:
                lang = match.group(1).lower()
                return _LANGUAGE_ALIASES.get(lang, lang)
    return ""


class _SphinxMarkdown(MarkdownConverter):
    """markdownify with link text only and no emphasis markers (the corpus shape)."""

    def convert_a(self, el, text, parent_tags):  # noqa: D102
        return text

    def convert_strong(self, el, text, parent_tags):  # noqa: D102
        return text

    convert_b = convert_strong
    convert_em = convert_strong
    convert_i = convert_strong

    def convert_td(self, el, text, parent_tags):  # noqa: D102
        return super().convert_td(el, text.replace("|", "\\|"), parent_tags)

    convert_th = convert_td

    def convert_table(self, el, text, parent_tags):  # noqa: D102
        rows = []
        for line in text.strip().splitlines():
            line = line.strip()
            if not line.startswith("|"):
                continue
            inner = line[1:-1] if line.endswith("|") and not line.endswith("\\|") else line[1:]
            cells = [c.strip() for c in _CELL_SPLIT.split(inner)]
            if all(re.fullmatch(r"-{3,}", c) for c in cells):
                rows.append("|".join("---" for _ in cells))
            elif any(cells):
                rows.append(" | ".join(cells).rstrip())
        return "\n\n" + "\n".join(rows) + "\n\n" if rows else ""


def _main_content(soup: BeautifulSoup) -> Tag:
    for selector in _MAIN:
        found = soup.select_one(selector)
        if found is not None:
            return found
    return soup


def _mark_member_anchors(main: Tag, soup: BeautifulSoup) -> list[str]:
    """Put a text token after each member's signature paragraph; tokens become anchor lines later.

    Sphinx puts the id on the signature `<p>`, on a `<span>` inside it, or on a `<span>` just before it.
    """
    anchors: list[str] = []
    seen: set[str] = set()
    for el in main.find_all(id=MEMBER_ANCHOR):
        anchor_id = el["id"]
        if anchor_id in seen:
            continue
        seen.add(anchor_id)
        blocks = ("p", "dt", "li")
        if el.name in blocks:
            block = el
        elif el.parent is not None and el.parent.name in blocks:
            block = el.parent
        else:
            block = el.find_next_sibling(blocks) or el
        marker = soup.new_tag("p")
        marker.string = _ANCHOR_TOKEN.format(len(anchors))
        block.insert_after(marker)
        anchors.append(anchor_id)
    return anchors


def _title(soup: BeautifulSoup) -> str:
    tag = soup.find("title")
    return tag.get_text(" ", strip=True) if tag else ""


@dataclass(frozen=True)
class ConvertedPage:
    """A page's Markdown and every link target on it (navigation included), for URL discovery."""

    markdown: str
    links: list[str]


def convert_page(html: str | bytes, *, url: str = "") -> ConvertedPage:
    """Parse once: collect the links (toctree and navigation too), then convert the main content."""
    soup = BeautifulSoup(html, "html.parser")
    links = [a["href"] for a in soup.find_all("a", href=True)]
    return ConvertedPage(markdown=_soup_to_markdown(soup, url=url), links=links)


def html_to_markdown(html: str | bytes, *, url: str = "") -> str:
    """Convert one Sphinx page to Markdown; raises PageError when it has no main content."""
    return _soup_to_markdown(BeautifulSoup(html, "html.parser"), url=url)


def _soup_to_markdown(soup: BeautifulSoup, *, url: str) -> str:
    main = _main_content(soup)
    for el in [t for t in main.find_all(True) if _is_chrome(t)]:
        if not el.decomposed:
            el.decompose()
    anchors = _mark_member_anchors(main, soup)
    if main.find(["h1", "h2", "h3"]) is None:
        title = _title(soup).split(" — ")[0].split(" - ")[0].strip()
        if title:
            heading = soup.new_tag("h1")
            heading.string = title
            main.insert(0, heading)
    text = _SphinxMarkdown(
        heading_style="ATX",
        bullets="*",
        escape_asterisks=False,
        escape_underscores=False,
        escape_misc=False,
        table_infer_header=True,
        code_language_callback=_code_language,
        wrap=False,
    ).convert_soup(main)
    text = _ANCHOR_TOKEN_RE.sub(lambda m: anchor_line(anchors[int(m.group(1))]), text)
    text = text.replace("\u00b6", "")
    text = "\n".join(line.rstrip() for line in text.splitlines())
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    if not re.search(r"\w", text):
        raise PageError(f"no main content in {url or 'page'}")
    return text + "\n"
