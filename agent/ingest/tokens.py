"""Fast token counting with the embedding model's own tokenizer.

`Embedder.token_count` goes through transformers' Python wrapper on every call, which
dominates chunking time on the full corpus. This counter uses the same Rust tokenizer
(truncation and padding off, special tokens on, so counts equal `token_count`),
batch-encodes a page's units at once and caches the results.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from agent.embeddings import Embedder


class TokenCounter:
    """Callable `text -> token count` identical to `embedder.token_count`, but batched and cached."""

    def __init__(self, embedder: Embedder, cache_limit: int = 200_000):
        backend = getattr(embedder.model.tokenizer, "_tokenizer", None)
        self._fallback = embedder.token_count
        self.max_seq_length = embedder.max_seq_length
        self._tok = None
        if backend is not None:
            self._tok = copy.deepcopy(backend)
            self._tok.no_truncation()
            self._tok.no_padding()
        self._cache: dict[str, int] = {}
        self._limit = cache_limit

    def prime(self, texts: Iterable[str]) -> None:
        """Count many texts in one parallel batch."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if not todo:
            return
        if len(self._cache) > self._limit:
            self._cache.clear()
        if self._tok is None:
            for t in todo:
                self._cache[t] = self._fallback(t)
            return
        for t, enc in zip(todo, self._tok.encode_batch(todo, add_special_tokens=True), strict=True):
            self._cache[t] = len(enc.ids)

    def __call__(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            n = len(self._tok.encode(text, add_special_tokens=True).ids) if self._tok else self._fallback(text)
        return n
