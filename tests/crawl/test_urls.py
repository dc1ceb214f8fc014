"""Pure URL and search-index rules."""

from __future__ import annotations

import pytest

from agent.crawl.errors import InvalidBaseUrl, SearchIndexError
from agent.crawl.searchindex import parse_docnames, parse_version
from agent.crawl.urls import canonical, flat_name, in_scope, page_key, resolve_link, validate_base_url
from tests.crawl.sphinx_site import searchindex_js

BASE = "https://docs.example.org/en/stable/"


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("ftp://docs.example.org/en/stable/", "http or https"),
        ("docs.example.org/en/stable/", "http or https"),
        ("file:///tmp/docs/", "http or https"),
        ("https:///en/stable/", "no host"),
        ("http://", "no host"),
        ("https://docs.example.org/en/stable/?q=1", "query or fragment"),
    ],
)
def test_invalid_base_urls_are_rejected_with_the_reason(raw: str, why: str) -> None:
    with pytest.raises(InvalidBaseUrl, match=why):
        validate_base_url(raw)


def test_base_url_is_normalized_to_a_directory() -> None:
    assert validate_base_url("HTTPS://Docs.Example.org/en/stable") == BASE
    assert validate_base_url("https://docs.example.org/en/stable/index.html") == BASE
    assert validate_base_url("https://docs.example.org") == "https://docs.example.org/"


def test_flat_names_match_the_shared_corpus() -> None:
    assert flat_name(BASE, BASE + "classes/class_node.html") == "classes__class_node.md"
    assert flat_name(BASE, BASE + "classes/class_%40gdscript.html") == "classes__class_@gdscript.md"
    assert flat_name(BASE, BASE + "tutorials/migrating/upgrading_to_godot_4.html") == (
        "tutorials__migrating__upgrading_to_godot_4.md"
    )
    assert flat_name(BASE, BASE) == "index.md"
    assert flat_name(BASE, BASE + "tutorials/") == "tutorials__index.md"


def test_links_resolve_to_canonical_in_scope_pages() -> None:
    page = BASE + "tutorials/index.html"
    assert resolve_link(page, "../classes/class_node.html#class-node-method-add-child") == BASE + "classes/class_node.html"
    assert resolve_link(page, "#section") is None
    assert resolve_link(page, "mailto:someone@example.org") is None
    assert resolve_link(page, "javascript:void(0)") is None
    assert canonical(BASE + "classes/class_%40gdscript.html?x=1") == BASE + "classes/class_@gdscript.html"
    assert page_key(BASE, BASE + "tutorials/") == BASE + "tutorials/index.html"
    assert in_scope(BASE, BASE + "classes/class_node.html")
    for outside in ("https://docs.example.org/en/latest/index.html", BASE + "_sources/index.rst.txt",
                    BASE + "_static/x.html", BASE + "genindex.html", BASE + "search.html", BASE + "img.png",
                    "https://other.example.org/en/stable/index.html"):
        assert not in_scope(BASE, outside), outside


def test_docnames_from_json_and_js_literal_search_indexes() -> None:
    names = ["index", "classes/class_node", "classes/class_@gdscript"]
    assert parse_docnames(searchindex_js(names)) == names
    assert parse_docnames(searchindex_js(names, quoted_keys=False)) == names
    assert parse_docnames(searchindex_js(names + ["index"])) == names


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("var x = 1;", "Search.setIndex"),
        ('Search.setIndex({"titles": []})', "no docnames"),
        ('Search.setIndex({"docnames": ["a", ])', "malformed"),
        ('Search.setIndex({"docnames": []})', "no documents"),
        ('Search.setIndex({"docnames": [1, 2]})', "list of strings"),
    ],
)
def test_bad_search_indexes_say_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(SearchIndexError, match=why):
        parse_docnames(text)


def test_version_from_documentation_options() -> None:
    assert parse_version("var DOCUMENTATION_OPTIONS = { VERSION: '4.4', LANGUAGE: 'en' };") == "4.4"
    assert parse_version("const DOCUMENTATION_OPTIONS = {VERSION: 'latest'};") is None
    assert parse_version("nothing here") is None
