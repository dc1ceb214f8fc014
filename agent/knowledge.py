"""How much of the knowledge base serves evidence yet: the embedding fill's progress, read off the rows.

`godot-rag ingest --no-vectors` stores every record with its keyword, trigram and API-index data
but no vector, so analysis works within seconds of setup; `godot-rag ingest --vectors-only` then
fills the vectors in batches. Until it is done the vector leg of retrieval sees only the rows it
has reached (rows with a NULL embedding never match), so evidence is partial. The count of rows
with and without a vector is the progress: there is no separate status to fall out of date.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# One statement for the three embedded tables (constants, not user input).
COUNT_SQL = " UNION ALL ".join(
    f"SELECT '{t}' AS tbl, count(*) AS total, count(embedding) AS embedded FROM godot_rag.{t}"
    for t in ("docs_chunks", "api_mapping", "label_prototypes")
)


@dataclass(frozen=True)
class Knowledge:
    """Rows of the knowledge base with a vector (`embedded`) out of all rows (`total`)."""

    embedded: int
    total: int

    @property
    def complete(self) -> bool:
        """Every row has its vector (an empty knowledge base is complete: nothing is pending)."""
        return self.embedded >= self.total

    def as_json(self) -> dict[str, Any]:
        """The report's `knowledge` field."""
        return {"complete": self.complete, "embedded": self.embedded, "total": self.total}

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]]) -> Knowledge:
        return cls(embedded=sum(int(r["embedded"]) for r in rows), total=sum(int(r["total"]) for r in rows))


def knowledge_line(knowledge: Knowledge | dict[str, Any] | None, language: str = "en") -> str | None:
    """The front doors' one line on partial evidence in the reply's language, or None when it was complete."""
    from agent.answer.phrases import phrase

    if knowledge is None:
        return None
    k = knowledge if isinstance(knowledge, Knowledge) else Knowledge(int(knowledge["embedded"]), int(knowledge["total"]))
    if k.complete:
        return None
    return phrase("partial_evidence", language, embedded=f"{k.embedded:,}", total=f"{k.total:,}")


def read_knowledge(conn: Any) -> Knowledge:
    """The knowledge base's embedding progress on a sync connection (dict rows)."""
    return Knowledge.from_rows(conn.execute(COUNT_SQL).fetchall())


async def aread_knowledge(conn: Any) -> Knowledge:
    """`read_knowledge` on an async connection."""
    return Knowledge.from_rows(await (await conn.execute(COUNT_SQL)).fetchall())


def current_knowledge(settings: Any) -> Knowledge:
    """The progress now, on a connection of its own (callers without a pool: the chat's greeting, ingest)."""
    from agent.storage import connection

    with connection(settings) as conn:
        return read_knowledge(conn)
