"""Hybrid retriever over `godot_rag.dynamic_retrieval_view` (first version: signatures)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.models import EvidenceBundle, RetrieverQuery
from agent.settings import Settings


@dataclass(kw_only=True)
class RetrievalConfig:
    """Tunable retrieval knobs."""

    top_k_docs: int = field(default=6, metadata={"description": "docs_chunks hits kept per chunk"})
    top_k_mappings: int = field(default=6, metadata={"description": "api_mapping hits kept per chunk"})
    top_k_labels: int = field(default=3, metadata={"description": "label_prototypes hits kept per chunk"})


class Retriever:
    """One `RetrieverQuery` -> one `EvidenceBundle`; sync and thread-safe."""

    def __init__(self, settings: Settings, pool, *, embedder=None, config: RetrievalConfig | None = None):
        self.settings = settings
        self.pool = pool
        self.embedder = embedder
        self.config = config or RetrievalConfig()

    def retrieve(self, query: RetrieverQuery) -> EvidenceBundle:
        """Search all three tables for one chunk's query."""
        raise NotImplementedError
