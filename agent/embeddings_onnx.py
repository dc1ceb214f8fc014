"""The ONNX Runtime copy of the embedding model: built offline from the packaged weights, checked, cached.

The float32 path on CPUs without native bf16. The transformer is exported from the local model
directory (never downloaded) and fused with ONNX Runtime's BERT optimizer (attention, GELU, layer
norms): the same arithmetic as the torch model, about 1.7x its speed on 2 AVX2 cores, mostly because
each text runs alone (no padding) on one core, one text per core at a time. A build is kept only if
its vectors match the torch model's (cosine >= `MIN_COSINE`) on probe texts. `scripts/setup.sh`
builds it at install time (`python -m agent.embeddings_onnx`); otherwise the first embedder builds it
under a lock. A copy whose file no longer matches its manifest is rebuilt.

An int8 copy was tried and dropped: dynamic int8 MatMuls (FFN down projections kept float32) ran only
~1.15x this copy on AVX2, with vectors at cosine 0.988 to the model's, where this copy gives its own.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import math
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent.embedding_config import resolve_model_path, resolve_precision
from agent.settings import Settings

log = logging.getLogger(__name__)

RECIPE = "bert-fused-fp32-v1"
"""Changes whenever the build steps change, so old copies are rebuilt rather than reused."""
MIN_COSINE = 0.9999
MODEL_FILE = "model.onnx"
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
"""English docs and GDScript, what the index and the queries hold."""


class OnnxModelError(RuntimeError):
    """An ONNX copy of the model cannot be built or loaded."""


@dataclass(frozen=True)
class ModelLayout:
    """What the ONNX path reproduces of a sentence-transformers directory: tokenizer limit and pooling."""

    max_seq_length: int
    dim: int


def read_layout(model_path: Path) -> ModelLayout:
    """Accept only a BERT Transformer -> mean Pooling -> Normalize, what `_export` and `OnnxEncoder` implement."""
    try:
        modules = json.loads((model_path / "modules.json").read_text())
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        pooling = json.loads((model_path / modules[1]["path"] / "config.json").read_text())
        config = json.loads((model_path / "sentence_bert_config.json").read_text())
        model_type = json.loads((model_path / "config.json").read_text()).get("model_type")
    except (OSError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise OnnxModelError(f"{model_path} is not a sentence-transformers model directory: {exc}") from exc
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v]
    if kinds != ["Transformer", "Pooling", "Normalize"] or modes != ["pooling_mode_mean_tokens"]:
        raise OnnxModelError(
            f"the ONNX path supports Transformer -> mean Pooling -> Normalize models, not {kinds} with {modes}"
        )
    if model_type != "bert":  # the export feeds token_type_ids and the fusion is ONNX Runtime's BERT optimizer
        raise OnnxModelError(f"the ONNX path supports BERT models, not model_type {model_type!r}")
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
        raise OnnxModelError(f"{model_path} holds no model weights (*.safetensors or *.bin)")
    h = hashlib.sha256(f"{RECIPE}|{onnxruntime.__version__}".encode())
    for p in weights:
        h.update(p.name.encode())
        h.update(_sha256(p).encode())
    return h.hexdigest()[:16]


def onnx_dir(home: Path, model_path: Path) -> Path:
    """Where the ONNX copy of `model_path` lives under `GODOT_RAG_HOME`."""
    return home / "models" / f"{model_path.name}-onnx-{source_key(model_path)}"


def usable_cpus() -> int:
    """CPUs this process may run on: its affinity (a container's cpuset), capped by a cgroup v2 CPU quota
    (`docker --cpus=2` on a 64-core host is 2)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, math.ceil(int(quota) / int(period)))
    except (OSError, ValueError):
        pass
    return max(1, cpus)


