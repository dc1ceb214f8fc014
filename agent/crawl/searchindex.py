"""Read the page list (`docnames`) out of a Sphinx `searchindex.js`."""

from __future__ import annotations

import json
import re

from agent.crawl.errors import SearchIndexError

# Sphinx >= 6 writes JSON (`"docnames":[`); older builds write a JS literal (`docnames:[`).
_DOCNAMES = re.compile(r"""["']?docnames["']?\s*:\s*(?=\[)""")


def parse_docnames(text: str) -> list[str]:
    """The docnames listed in `Search.setIndex({...})`, in index order, without duplicates."""
    if "Search.setIndex" not in text:
        raise SearchIndexError("searchindex.js does not call Search.setIndex(...); is this a Sphinx site?")
    match = _DOCNAMES.search(text)
    if not match:
        raise SearchIndexError("searchindex.js has no docnames list")
    try:
        names, _ = json.JSONDecoder().raw_decode(text, match.end())
    except json.JSONDecodeError as exc:
        raise SearchIndexError(f"searchindex.js docnames list is malformed: {exc}") from exc
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise SearchIndexError("searchindex.js docnames is not a list of strings")
    if not names:
        raise SearchIndexError("searchindex.js lists no documents")
    return list(dict.fromkeys(names))


_VERSION = re.compile(r"""VERSION\s*:\s*["']([^"']*)["']""")


def parse_version(documentation_options_js: str) -> str | None:
    """The Sphinx project version from `_static/documentation_options.js`, if it looks like `4.4`."""
    match = _VERSION.search(documentation_options_js)
    if match and re.fullmatch(r"\d+(\.\d+)+", match.group(1)):
        return match.group(1)
    return None
