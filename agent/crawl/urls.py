"""URL rules for a Sphinx site: validate the base, map docnames to page URLs and pages to flat file names."""

from __future__ import annotations

import posixpath
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from agent.crawl.errors import InvalidBaseUrl

# Sphinx output that is not a documentation page.
_NON_PAGES = {"genindex.html", "search.html", "py-modindex.html", "404.html"}


def validate_base_url(raw: str) -> str:
    """Return the base URL normalized to end with `/`, or raise InvalidBaseUrl saying why."""
    text = (raw or "").strip()
    if not text:
        raise InvalidBaseUrl("base URL is empty; expected e.g. https://docs.godotengine.org/en/stable/")
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https"):
        shown = parts.scheme or "none"
        raise InvalidBaseUrl(f"base URL {text!r} must use http or https (scheme: {shown})")
    if not parts.hostname:
        raise InvalidBaseUrl(f"base URL {text!r} has no host")
    if parts.query or parts.fragment:
        raise InvalidBaseUrl(f"base URL {text!r} must not have a query or fragment")
    path = parts.path or "/"
    if path.endswith(".html"):
        path = path.rsplit("/", 1)[0] + "/"
    if not path.endswith("/"):
        path += "/"
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))


def page_url(base: str, docname: str) -> str:
    """The page URL of a Sphinx docname (`classes/class_node` -> `<base>classes/class_node.html`)."""
    return base + docname + ".html"


def canonical(url: str) -> str:
    """Drop query and fragment, decode escapes and resolve `..`, so one page has one URL."""
    parts = urlsplit(url)
    path = unquote(parts.path) or "/"
    trailing = path.endswith("/")
    path = posixpath.normpath(path)
    if trailing and not path.endswith("/"):
        path += "/"
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, "", ""))


def resolve_link(page: str, href: str) -> str | None:
    """An absolute canonical URL for a link on `page`, or None for mailto/javascript/fragment-only links."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    scheme = urlsplit(href).scheme.lower()
    if scheme and scheme not in ("http", "https"):
        return None
    return canonical(urljoin(page, href))


def in_scope(base: str, url: str) -> bool:
    """True for documentation pages under the base URL (not assets, sources, search or index pages)."""
    if not url.startswith(base):
        return False
    rel = url[len(base):]
    if rel and not (rel.endswith(".html") or rel.endswith("/")):
        return False
    first = rel.split("/", 1)[0]
    if first.startswith("_"):
        return False
    return posixpath.basename(rel) not in _NON_PAGES


def page_key(base: str, url: str) -> str:
    """The page's URL in its `.html` form (a directory URL `x/` becomes `x/index.html`)."""
    rel = url[len(base):]
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    return base + rel


def flat_name(base: str, url: str) -> str:
    """`<base>classes/class_%40gdscript.html` -> `classes__class_@gdscript.md`."""
    rel = unquote(page_key(base, url)[len(base):])
    if rel.endswith(".html"):
        rel = rel[: -len(".html")]
    return rel.replace("/", "__") + ".md"


def section_of(base: str, url: str) -> str:
    """`classes`, `tutorials` or `other`, as in summary.json's by_section."""
    first = url[len(base):].split("/", 1)[0]
    return first if first in ("classes", "tutorials") else "other"
