"""Fast token counting with the embedding model's own tokenizer.

`Embedder.token_count` goes through transformers' Python wrapper on every call, which
dominates chunking time on the full corpus. This counter uses the same Rust tokenizer
(truncation and padding off, special tokens on, so counts equal `token_count`),
batch-encodes a page's units at once and caches the results. The model is loaded only
when something is actually counted, so pages without text never pay for it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable

from agent.embeddings import Embedder


class TokenCounter:
    """Callable `text -> token count` identical to `embedder.token_count`, but batched and cached."""

    def __init__(self, embedder: Embedder | Callable[[], Embedder], cache_limit: int = 200_000):
        self._source = embedder
        self._embedder: Embedder | None = None
        self._tok = None
        self._cache: dict[str, int] = {}
        self._limit = cache_limit

    def _load(self) -> Embedder:
        if self._embedder is None:
            src = self._source
            self._embedder = src if isinstance(src, Embedder) else src()
            backend = getattr(self._embedder.tokenizer, "_tokenizer", None)
            if backend is not None:
                self._tok = copy.deepcopy(backend)
                self._tok.no_truncation()
                self._tok.no_padding()
        return self._embedder

    @property
    def max_seq_length(self) -> int:
        """The model's input limit in tokens (longer input is silently cut)."""
        return self._load().max_seq_length

    def prime(self, texts: Iterable[str]) -> None:
        """Count many texts in one parallel batch."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if not todo:
            return
        embedder = self._load()
        if len(self._cache) > self._limit:
            self._cache.clear()
        if self._tok is None:
            for t in todo:
                self._cache[t] = embedder.token_count(t)
            return
        for t, enc in zip(todo, self._tok.encode_batch(todo, add_special_tokens=True), strict=True):
            self._cache[t] = len(enc.ids)

    def __call__(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            embedder = self._load()
            n = len(self._tok.encode(text, add_special_tokens=True).ids) if self._tok else embedder.token_count(text)
        return n
