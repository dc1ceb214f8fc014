"""Crawl errors. Page-level failures are recorded in failed.json; these abort only on bad input."""

from __future__ import annotations


class CrawlError(Exception):
    """The crawl cannot start or cannot finish (bad base URL, no search index, unwritable output)."""


class InvalidBaseUrl(CrawlError, ValueError):
    """The --base-url is not an absolute http(s) URL with a host."""


class SearchIndexError(CrawlError):
    """The site's Sphinx `searchindex.js` is missing or has no `docnames`."""


class PageError(Exception):
    """One page could not be collected; the message is what failed.json shows."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