class OnnxEncoder:
    """One ONNX Runtime session plus the tokenizer, mean pooling and L2 normalisation of the source model.

    Each text runs alone, so nothing is padded and a vector never depends on its batch-mates. The
    session is single-threaded and `threads` callers share it (its weights once in memory): on 2 AVX2
    cores, one text per core ran ~1.3x faster than each run spread over both cores, and ~1.2x faster
    than padded batches of 8.
    """

    def __init__(self, onnx_file: Path, model_path: Path, layout: ModelLayout, threads: int = 1):
        import onnxruntime as ort
        from transformers import AutoTokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors for unreadable files
            raise OnnxModelError(f"cannot load {onnx_file}: {exc}") from exc
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
        self.layout = layout
        self.threads = max(1, threads)
        self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="embed") if self.threads > 1 else None

    def _one(self, ids: list[int], types: list[int]) -> np.ndarray:
        feed = {"input_ids": np.asarray([ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
                "token_type_ids": np.asarray([types], dtype=np.int64)}
        pooled = self.session.run(None, {k: feed[k] for k in self.inputs})[0][0].mean(axis=0)
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def encode(self, texts: list[str]) -> np.ndarray:
        """float32 (n, dim), L2-normalised, like the sentence-transformers pipeline."""
        if not texts:
            return np.zeros((0, self.layout.dim), dtype=np.float32)
        enc = self.tokenizer(texts, truncation=True, max_length=self.layout.max_seq_length,
                             return_token_type_ids=True)
        ids, types = enc["input_ids"], enc["token_type_ids"]
        out = np.empty((len(texts), self.layout.dim), dtype=np.float32)
        # longest first, dealt round-robin: the threads finish at about the same time
        order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))

        def run(share: list[int]) -> None:
            for i in share:
                out[i] = self._one(ids[i], types[i])

        if self._pool is None or len(texts) == 1:
            run(order)
        else:  # every share finishes before a failure is raised: none outlives the caller's lock
            futures = [self._pool.submit(run, order[k :: self.threads]) for k in range(self.threads)]
            wait(futures)
            for future in futures:
                future.result()
        return out


def _export(model_path: Path, work: Path) -> Path:
    """Trace the transformer with eager attention (the pattern ONNX Runtime's BERT fusion recognises)."""
    import torch
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

    raw, out = work / "raw.onnx", work / MODEL_FILE
    axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUT_NAMES, "last_hidden_state")}
    with torch.no_grad():
        torch.onnx.export(LastHidden(model), tuple(sample[k] for k in INPUT_NAMES), str(raw), dynamo=False,
                          input_names=list(INPUT_NAMES), output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=17)
    optimize_model(str(raw), model_type="bert", num_heads=int(config.num_attention_heads),
                   hidden_size=int(config.hidden_size), opt_level=1).save_model_to_file(str(out))
    raw.unlink()
    return out


def _float32_vectors(model_path: Path, texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(model_path), device="cpu", local_files_only=True)
    return model.encode(texts, normalize_embeddings=True, convert_to_numpy=True).astype(np.float32)


def build(model_path: Path, dest: Path) -> Path:
    """Build, check against torch float32, and move into `dest` only when it passes (never half-written)."""
    layout = read_layout(model_path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=dest.parent))
    try:
        try:
            onnx_file = _export(model_path, work)
        except Exception as exc:  # torch's exporter and ONNX Runtime's optimizer raise many kinds
            raise OnnxModelError(f"cannot export {model_path} to ONNX: {type(exc).__name__}: {exc}") from exc
        cosines = (OnnxEncoder(onnx_file, model_path, layout).encode(list(PROBE_TEXTS))
                   * _float32_vectors(model_path, list(PROBE_TEXTS))).sum(axis=1)
        if cosines.min() < MIN_COSINE:
            raise OnnxModelError(f"ONNX build of {model_path} agrees with torch only at cosine {cosines.min():.6f}")
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


def ensure_onnx_model(model_path: Path, home: Path) -> Path:
    """The checked ONNX model file for `model_path`, built once per machine under a lock."""
    dest = onnx_dir(home, model_path)
    if intact(dest):
        return dest / MODEL_FILE
    dest.parent.mkdir(parents=True, exist_ok=True)
    with (dest.parent / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if intact(dest):  # another process built it while we waited
            return dest / MODEL_FILE
        if dest.exists():
            log.warning("ONNX embedding model at %s is incomplete or corrupt; rebuilding it", dest)
        else:
            log.warning("building the ONNX embedding model once into %s (offline, under a minute)", dest)
        return build(model_path, dest)


def main(argv: list[str] | None = None) -> int:
    """Install-time step: build the ONNX copy when the configured precision runs on it (not bfloat16)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    log.setLevel(logging.INFO)
    settings = Settings.from_env()
    try:
        if resolve_precision(settings.embedding_precision) != "float32":
            print("bfloat16 runs on the torch model: no ONNX copy to build", file=sys.stderr)
            return 0
        path = ensure_onnx_model(resolve_model_path(settings.embedding_model), settings.home)
    except ValueError as exc:  # a bad setting
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OnnxModelError as exc:  # the embedder falls back the same way at run time
        print(f"warning: {exc}; it embeds with the torch model", file=sys.stderr)
        return 0
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
