"""The embedding fill: vectors for knowledge-base rows stored without one (`godot-rag ingest --vectors-only`).

`godot-rag ingest --no-vectors` makes the API index, the mappings and the keyword and trigram legs
usable in seconds; embedding every docs section takes most of half an hour on two cores. The fill
embeds what is still NULL, mappings and label prototypes first (few, and the judge leans on them),
then docs sections, and stores each batch at once: retrieval uses it from then on, and a fill that
was stopped resumes where it stopped (the NULL rows are the work left, see agent/knowledge.py).
Texts come from the rows through the ingest's own embedding-text functions and the one embedder
factory, so a filled vector is the vector a full ingest would have stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from agent.embeddings import Embedder, get_embedder
from agent.ingest.store import chunk_embedding_text, mapping_embedding_text, prototype_embedding_text
from agent.settings import Settings
from agent.storage import connection

# (table, id column, the columns its embedding text is made of, that text) in fill order.
_TABLES: tuple[tuple[str, str, str, Callable[[dict], str]], ...] = (
    ("api_mapping", "mapping_id", "change_type, source_api, target_api, notes", mapping_embedding_text),
    ("label_prototypes", "prototype_id", "label, input_pattern, expected_finding, recommended_action",
     prototype_embedding_text),
    ("docs_chunks", "chunk_id", "section_path, content", chunk_embedding_text),
)

BATCH = 256
"""Texts per embedding call and per stored batch."""


@dataclass(frozen=True)
class Todo:
    """One distinct embedding text and the rows of one table that wait for its vector."""

    table: str
    id_col: str
    ids: tuple[str, ...]
    text: str


@dataclass
class FillSummary:
    """What a fill did: rows given a vector, in how long, and the measured rate."""

    rows: int = 0
    texts: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Texts embedded per second (model loading excluded)."""
        return self.texts / self.seconds if self.seconds else 0.0


def pending(settings: Settings) -> list[Todo]:
    """The texts still to embed, in fill order (each table's by length: the least padding per batch)."""
    out: list[Todo] = []
    with connection(settings) as conn:
        for table, id_col, cols, text_of in _TABLES:
            rows = conn.execute(
                f"SELECT {id_col} AS id, {cols} FROM godot_rag.{table} WHERE embedding IS NULL"  # noqa: S608 (constants)
            ).fetchall()
            by_text: dict[str, list[str]] = {}
            for r in rows:
                by_text.setdefault(text_of(r), []).append(r["id"])
            out += [Todo(table, id_col, tuple(ids), text) for text, ids in sorted(by_text.items(), key=lambda x: len(x[0]))]
    return out


def _store(settings: Settings, todos: list[Todo], vectors) -> int:
    """Write one batch's vectors (one transaction); returns the rows updated."""
    rows = 0
    with connection(settings) as conn, conn.transaction():
        for todo, vec in zip(todos, vectors, strict=True):
            conn.execute(
                f"UPDATE godot_rag.{todo.table} SET embedding = %s WHERE {todo.id_col} = ANY(%s)",  # noqa: S608
                (vec, list(todo.ids)),
            )
            rows += len(todo.ids)
    return rows


def embed_batch(settings: Settings, embedder: Embedder, todos: list[Todo]) -> tuple[int, float]:
    """Embed and store `todos`; returns (rows updated, seconds spent embedding)."""
    t0 = time.perf_counter()
    vectors = embedder.embed_documents([t.text for t in todos])
    seconds = time.perf_counter() - t0
    return _store(settings, todos, vectors), seconds


def sample(todos: list[Todo], n: int) -> list[Todo]:
    """`n` texts spread evenly over the fill's order (each table by length), so their rate stands for the
    whole fill: short mapping rows and long docs sections in the proportions the fill will meet them."""
    if len(todos) <= n:
        return todos
    step = len(todos) / n
    return [todos[int(i * step)] for i in range(n)]


def fill_vectors(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    todos: list[Todo] | None = None,
    batch: int = BATCH,
    on_batch: Callable[[int, int, FillSummary], None] | None = None,
) -> FillSummary:
    """Embed every pending text (or `todos`) batch by batch; `on_batch(done, total, summary)` after each."""
    todos = pending(settings) if todos is None else todos
    summary = FillSummary()
    if not todos:
        return summary
    embedder = embedder or get_embedder(settings)
    for i in range(0, len(todos), batch):
        part = todos[i : i + batch]
        rows, seconds = embed_batch(settings, embedder, part)
        summary.rows += rows
        summary.texts += len(part)
        summary.seconds += seconds
        if on_batch is not None:
            on_batch(min(i + batch, len(todos)), len(todos), summary)
    return summary
