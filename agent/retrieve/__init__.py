"""Hybrid retrieval over the knowledge base (exact, symbol, keyword, trigram, vector)."""

from agent.retrieve.hybrid import RetrievalConfig, Retriever

__all__ = ["RetrievalConfig", "Retriever"]
