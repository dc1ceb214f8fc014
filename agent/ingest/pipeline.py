"""The ingest in the designed order.

checks -> docs_chunks.jsonl -> api_mapping.jsonl -> label_prototypes.jsonl -> validation
-> upsert with embeddings (only what changed) -> retrieval check -> ingest_report.jsonl.
`run_ingest` is the one entry point; `generate_jsonl` and `load_jsonl` are its halves.
With `vectors=False` rows are stored without embeddings (seconds instead of half an hour on
two cores); `agent/ingest/vectors.py` fills them in afterwards.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from agent.apiindex import V3, V4, ApiEntry, ApiIndex, ClassEntry, rows_from_chunks, store_index
from agent.retrieve.mapping_table import clear_cache as clear_mapping_tables
from agent.embeddings import Embedder, get_embedder
from agent.ingest.check import retrieval_check
from agent.ingest.chunks import CONVERTER_VERSION, Page, page_chunks
from agent.ingest.classref import ClassRef, load_classref
from agent.ingest.minors import with_minors
from agent.ingest.corpus import Corpus, CorpusError, Issue, load_corpus
from agent.ingest.evidence import EvidenceIndex
from agent.ingest.mappings import build_mappings
from agent.ingest.prototypes import build_prototypes
from agent.ingest.store import (
    chunk_embedding_text,
    clear_vectors,
    delete_stale,
    existing_shas,
    mapping_embedding_text,
    page_states,
    prototype_embedding_text,
    record_sha,
    replace_pages,
    text_sha,
    upsert_mappings,
    upsert_prototypes,
)
from agent.ingest.symbols import SymbolIndex
from agent.ingest.tokens import TokenCounter
from agent.ingest.validate import check_evidence, check_records, read_jsonl
from agent.settings import Settings
from agent.storage import connection, migrate

CHUNKS_FILE = "docs_chunks.jsonl"
MAPPING_FILE = "api_mapping.jsonl"
PROTOTYPES_FILE = "label_prototypes.jsonl"
REPORT_FILE = "ingest_report.jsonl"
API_INDEX_FILE = "api_index.jsonl"
NORMALIZATION_FILE = "normalization_report.md"


@dataclass
class IngestSummary:
    """What one ingest run did; `errors` name the page or record and the cause."""

    pages: int = 0
    pages_3_4: int = 0
    """Pages of the Godot 3.4 class reference among `pages` (0 when it was absent)."""
    api_index_rows: int = 0
    pages_changed: int = 0
    pages_unchanged: int = 0
    pages_removed: int = 0
    chunks: int = 0
    chunks_embedded: int = 0
    mappings: int = 0
    mappings_embedded: int = 0
    prototypes: int = 0
    prototypes_embedded: int = 0
    rejected_records: int = 0
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    retrieval_checks: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    embed_seconds: float = 0.0
    embedding_precision: str = ""
    """float32 or bfloat16 (matmuls) for what this run embedded; empty when nothing was embedded."""
    timings: dict[str, float] = field(default_factory=dict)
    out_dir: str = ""

    @property
    def retrieval_ok(self) -> bool:
        return bool(self.retrieval_checks) and all(c["ok"] for c in self.retrieval_checks)

    @property
    def embeddings(self) -> int:
        return self.chunks_embedded + self.mappings_embedded + self.prototypes_embedded

    def as_json(self) -> dict:
        return {**asdict(self), "retrieval_ok": self.retrieval_ok, "embeddings": self.embeddings}


@dataclass
class Generated:
    """JSONL artifacts of one run plus the bookkeeping the loader needs."""

    out_dir: Path
    corpus: Corpus
    issues: list[Issue]
    reused_pages: int = 0
    embedder: Embedder | None = None
    classref: ClassRef | None = None


# ---------------------------------------------------------------- helpers


def _progress(iterable, *, enabled: bool, desc: str, total: int | None = None):
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, desc=desc, total=total, file=sys.stderr, unit="it", leave=False)


def _write_jsonl(path: Path, records) -> int:
    tmp = path.with_suffix(path.suffix + ".tmp")
    n = 0
    with tmp.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    os.replace(tmp, path)
    return n


def _class_names(corpus: Corpus, renames_file: Path | None) -> set[str]:
    """Godot 4 class titles from the class pages, plus Godot 3 class names from the rename tables."""
    names: set[str] = set()
    for p in corpus.pages:
        if p.doc_type == "class_reference":
            m = re.match(r"#\s+(\S+)", p.text.lstrip())
            if m:
                names.add(m.group(1))
    if renames_file and Path(renames_file).is_file():
        data = json.loads(Path(renames_file).read_text(encoding="utf-8"))
        for table in ("class_renames", "builtin_types_renames"):
            for row in data.get("tables", {}).get(table, []):
                names.update(x for x in (row.get("old"), row.get("new")) if x and re.fullmatch(r"[A-Z]\w+", x))
    names |= {"File", "Directory", "Tween", "OS", "Input", "Vector2", "Vector3", "Color", "String", "Array", "Dictionary"}
    return names


def _previous_chunks(path: Path) -> dict[str, list[dict]]:
    """Last run's chunks by page, so unchanged pages are not re-chunked."""
    out: dict[str, list[dict]] = defaultdict(list)
    if not path.is_file():
        return out
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a damaged cache line only means that page is re-chunked
            if isinstance(rec, dict) and "source_file" in rec:
                out[rec["source_file"]].append(rec)
    return out


