"""Typed records that cross module boundaries, named as in the design.

Intake produces an `AnalysisRequest` and an `Expansion`; the parsers turn each included
`SourceFile` into `Chunk`s; the orchestrator splits each chunk into a `ChunkTrace` (where it
came from: trace only) and a `RetrieverQuery` (what is searched); the retriever answers with
`RetrievalHit`s bundled in an `EvidenceBundle`; a judge returns a `Judgment`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SourceKind = Literal["gdscript", "scene", "resource", "project_config", "markdown", "import", "unknown"]
SourceOrigin = Literal["pasted_snippet", "uploaded_file", "uploaded_zip", "local_directory", "github"]
ChunkKind = Literal[
    # AST chunks (.gd)
    "class_extends", "class_name", "tool", "signal", "declaration_group", "enum", "function",
    "inner_class", "unparsed",
    # direct chunks (project.godot, .tscn, .tres, .import, .cfg, ...)
    "config_preamble", "config_section", "scene_header", "resource_header", "ext_resource",
    "sub_resource", "node", "connection", "resource_block", "import_section", "text_block",
]
VersionSignal = Literal["godot3", "godot4", "neutral"]
ProjectVerdict = Literal["godot3", "godot4", "mixed", "ambiguous"]

LABELS: tuple[str, ...] = (
    "godot4_valid_api",
    "godot3_api_in_godot4",
    "deprecated_or_removed_api",
    "migration_required",
    "ambiguous_version_signal",
    "non_godot_noise",
    "unsafe_or_obfuscated_code",
)
Label = Literal[
    "godot4_valid_api", "godot3_api_in_godot4", "deprecated_or_removed_api", "migration_required",
    "ambiguous_version_signal", "non_godot_noise", "unsafe_or_obfuscated_code",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class AnalysisRequest(_Model):
    """analysis_request: what the user asked about. The prompt never reaches a parser."""

    prompt: str = ""
    source: str = Field(description="pasted text, a path, a zip path or a GitHub URL")
    source_kind: SourceKind = "unknown"
    project_id: str
    source_file: str = Field(description="pasted://snippet-<id>.gd, a file name, a zip name or the URL")
    source_sha256: str
    source_origin: SourceOrigin


class SourceFile(_Model):
    """One file of the expanded project, with the include/exclude decision and its reason."""

    path: str = Field(description="relative POSIX path inside the project")
    kind: SourceKind
    included: bool
    reason: str = Field(description="why included (which chunker) or excluded (docs, binary, cache, size, encoding)")
    size: int
    sha256: str | None = None
    text: str | None = Field(default=None, description="decoded text (BOM stripped, newlines kept); None if excluded")


class Expansion(_Model):
    """The project as `# <path>` + content blocks in path order, with an expanded-line map."""

    files: list[SourceFile]
    expanded_text: str
    line_map: list[tuple[str, int] | None] = Field(
        description="expanded line i (0-based) -> (file path, 1-based file line); None for `# path` headers"
    )

    @property
    def included(self) -> list[SourceFile]:
        return [f for f in self.files if f.included]

    def texts(self) -> dict[str, str]:
        """The included files' texts by path (what a project context or a migration reads)."""
        return {f.path: f.text for f in self.files if f.included and f.text is not None}

    @property
    def excluded(self) -> list[SourceFile]:
        return [f for f in self.files if not f.included]


class Span(_Model):
    """1-based inclusive lines of the file itself, plus byte offsets [start_byte, end_byte)."""

    start_line: int
    end_line: int
    start_byte: int
    end_byte: int


class Chunk(_Model):
    """One piece of a file, cut by the AST chunker or a direct chunker."""

    chunk_id: str
    chunk_order: int = Field(description="0-based, strictly increasing across the whole project")
    source_file: str
    source_sha256: str = Field(description="sha256 of the whole source file")
    chunk_kind: ChunkKind
    node_kind: str = Field(description="tree-sitter node type(s) or the direct block type")
    name: str | None = None
    span: Span
    code_text: str = Field(description="the original lines, comments kept")
    sha256: str = Field(description="sha256 of code_text")
    symbol_candidates: list[str] = Field(default_factory=list)
    api_call_candidates: list[str] = Field(default_factory=list)
    reference_candidates: list[str] = Field(default_factory=list)
    surrounding_context: str = ""
    parse_status: Literal["ok", "partial", "error", "direct"] = "ok"
    extra: dict[str, Any] = Field(default_factory=dict, description="chunker-specific facts (AST flags, config keys)")


