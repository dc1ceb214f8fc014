"""A question to the docs, answered by the same hybrid retrieval that finds a chunk's evidence.

Front doors that let users search the docs directly (the MCP server's `search_docs`) go through here, so a
search ranks pages exactly as the judge's evidence is ranked. A version filter keeps only the 3.4 pages or
only the Godot 4 pages: the retriever is asked for more docs than are shown (with its fuzzy legs on the 3.4
pages too, which judging leaves out), then the other version's are dropped.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from pydantic import BaseModel

from agent.models import RetrieverQuery
from agent.retrieve.hybrid import Retriever

DocsVersion = Literal["4", "3.4", "both"]
EXCERPT_CHARS = 280
_WORD = re.compile(r"[A-Za-z_@][A-Za-z0-9_./@]*")


class DocHit(BaseModel):
    """One docs chunk as a search result."""

    id: str
    """The docs chunk id (what a citation names)."""
    title: str
    doc_version: str
    """"3.4" or the Godot 4 corpus's version ("stable")."""
    symbol: str | None
    url: str
    """The page with the section's anchor."""
    score: float
    excerpt: str


def in_version(doc_version: str | None, version: DocsVersion) -> bool:
    """Whether a docs chunk of `doc_version` belongs to the asked version ("4" is every non-3.4 corpus)."""
    return version == "both" or (doc_version == "3.4") == (version == "3.4")


def anchored_url(source_url: str, chunk_id: str) -> str:
    """A docs chunk's page with the anchor of the section it was cut from (the id's `#anchor:NNNN` part)."""
    _, sep, tail = chunk_id.partition("#")
    anchor = tail.rsplit(":", 1)[0] if sep else ""
    return f"{source_url}#{anchor}" if anchor and "#" not in source_url else source_url


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1].rstrip() + "…"


def search_docs(retriever: Retriever, query: str, version: DocsVersion = "both", limit: int = 8) -> list[DocHit]:
    """The best `limit` docs chunks for `query` in `version`, best first."""
    wide = retriever.with_config(replace(retriever.config, top_k_docs=max(limit * 4, 24), fuzzy_34=version != "4"))
    terms = list(dict.fromkeys(_WORD.findall(query)))[:16]
    bundle = wide.retrieve(RetrieverQuery(query_text=query, query_terms=terms, raw_chunk_text=query,
                                          task_type="search", gdscript=False))
    out = []
    for hit in bundle.doc_evidence:
        md = hit.metadata or {}
        if not in_version(md.get("doc_version"), version):
            continue
        out.append(DocHit(id=hit.record_id, title=hit.title, doc_version=str(md.get("doc_version") or ""),
                          symbol=md.get("symbol"), url=anchored_url(str(md.get("source_url") or ""), hit.record_id),
                          score=hit.score, excerpt=_excerpt(hit.content)))
        if len(out) == limit:
            break
    return out
