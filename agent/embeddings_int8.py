"""The int8 ONNX copy of the embedding model: built offline from the packaged weights, checked, cached.

The torch bf16 speed-up needs AVX512-BF16/AMX. ONNX Runtime's dynamic int8 MatMuls run on any x86-64
CPU (AVX2 and up) and on arm64, so this copy is what makes ingest fast everywhere. It is built from the
local model directory, never downloaded: export the transformer to ONNX, fuse it with ONNX Runtime's
BERT optimizer (attention, GELU, layer norms), quantise the weight MatMuls to int8 per channel except
the feed-forward down projections, whose post-GELU inputs carry outliers that per-batch int8 cannot hold.
A build is kept only if its vectors agree with the float32 model's (cosine >= `MIN_COSINE`) on probe
texts. `scripts/setup.sh` builds it at install time (`python -m agent.embeddings_int8`); otherwise the
first embedder builds it under a lock. A copy whose file no longer matches its manifest is rebuilt.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

RECIPE = "bert-fused-s8-perchannel-ffn-down-fp32-v1"
"""Changes whenever the build steps change, so old copies are rebuilt rather than reused."""
MIN_COSINE = 0.99
MODEL_FILE = "model_int8.onnx"
MANIFEST_FILE = "manifest.json"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
PROBE_TEXTS = (
    "KinematicBody2D > Methods > move_and_slide\nVector2 move_and_slide(linear_velocity: Vector2, up_direction: Vector2)",
    "CharacterBody2D > Property Descriptions > velocity\nVector2 velocity = Vector2(0, 0)",
    "How do I wait for a timer in Godot 4? await get_tree().create_timer(1.0).timeout",
    "export var speed = 400\nonready var sprite = $Sprite\nfunc _ready():\n\tyield(get_tree(), \"idle_frame\")",
    "Node2D > Properties > position",
    "func _physics_process(delta):\n\tvelocity.y += gravity * delta\n\tmove_and_slide()",
)
"""English docs and GDScript, what the index and the queries hold. Multilingual prose and one-token texts
drift further under int8 (cosine ~0.98; see bench/ingest.py and the README)."""


class Int8ModelError(RuntimeError):
    """The int8 model cannot be built or loaded; `GODOT_RAG_EMBEDDING_PRECISION=float32` avoids it."""


@dataclass(frozen=True)
class ModelLayout:
    """What the int8 path reproduces of a sentence-transformers directory: tokenizer limit and pooling."""

    max_seq_length: int
    dim: int


def read_layout(model_path: Path) -> ModelLayout:
    """Accept only Transformer -> mean Pooling -> Normalize, the pipeline `Int8Encoder` implements."""
    try:
        modules = json.loads((model_path / "modules.json").read_text())
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        pooling = json.loads((model_path / modules[1]["path"] / "config.json").read_text())
        config = json.loads((model_path / "sentence_bert_config.json").read_text())
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise Int8ModelError(f"{model_path} is not a sentence-transformers model directory: {exc}") from exc
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
    if kinds != ["Transformer", "Pooling", "Normalize"] or modes != ["pooling_mode_mean_tokens"]:
        raise Int8ModelError(
            f"the int8 path supports Transformer -> mean Pooling -> Normalize models, not {kinds} with {modes}; "
            "set GODOT_RAG_EMBEDDING_PRECISION=float32"
        )
    return ModelLayout(max_seq_length=int(config["max_seq_length"]), dim=int(pooling["word_embedding_dimension"]))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def source_key(model_path: Path) -> str:
    """Identity of a build: the weights, the ONNX Runtime version and the recipe."""
    import onnxruntime

    weights = sorted(p for p in model_path.glob("*") if p.suffix in {".safetensors", ".bin"})
    if not weights:
        raise Int8ModelError(f"{model_path} holds no model weights (*.safetensors or *.bin)")
    h = hashlib.sha256(f"{RECIPE}|{onnxruntime.__version__}".encode())
    for p in weights:
        h.update(p.name.encode())
        h.update(_sha256(p).encode())
    return h.hexdigest()[:16]


def int8_dir(home: Path, model_path: Path) -> Path:
    """Where the int8 copy of `model_path` lives under `GODOT_RAG_HOME`."""
    return home / "models" / f"{model_path.name}-int8-{source_key(model_path)}"


class Int8Encoder:
    """ONNX Runtime session plus the tokenizer, mean pooling and L2 normalisation of the source model."""

    def __init__(self, onnx_file: Path, model_path: Path, layout: ModelLayout):
        import onnxruntime as ort
        from transformers import AutoTokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self.session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors for unreadable files
            raise Int8ModelError(f"cannot load {onnx_file}: {exc}") from exc
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
        self.layout = layout

    def encode(self, texts: list[str]) -> np.ndarray:
        """One batch: float32 (n, dim), L2-normalised, like the sentence-transformers pipeline."""
        enc = self.tokenizer(texts, padding=True, truncation=True, max_length=self.layout.max_seq_length,
                             return_tensors="np")
        hidden = self.session.run(None, {k: enc[k].astype(np.int64) for k in self.inputs})[0]
        mask = enc["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _export(model_path: Path, work: Path, layout: ModelLayout) -> Path:
    """Trace the transformer with eager attention (the pattern ONNX Runtime's BERT fusion recognises)."""
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    config = AutoConfig.from_pretrained(str(model_path), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_path), attn_implementation="eager", local_files_only=True).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
    sample = tokenizer(list(PROBE_TEXTS[:2]), padding=True, return_tensors="pt")

    class LastHidden(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    raw, fused, out = work / "raw.onnx", work / "fused.onnx", work / MODEL_FILE
    axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUT_NAMES, "last_hidden_state")}
    with torch.no_grad():
        torch.onnx.export(LastHidden(model), tuple(sample[k] for k in INPUT_NAMES), str(raw), dynamo=False,
                          input_names=list(INPUT_NAMES), output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=17)
    optimize_model(str(raw), model_type="bert", num_heads=int(config.num_attention_heads),
                   hidden_size=int(config.hidden_size), opt_level=1).save_model_to_file(str(fused))
    # int8 weights per output channel, activations quantised per batch at run time. Measured on 384 corpus
    # chunks (worst cosine to float32): per-tensor 0.90, per-channel 0.987, per-channel with the FFN
    # down projections left in float32 0.993. DefaultTensorType 1 = float, for the fused ops' outputs.
    graph = onnx.load(str(fused), load_external_data=False).graph
    down_shape = [int(config.intermediate_size), int(config.hidden_size)]
    down_weights = {t.name for t in graph.initializer if list(t.dims) == down_shape}
    ffn_down = [n.name for n in graph.node if n.op_type == "MatMul" and n.input[1] in down_weights]
    if not ffn_down:
        raise Int8ModelError(f"no feed-forward down projection found in the ONNX graph of {model_path}")
    quantize_dynamic(str(fused), str(out), weight_type=QuantType.QInt8, per_channel=True, nodes_to_exclude=ffn_down,
                     extra_options={"MatMulConstBOnly": True, "DefaultTensorType": 1})
    return out


