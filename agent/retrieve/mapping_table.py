"""Every api_mapping row, parsed once per database into a typed record, looked up by exact name.

The hybrid search keeps a few mapping rows per chunk (top-k plus a bounded exact leg), which is right
for explanation but wrong for detection: inside a long function the rename row of its sixth Godot 3
name may fall outside what came back, and the finding (and its rewrite) would silently be lost.
Detection therefore reads this table: every row whose old name or match term the chunk names, ranked
or not. A finding cites the row it rests on, and `with_cited_rows` puts that row in the chunk's
evidence, so what was decided is always what was retrieved.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from agent.models import EvidenceBundle, RetrievalHit
from agent.retrieve.sql_legs import DOCUMENTED_COLUMNS

ROLES_OF_KIND: dict[str, tuple[str, ...]] = {
    "method": ("call",), "csharp-method": ("call",), "property": ("property",), "csharp-property": ("property",),
    "signal": ("signal",), "csharp-signal": ("signal",), "enum": ("constant",), "constant": ("constant",),
    "class": ("class",), "builtin-type": ("class",), "color": ("color",),
}
"""The roles a use must have for a row of a table's kind (a signal rename applies to signal uses only)."""


@dataclass(frozen=True)
class MappingRow:
    """One api_mapping row, typed: what the judge's rules read instead of `metadata.get(...)`."""

    mapping_id: str
    source_api: str
    target_api: str | None
    change_type: str
    status: str
    kind: str
    """The rename table's kind (method, property, signal, enum, class, ...), '' for curated syntax rows."""
    classes: tuple[str, ...]
    derived: bool
    """Derived from the API index (a name only 3.4 documents), not a documented change."""
    documented_in_godot4: bool | None
    match_terms: tuple[str, ...]
    hit: RetrievalHit
    """The row as evidence (`match=["exact"]`, score 0): what a finding cites."""

    @property
    def roles(self) -> tuple[str, ...] | None:
        """The roles a use must have (a signal rename applies to signal uses only); None: any."""
        return ROLES_OF_KIND.get(self.kind)

    @property
    def member(self) -> str:
        return self.source_api.rsplit(".", 1)[-1]

    @property
    def documents_a_change(self) -> bool:
        """Not rejected, and a change of name or form (a behaviour change keeps the name: no version cue)."""
        return self.status != "rejected" and self.change_type not in ("behavior_change", "unchanged")


def row_of(hit: RetrievalHit) -> MappingRow:
    """The typed record of a mapping hit (retrieved or from the table)."""
    md = hit.metadata
    prov = md.get("provenance") or {}
    return MappingRow(
        mapping_id=hit.record_id, source_api=str(md.get("source_api") or ""), target_api=md.get("target_api"),
        change_type=str(md.get("change_type") or ""), status=str(md.get("status") or ""),
        kind=str(prov.get("kind") or ""), classes=tuple(prov.get("classes") or ()),
        derived=prov.get("source") == "api_index", documented_in_godot4=md.get("documented_in_godot4"),
        match_terms=tuple(md.get("match_terms") or ()), hit=hit)


class MappingTable:
    """The non-rejected api_mapping rows by every name that finds them exactly (old name, match terms)."""

    def __init__(self, rows: Iterable[MappingRow]) -> None:
        self.rows = {r.mapping_id: r for r in rows}
        self._by_name: dict[str, list[MappingRow]] = {}
        for r in sorted(self.rows.values(), key=lambda r: r.mapping_id):
            for name in dict.fromkeys((r.source_api, *r.match_terms)):
                if name:
                    self._by_name.setdefault(name, []).append(r)

    def __len__(self) -> int:
        return len(self.rows)

    def named(self, names: Iterable[str]) -> list[MappingRow]:
        """Rows any of `names` finds exactly, each once, in a stable order (by mapping id)."""
        found: dict[str, MappingRow] = {}
        for name in names:
            for r in self._by_name.get(name, ()):
                found.setdefault(r.mapping_id, r)
        return [found[k] for k in sorted(found)]