class ChunkTrace(_Model):
    """Where a chunk came from. Trace only: none of it is ever searched."""

    project_id: str
    source_file: str
    source_sha256: str
    chunk_id: str
    chunk_order: int
    chunk_kind: str
    start_line: int
    end_line: int


class RetrieverQuery(_Model):
    """What is searched: chunk text and cues from it and from the prompt, never paths or ids."""

    query_text: str
    query_terms: list[str]
    raw_chunk_text: str
    symbol_candidates: list[str] = Field(default_factory=list)
    api_call_candidates: list[str] = Field(default_factory=list)
    reference_candidates: list[str] = Field(default_factory=list)
    prompt_terms: list[str] = Field(default_factory=list)
    task_type: str = "version_check"
    gdscript: bool = True
    """Whether `raw_chunk_text` is GDScript, whose bare names are looked up, or a scene/resource/config
    section, whose `key=value` lines are not code."""
    receiver_classes: list[str] = Field(default_factory=list)
    """Classes the script declares the chunk's receivers with (`var client: WebSocketClient` above a
    `client.poll()`): looked up exactly, so a class Godot 4 removed is found where only its object is used."""
    receiver_members: list[str] = Field(default_factory=list)
    """`Class.member` for the chunk's uses on receivers it or its script declares with a class
    (`var items = []` above `items.sort_custom(...)`): both versions' pages of exactly those members."""


class RetrievalHit(_Model):
    """One candidate from any of the three tables, same shape for all."""

    table: Literal["docs_chunks", "api_mapping", "label_prototypes"]
    record_id: str
    title: str
    content: str
    score: float
    metadata: dict[str, Any] = Field(default_factory=dict)
    match: list[str] = Field(default_factory=list, description="which searches found it: exact, keyword, trigram, vector")


class EvidenceBundle(_Model):
    """The retriever's answer for one chunk."""

    query_id: str
    task_type: str
    ast_summary: dict[str, Any] = Field(default_factory=dict)
    doc_evidence: list[RetrievalHit] = Field(default_factory=list)
    api_mapping_evidence: list[RetrievalHit] = Field(default_factory=list)
    label_evidence: list[RetrievalHit] = Field(default_factory=list)
    retrieval_scores: dict[str, int] = Field(
        default_factory=lambda: {"exact_api_hits": 0, "keyword_hits": 0, "vector_hits": 0}
    )

    def all_hits(self) -> list[RetrievalHit]:
        return [*self.api_mapping_evidence, *self.doc_evidence, *self.label_evidence]

    def ids(self) -> set[str]:
        return {h.record_id for h in self.all_hits()}


class SuggestedChange(_Model):
    """One migration item: old -> new, with the docs page that backs it."""

    old: str
    new: str | None
    change_type: str
    evidence_id: str
    docs_url: str | None = None
    note: str = ""
    old_docs_url: str | None = None
    """The Godot 3.4 reference page (with member anchor) of what the code uses, when known."""


class Judgment(_Model):
    """A judge's decision on one chunk, before and after validation."""

    version_signal: VersionSignal
    label: Label
    migration_required: bool
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str
    evidence_ids: list[str] = Field(default_factory=list)
    suggested_changes: list[SuggestedChange] = Field(default_factory=list)
    suggested_code: str | None = None
    strength: Literal["decisive", "strong", "weak"] | None = None
    """How much the signal weighs in its file's verdict (`agent.judge.strength`), set once the judgment is
    validated: `decisive` where the other version cannot even load the code (GDScript 1 or 2 grammar, the
    `extends` class), `strong` for an API use on a resolved receiver, `weak` for a hint; None when neutral."""