def _float32_vectors(model_path: Path, texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True)
    return model.encode(texts, normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)


def build(model_path: Path, dest: Path) -> Path:
    """Build, check against float32, and move into `dest` only when it passes (never half-written)."""
    layout = read_layout(model_path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=dest.parent))
    try:
        onnx_file = _export(model_path, work, layout)
        cosines = (Int8Encoder(onnx_file, model_path, layout).encode(list(PROBE_TEXTS))
                   * _float32_vectors(model_path, list(PROBE_TEXTS))).sum(axis=1)
        if cosines.min() < MIN_COSINE:
            raise Int8ModelError(f"int8 build of {model_path} agrees with float32 only at cosine {cosines.min():.4f}")
        for name in ("raw.onnx", "fused.onnx"):
            (work / name).unlink(missing_ok=True)
        manifest = {"recipe": RECIPE, "source": str(model_path), "sha256": _sha256(onnx_file),
                    "probe_min_cosine": round(float(cosines.min()), 6)}
        (work / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1))
        if dest.exists():
            shutil.rmtree(dest)
        work.rename(dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest / MODEL_FILE


def intact(dest: Path) -> bool:
    """True when the model file exists and matches the checksum its manifest recorded."""
    try:
        manifest = json.loads((dest / MANIFEST_FILE).read_text())
        return manifest.get("recipe") == RECIPE and _sha256(dest / MODEL_FILE) == manifest.get("sha256")
    except (OSError, ValueError, AttributeError):
        return False


def ensure_int8_model(model_path: Path, home: Path) -> Path:
    """The checked int8 model file for `model_path`, built once per machine under a lock."""
    dest = int8_dir(home, model_path)
    if intact(dest):
        return dest / MODEL_FILE
    dest.parent.mkdir(parents=True, exist_ok=True)
    with (dest.parent / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if intact(dest):  # another process built it while we waited
            return dest / MODEL_FILE
        if dest.exists():
            log.warning("int8 embedding model at %s is incomplete or corrupt; rebuilding it", dest)
        else:
            log.warning("building the int8 embedding model once into %s (offline, about a minute)", dest)
        return build(model_path, dest)


def main(argv: list[str] | None = None) -> int:
    """Install-time step: build the int8 model for the configured embedding model."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    log.setLevel(logging.INFO)
    from agent.embeddings import resolve_model_path
    from agent.settings import Settings

    settings = Settings.from_env()
    try:
        path = ensure_int8_model(resolve_model_path(settings.embedding_model), settings.home)
    except (Int8ModelError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
