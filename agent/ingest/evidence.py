"""Resolve evidence specs (`{"symbol": ...}`, `{"page", "heading"|"contains"}`) to chunk ids."""

from __future__ import annotations

from collections import defaultdict


class EvidenceIndex:
    """Lookup over the chunk records of this run."""

    def __init__(self, chunks: list[dict]):
        self.ids = {c["chunk_id"] for c in chunks}
        self.by_symbol: dict[str, list[str]] = defaultdict(list)
        self.by_heading: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.by_page: dict[str, list[dict]] = defaultdict(list)
        for c in chunks:
            page = c["source_file"].rsplit("/", 1)[-1]
            if c.get("symbol"):
                self.by_symbol[c["symbol"]].append(c["chunk_id"])
            if c.get("heading"):
                self.by_heading[(page, c["heading"])].append(c["chunk_id"])
            self.by_page[page].append(c)

    def resolve(self, spec: dict) -> list[str]:
        """Chunk ids for one spec; empty when the page or symbol is not in this corpus."""
        if "symbol" in spec:
            return self.by_symbol.get(spec["symbol"], [])[:1]
        page = spec.get("page", "")
        if "heading" in spec:
            return self.by_heading.get((page, spec["heading"]), [])[:2]
        if "contains" in spec:
            for c in self.by_page.get(page, []):
                if spec["contains"] in c["content"]:
                    return [c["chunk_id"]]
        return []

    def resolve_all(self, specs: list[dict]) -> tuple[list[str], list[dict]]:
        """(resolved ids in order without duplicates, specs that found nothing)."""
        ids: list[str] = []
        missing: list[dict] = []
        for spec in specs:
            found = self.resolve(spec)
            if not found:
                missing.append(spec)
            ids.extend(i for i in found if i not in ids)
        return ids, missing