def _normalization_report(path: Path, corpus: Corpus, per_type: dict[str, int], chunks_per_type: dict[str, int]) -> None:
    lines = [
        "# Markdown normalization report",
        "",
        f"Corpus: `{corpus.root}` (doc_version `{corpus.doc_version}`, Godot {corpus.godot_version}).",
        f"Pages loaded: {len(corpus.pages)}; pages with errors: {len(corpus.failed_files)}.",
        "",
        "Normalization: user-notes section and Sphinx footer dropped; paragraphs unwrapped; bullets kept one item per",
        "line; tables kept row by row with their header repeated in every window; 4-space code regions split into",
        "snippets with a guessed language; class pages split per API member.",
        "",
        "| doc_type | pages | chunks |",
        "| --- | --- | --- |",
    ]
    for t in sorted(per_type):
        lines.append(f"| {t} | {per_type[t]} | {chunks_per_type.get(t, 0)} |")
    issues = [i for i in corpus.issues if i.level in ("error", "warning")]
    if issues:
        lines += ["", "## Problems", ""] + [f"- {i.level}: {i}" for i in issues]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- stage 1-4: JSONL


def generate_jsonl(
    settings: Settings,
    *,
    docs_dir: Path,
    renames_file: Path | None,
    out_dir: Path,
    force: bool = False,
    progress: bool = True,
    embedder: Embedder | None = None,
    classref_dir: Path | None = None,
) -> Generated:
    """Check the corpus and write docs_chunks, api_mapping, label_prototypes and api_index JSONL files.

    `classref_dir` (the Godot 3.4 XML reference) adds 3.4 chunks, the 3.4 half of the API index
    and the derived mapping candidates; without it the knowledge base is 4.x only, as before.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    corpus = load_corpus(docs_dir, force=force)
    issues = list(corpus.issues)
    classref: ClassRef | None = None
    if classref_dir is not None:
        try:
            classref = load_classref(Path(classref_dir))
        except CorpusError as exc:
            issues.append(Issue("warning", "classref", "3.4 class reference skipped", detail=str(exc)))
        else:
            issues.extend(classref.issues)
    names = _class_names(corpus, renames_file) | ({c.name for c in classref.classes} if classref else set())
    symbols = SymbolIndex(names)
    previous = _previous_chunks(out_dir / CHUNKS_FILE)
    loaded: list[Embedder] = []

    def load_model() -> Embedder:  # only if some page must actually be tokenized
        loaded.append(embedder or get_embedder(settings))
        return loaded[-1]

    counter = TokenCounter(load_model)
    all_chunks: list[dict] = []
    per_type: dict[str, int] = defaultdict(int)
    chunks_per_type: dict[str, int] = defaultdict(int)
    reused = 0
    sources: list[tuple[Page, str, str]] = [(p, corpus.doc_version, corpus.godot_version) for p in corpus.pages]
    if classref is not None:
        sources += [(p, classref.doc_version, classref.godot_version) for p in classref.pages]
    for page, doc_version, godot_version in _progress(sources, enabled=progress, desc="chunking pages"):
        per_type[page.doc_type if doc_version != V3 else f"{page.doc_type} ({V3})"] += 1
        cached = previous.get(page.source_file)
        if cached and all(
            c.get("source_sha256") == page.sha256
            and c.get("metadata", {}).get("converter_version") == CONVERTER_VERSION
            and c.get("source_url") == page.url
            for c in cached
        ):
            recs = cached
            reused += 1
        else:
            recs = page_chunks(
                page,
                symbols=symbols,
                count_tokens=counter,
                max_tokens=None,
                doc_version=doc_version,
                godot_version=godot_version,
            )
        if not recs:
            issues.append(Issue("warning", "chunk", "page produced no chunks", page=page.source_file))
        chunks_per_type[page.doc_type if doc_version != V3 else f"{page.doc_type} ({V3})"] += len(recs)
        all_chunks.extend(recs)
    _write_jsonl(out_dir / CHUNKS_FILE, all_chunks)
    entries, classes = build_api_index(all_chunks)
    _write_jsonl(out_dir / API_INDEX_FILE, [*({"entry": e.as_row()} for e in entries),
                                            *({"class": c.__dict__} for c in classes)])
    api = ApiIndex(entries, classes) if classref is not None else None
    mappings = build_mappings(all_chunks, renames_file, CONVERTER_VERSION, issues, api_index=api)
    _write_jsonl(out_dir / MAPPING_FILE, mappings)
    prototypes = build_prototypes(
        EvidenceIndex(all_chunks), {m["mapping_id"] for m in mappings}, CONVERTER_VERSION, issues
    )
    _write_jsonl(out_dir / PROTOTYPES_FILE, prototypes)
    _normalization_report(out_dir / NORMALIZATION_FILE, corpus, per_type, chunks_per_type)
    return Generated(
        out_dir=out_dir, corpus=corpus, issues=issues, reused_pages=reused, embedder=embedder or (loaded[0] if loaded else None),
        classref=classref,
    )


def build_api_index(chunks: list[dict]) -> tuple[list[ApiEntry], list[ClassEntry]]:
    """Definitions of both versions, read off the class-reference chunks of this run (and the 3.x minors' data)."""
    v3 = [c for c in chunks if c.get("doc_version") == V3]
    v4 = [c for c in chunks if c.get("doc_version") != V3]
    e3, c3 = rows_from_chunks(v3, V3)
    e4, c4 = rows_from_chunks(v4, V4)
    return with_minors(e3 + e4, c3 + c4)  # the 3.x side also holds what 3.5 and 3.6 added (agent.ingest.minors)


def _read_api_index(path: Path) -> tuple[list[ApiEntry], list[ClassEntry]] | None:
    if not path.is_file():
        return None
    entries: list[ApiEntry] = []
    classes: list[ClassEntry] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if "entry" in rec:
                entries.append(ApiEntry(**rec["entry"]))
            elif "class" in rec:
                classes.append(ClassEntry(**rec["class"]))
    return entries, classes


# ---------------------------------------------------------------- stage 5-7: validate, load, check


class _LazyEmbedder:
    """Loads the model on first use, so a run with nothing to embed never pays for it."""

    def __init__(self, settings: Settings, embedder: Embedder | None):
        self._settings, self._embedder = settings, embedder

    def get(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder(self._settings)
        return self._embedder


def _embed(lazy: _LazyEmbedder, texts: list[str], *, progress: bool, desc: str) -> np.ndarray:
    """Embed each distinct text once, in length order (the least padding in a torch batch), and return
    vectors in the input order. About 3% of the docs chunks repeat another's text."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    embedder = lazy.get()
    row = {t: i for i, t in enumerate(dict.fromkeys(texts))}
    distinct = sorted(row, key=len)
    vectors = np.zeros((len(row), embedder.dim), dtype=np.float32)
    step = 1024
    steps = range(0, len(distinct), step)
    for i in _progress(steps, enabled=progress, desc=desc, total=len(steps)):
        batch = distinct[i : i + step]
        vectors[[row[t] for t in batch]] = embedder.embed_documents(batch)
    return vectors[[row[t] for t in texts]]


def load_jsonl(
    settings: Settings,
    out_dir: Path,
    *,
    summary: IngestSummary | None = None,
    issues: list[Issue] | None = None,
    keep_files: set[str] | None = None,
    progress: bool = True,
    embedder: Embedder | None = None,
    vectors: bool = True,
) -> IngestSummary:
    """Validate the three JSONL files, upsert what passes (embedding only what changed), run the check.

    `keep_files` are pages that failed to load this time: their old chunks are kept, not deleted.
    `vectors=False` stores changed rows with a NULL embedding, for the fill to embed later.
    """
    summary = summary or IngestSummary()
    issues = issues if issues is not None else []
    lazy = _LazyEmbedder(settings, embedder)
    t0 = time.perf_counter()
    chunks = check_records("docs_chunks", read_jsonl(out_dir / CHUNKS_FILE, "docs_chunks", issues), issues)
    raw_mappings = read_jsonl(out_dir / MAPPING_FILE, "api_mapping", issues)
    raw_protos = read_jsonl(out_dir / PROTOTYPES_FILE, "label_prototypes", issues)
    # rows that exist in the files but fail validation keep their previous DB version
    generated = {
        "api_mapping": [str(r.get("mapping_id")) for r in raw_mappings],
        "label_prototypes": [str(r.get("prototype_id")) for r in raw_protos],
    }
    mappings = check_records("api_mapping", raw_mappings, issues)
    protos = check_records("label_prototypes", raw_protos, issues)
    chunk_ids = {c["chunk_id"] for c in chunks}
    mappings = check_evidence("api_mapping", mappings, chunk_ids, set(), issues)
    mapping_ids = {m["mapping_id"] for m in mappings}
    protos = check_evidence("label_prototypes", protos, chunk_ids, mapping_ids, issues)
    summary.timings["validate"] = time.perf_counter() - t0
    for rec in (*chunks, *mappings, *protos):
        rec.pop("_line", None)

    with connection(settings) as conn:
        migrate(conn, settings)
        # docs_chunks: replace changed pages only
        t1 = time.perf_counter()
        states = page_states(conn)
        by_page: dict[str, list[dict]] = defaultdict(list)
        for c in chunks:
            by_page[c["source_file"]].append(c)
        changed: dict[str, tuple[str, str, str]] = {}
        for file, recs in by_page.items():
            sha = recs[0]["source_sha256"]
            conv = recs[0].get("metadata", {}).get("converter_version", CONVERTER_VERSION)
            st = states.get(file)
            if st and st.sha256 == sha and st.converter_version == conv and st.chunk_count == len(recs):
                continue
            changed[file] = (recs[0]["source_url"], sha, conv)
        removed = sorted(set(states) - set(by_page) - (keep_files or set()))
        new_records = [c for f in changed for c in by_page[f]]
        te = time.perf_counter()
        chunk_vectors = (
            _embed(lazy, [chunk_embedding_text(c) for c in new_records], progress=progress, desc="embedding chunks")
            if vectors else None
        )
        summary.embed_seconds += time.perf_counter() - te
        if changed or removed:
            replace_pages(conn, new_records, chunk_vectors, pages=changed, removed=removed,
                          converter_version=CONVERTER_VERSION, dim=settings.embedding_dim)
        summary.pages = len(by_page)
        summary.pages_changed = len(changed)
        summary.pages_unchanged = len(by_page) - len(changed)
        summary.pages_removed = len(removed)
        summary.chunks = len(chunks)
        summary.chunks_embedded = len(new_records) if vectors else 0
        summary.timings["docs_chunks"] = time.perf_counter() - t1

        # api_mapping and label_prototypes: upsert records whose content changed
        t2 = time.perf_counter()
        summary.mappings = len(mappings)
        summary.mappings_embedded = _upsert_keyed(
            conn, lazy, "api_mapping", "mapping_id", mappings, mapping_embedding_text, upsert_mappings, progress, summary,
            generated["api_mapping"], vectors,
        )
        summary.prototypes = len(protos)
        summary.prototypes_embedded = _upsert_keyed(
            conn, lazy, "label_prototypes", "prototype_id", protos, prototype_embedding_text, upsert_prototypes,
            progress, summary, generated["label_prototypes"], vectors,
        )
        summary.timings["mappings_prototypes"] = time.perf_counter() - t2
        clear_mapping_tables()  # the judge's exact rows are read again from the new api_mapping
        index_rows = _read_api_index(out_dir / API_INDEX_FILE)
        if index_rows is not None:
            ids = {c["chunk_id"] for c in chunks} | {""}  # "": rows of data with no docs chunk (the 3.x minors)
            entries = [e for e in index_rows[0] if e.chunk_id in ids]
            store_index(conn, entries, [c for c in index_rows[1] if c.chunk_id in ids])
            summary.api_index_rows = len(entries)
            summary.pages_3_4 = len({c["source_file"] for c in chunks if c.get("doc_version") == V3})
        if new_records and vectors:
            conn.execute("ANALYZE godot_rag.docs_chunks")
        t3 = time.perf_counter()
        summary.retrieval_checks = [r.as_json() for r in retrieval_check(conn)]
        summary.timings["retrieval_check"] = time.perf_counter() - t3
    for r in summary.retrieval_checks:
        if not r["ok"]:
            issues.append(Issue("warning", "retrieval_check", "representative question lacks an exact or docs hit",
                                record_id=r["question"], detail=json.dumps(r)))
    if summary.embeddings and lazy._embedder is not None:
        summary.embedding_precision = lazy._embedder.precision
    summary.rejected_records = sum(1 for i in issues if i.stage == "validate")
    summary.errors = [str(i) for i in issues if i.level == "error"]
    summary.warnings = [str(i) for i in issues if i.level == "warning"]
    return summary


def _upsert_keyed(conn, lazy, table, id_col, records, text_of, upsert, progress, summary, keep_ids, vectors=True) -> int:
    """Upsert only changed records; embed only those whose embedding text changed or has no vector.

    Without `vectors`, a row whose text changed loses its old vector (the upsert would keep it), so
    the fill embeds it again; returns 0 (nothing embedded now).
    """
    known = existing_shas(conn, table, id_col)
    todo, need_vec = [], []
    for r in records:
        r["_embed_sha"] = text_sha(text_of(r))
        old = known.get(r[id_col])
        if old is None or not old.has_vector or old.embed_sha != r["_embed_sha"]:
            need_vec.append(r)
            todo.append(r)
        elif old.record_sha != record_sha(r):
            todo.append(r)
    if not vectors:
        clear_vectors(conn, table, id_col, [r[id_col] for r in need_vec])
        upsert(conn, todo, {})
        delete_stale(conn, table, id_col, keep_ids)
        return 0
    te = time.perf_counter()
    vecs = _embed(lazy, [text_of(r) for r in need_vec], progress=progress, desc=f"embedding {table}")
    summary.embed_seconds += time.perf_counter() - te
    upsert(conn, todo, {r[id_col]: v for r, v in zip(need_vec, vecs, strict=True)})
    delete_stale(conn, table, id_col, keep_ids)
    return len(need_vec)


# ---------------------------------------------------------------- the entry point


def run_ingest(
    settings: Settings,
    *,
    docs_dir: Path,
    renames_file: Path | None,
    out_dir: Path | None = None,
    force: bool = False,
    progress: bool = True,
    classref_dir: Path | None = None,
    vectors: bool = True,
) -> IngestSummary:
    """Run the whole ingest; safe to re-run (incremental, idempotent, keeps review decisions).

    `classref_dir` is the Godot 3.4 XML reference (`settings.classref3_dir` by the CLI); None skips it.
    `vectors=False` leaves the embeddings to `agent.ingest.vectors.fill_vectors`.

    Raises `CorpusError` when the corpus cannot be ingested (no manifest, incomplete crawl without force).
    """
    start = time.perf_counter()
    out_dir = Path(out_dir) if out_dir else settings.home / "kb"
    with connection(settings) as conn:
        migrate(conn, settings)
    embedder = None  # loaded lazily by the stages that need it
    t = time.perf_counter()
    gen = generate_jsonl(
        settings, docs_dir=Path(docs_dir), renames_file=renames_file, out_dir=out_dir, force=force,
        progress=progress, embedder=embedder, classref_dir=classref_dir,
    )
    embedder = gen.embedder
    summary = IngestSummary(out_dir=str(out_dir))
    summary.timings["generate"] = time.perf_counter() - t
    load_jsonl(
        settings, out_dir, summary=summary, issues=gen.issues,
        keep_files=gen.corpus.failed_files | (gen.classref.failed_files if gen.classref else set()),
        progress=progress, embedder=embedder, vectors=vectors,
    )
    summary.pages = len(gen.corpus.pages) + (len(gen.classref.pages) if gen.classref else 0)  # pages loaded, including those that yield no chunks (heading-only index pages)
    summary.seconds = time.perf_counter() - start
    report = [i.as_json() for i in gen.issues]
    report.append({"level": "info", "stage": "summary", "cause": "ingest finished", "summary": summary.as_json()})
    _write_jsonl(out_dir / REPORT_FILE, report)
    return summary
