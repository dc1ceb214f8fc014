"""The one embedding factory: the same function embeds the index and the query."""

from __future__ import annotations

import logging
import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from agent.embedding_config import PRECISIONS, native_bf16, resolve_model_path, resolve_precision
from agent.embeddings_onnx import OnnxEncoder, OnnxModelError, ensure_onnx_model, read_layout, usable_cpus
from agent.settings import Settings

# PRECISIONS and the resolve_* functions live in agent.embedding_config (the ONNX build needs them too);
# callers keep importing them from here.
__all__ = ["PRECISIONS", "Embedder", "get_embedder", "native_bf16", "resolve_model_path", "resolve_precision"]

log = logging.getLogger(__name__)


class Embedder:
    """Thread-safe embedder over the model directory: normalized float32 vectors whatever the precision.

    - `float32`: the model's fused ONNX Runtime copy (`agent/embeddings_onnx.py`, built once under
      `home`), each text alone on one of the usable cores; the torch model's vectors (cosine >= 0.9999)
      at ~1.7x its speed on AVX2. A model the ONNX copy cannot reproduce runs on torch instead.
    - `bfloat16`: the sentence-transformers torch model with its matmuls in bf16 under CPU autocast
      (weights, layer norms, softmax and pooling stay float32); pays only where oneDNN has native bf16
      (AVX512-BF16/AMX).
    """

    def __init__(self, model_path: Path, batch_size: int = 32, precision: str = "float32", home: Path | None = None):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.batch_size = batch_size
        self.precision = resolve_precision(precision)
        self._lock = threading.Lock()
        self._onnx = None
        self.model = None
        self.runtime = "torch"
        """Which library runs the model: `onnxruntime` (the float32 ONNX copy) or `torch`."""
        if self.precision == "float32":
            try:
                layout = read_layout(model_path)
                onnx_file = ensure_onnx_model(model_path, home or Settings().home)
                self._onnx = OnnxEncoder(onnx_file, model_path, layout, threads=usable_cpus())
            except OnnxModelError as exc:
                log.warning("%s; embedding with the torch model", exc)
            else:
                self.runtime = "onnxruntime"
                self.tokenizer = self._onnx.tokenizer
                self.dim, self.max_seq_length = layout.dim, layout.max_seq_length
                return
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True)
        self.tokenizer = self.model.tokenizer
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        self.max_seq_length = int(self.model.max_seq_length)

    def token_count(self, text: str) -> int:
        """Word-piece tokens including [CLS]/[SEP]; more than `max_seq_length` is silently cut by the model."""
        return len(self.tokenizer(text, add_special_tokens=True, truncation=False)["input_ids"])

    def embed_documents(self, texts: list[str], *, show_progress: bool = False,
                        batch_size: int | None = None) -> np.ndarray:
        """Embed many texts (float32, L2-normalized): one at a time on the ONNX copy, else in
        length-sorted batches of `batch_size` on the torch model."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._onnx is not None:
            with self._lock:
                return self._onnx.encode(texts)
        import torch

        with self._lock, torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bfloat16"):
            return self.model.encode(
                texts,
                batch_size=batch_size or self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=show_progress,
            ).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query with exactly the document path."""
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """A window of chunk queries, each embedded alone.

        A chunk's evidence must not depend on which chunks share its window: a resumed run embeds the
        remaining chunks in other windows than an uninterrupted one. On the torch model a batch is padded
        to its longest text, and in bfloat16 that moves a vector by up to ~8e-4 with its neighbours,
        enough to reorder near-tied hits (seen on an AMX CPU). Alone costs throughput there (75 vs 155
        texts/s, bf16, 2 cores); the ONNX copy runs each text alone anyway.
        """
        return self.embed_documents(texts, batch_size=1)


_lock = threading.Lock()


@lru_cache(maxsize=4)
def _load(model_path: str, batch_size: int, precision: str, home: str) -> Embedder:
    return Embedder(Path(model_path), batch_size, precision, Path(home))


def get_embedder(settings: Settings) -> Embedder:
    """Process-wide cached embedder for the configured model."""
    with _lock:
        emb = _load(str(resolve_model_path(settings.embedding_model)), settings.embedding_batch_size,
                    resolve_precision(settings.embedding_precision), str(settings.home))
    if emb.dim != settings.embedding_dim:
        raise ValueError(
            f"model {settings.embedding_model} gives {emb.dim}-d vectors but GODOT_RAG_EMBEDDING_DIM={settings.embedding_dim}"
        )
    return emb