_ROWS_SQL = ("SELECT {cols} FROM godot_rag.dynamic_retrieval_view v"
             " WHERE v.table_name = 'api_mapping' AND v.metadata->>'status' <> 'rejected'")


def read_table(conn) -> MappingTable:
    rows = conn.execute(_ROWS_SQL.format(cols=DOCUMENTED_COLUMNS.as_string(conn))).fetchall()
    out = []
    for row in rows:
        metadata = dict(row["metadata"] or {})
        if row["documented"] is not None:
            metadata["documented_in_godot4"] = bool(row["documented"])
        out.append(row_of(RetrievalHit(table="api_mapping", record_id=row["id"], title=row["title"],
                                       content=row["content"], score=0.0, metadata=metadata, match=["exact"])))
    return MappingTable(out)


_CACHE: dict[str, MappingTable] = {}
_LOCK = threading.Lock()


def cached_table(key: str, conn_factory) -> MappingTable:
    """One table per database (`key`), read once per process (like `apiindex.cached_index`)."""
    with _LOCK:
        if key not in _CACHE:
            with conn_factory() as conn:
                _CACHE[key] = read_table(conn)
        return _CACHE[key]


def clear_cache() -> None:
    """After an ingest rewrote api_mapping."""
    with _LOCK:
        _CACHE.clear()


def with_rows(evidence: EvidenceBundle, rows: Iterable[MappingRow], pages: Iterable[RetrievalHit] = ()) -> EvidenceBundle:
    """`evidence` plus the mapping rows and docs pages it lacks, retrieved ones first (ranks and scores kept)."""
    have = evidence.ids()
    extra = [r.hit for r in rows if r.mapping_id not in have and not have.add(r.mapping_id)]
    docs = [h for h in pages if h.record_id not in have and not have.add(h.record_id)]
    if not extra and not docs:
        return evidence
    scores = dict(evidence.retrieval_scores)
    scores["exact_api_hits"] = scores.get("exact_api_hits", 0) + len(extra)
    return evidence.model_copy(update={"api_mapping_evidence": [*evidence.api_mapping_evidence, *extra],
                                       "doc_evidence": [*evidence.doc_evidence, *docs],
                                       "retrieval_scores": scores})


_PAGES_SQL = ("SELECT v.table_name, v.id, v.title, v.content, v.metadata FROM godot_rag.docs_chunks d"
              " JOIN godot_rag.dynamic_retrieval_view v ON v.table_name = 'docs_chunks' AND v.id = d.chunk_id"
              " WHERE d.symbol = ANY(%(symbols)s) OR d.chunk_id = ANY(%(ids)s) ORDER BY d.symbol, d.chunk_id")


def pages_of(conn, symbols: list[str], ids: list[str] = (), per_symbol: int = 2) -> list[RetrievalHit]:
    """The docs windows a finding rests on: those documenting `symbols` (`UndoRedo.add_do_method`, `Time`), the
    first `per_symbol` per symbol and docs version (the 4.x page and the 3.4 page), and the chunks `ids` names
    (the docs a mapping row cites), by the tables' indexes."""
    if not symbols and not ids:
        return []
    kept: dict[tuple[str, str], int] = {}
    out = []
    wanted = set(ids)
    for row in conn.execute(_PAGES_SQL, {"symbols": sorted(set(symbols)), "ids": sorted(wanted)}).fetchall():
        md = row["metadata"] or {}
        key = (str(md.get("symbol")), str(md.get("doc_version")))
        kept[key] = kept.get(key, 0) + 1
        if kept[key] <= per_symbol or row["id"] in wanted:
            out.append(RetrievalHit(table="docs_chunks", record_id=row["id"], title=row["title"],
                                    content=row["content"], score=0.0, metadata=dict(md), match=["exact"]))
    return out
