"""Detection on code nobody here wrote: the docs' own GDScript examples, judged chunk by chunk.

- Godot 4: GDScript code blocks of the 4.4 docs pages (migration pages and the 4.7 supplement left
  out). Every one is Godot 4 code: the share judged godot3 is the false-alarm rate (target <= 0.5%),
  and every hit is listed.
- Godot 3: the `[codeblock]` examples of the 3.4 class reference. The share judged godot3 is
  reported; many are version-neutral (`print(a + b)`), so 100% is not the goal.

Each snippet is chunked by the real parser, retrieved by the product's retriever and judged by
the evidence judge with the validator, twice in the same run: with the project context and API
index (this change) and without it (no receivers, no index: the judge's previous decision path).
A snippet is flagged when any of its chunks is judged godot3; `godot4_share` counts the snippets with
a godot4 chunk and none judged godot3 (what the Godot 4 cues recognise).

`--kb DIR` loads a generated knowledge base (`godot-rag ingest --out DIR` writes it; the JSONL of
an interrupted ingest is enough) into a database of its own (`<name>_detect`): the API index,
every api_mapping row and the label prototypes, but no docs chunks and no embeddings, so the
bench needs minutes, not the full embedding run. Verdicts rest on mappings, the index and the
syntax rules; docs chunks only add citations. Without `--kb` it uses the database as it is.

    .venv/bin/python bench/detect.py [--kb DIR] [--limit N] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.ingest.classref import codeblocks  # noqa: E402
from agent.ingest.doctypes import classify  # noqa: E402
from agent.ingest.markdown import parse_blocks  # noqa: E402
from agent.judge.base import JudgeInput  # noqa: E402
from agent.judge.evidence import EvidenceJudge  # noqa: E402
from agent.judge.project import api_index_for, build_project_context  # noqa: E402
from agent.judge.validate import judge_and_validate  # noqa: E402
from agent.migrate.script import script_chunks  # noqa: E402
from agent.retrieve.query import build_retriever_query, split_trace  # noqa: E402
from agent.settings import Settings, default_classref3_dir, default_docs_dir  # noqa: E402

PROMPT = "Is this Godot 4 code?"


@dataclass
class Snippet:
    origin: str
    code: str
    chunks: list = field(default_factory=list)


def godot4_snippets(docs: Path) -> list[Snippet]:
    manifest = json.loads((docs / "manifest.json").read_text())
    out = []
    for row in manifest:
        if row.get("note") or classify(row["url"], row["file"]) == "migration":
            continue
        text = (docs / row["file"]).read_text(encoding="utf-8")
        for i, b in enumerate(x for x in parse_blocks(text) if x.kind == "code"):
            for j, c in enumerate(b.code):
                if c.language == "gdscript" and c.code.strip():
                    out.append(Snippet(f"{row['file']}#{i}.{j}", c.code))
    return out


def godot3_snippets(ref: Path) -> list[Snippet]:
    out = []
    for path in sorted((ref / "classes").glob("*.xml")):
        for i, code in enumerate(codeblocks(path.read_text(encoding="utf-8"))):
            if code.strip():
                out.append(Snippet(f"{path.name}#{i}", code))
    return out


def retrieve_all(retriever, queries: list, *, no_vectors: bool) -> list:
    """One evidence bundle per query. A --kb database holds no embeddings: there the vector leg gets one
    fixed unit vector and finds nothing whatever the query."""
    if not no_vectors:
        return retriever.retrieve_many(queries) if queries else []
    import numpy as np

    zero = np.zeros(retriever.settings.embedding_dim, dtype=np.float32)
    zero[0] = 1.0
    return [retriever.retrieve(q, vector=zero) for q in queries]


async def run(snippets: list[Snippet], retriever, api, *, no_vectors: bool = False) -> dict:
    judge = EvidenceJudge()
    res = {"new": {"flagged": [], "godot4": 0, "judge_s": 0.0}, "old": {"flagged": [], "godot4": 0, "judge_s": 0.0},
           "retrieve_s": 0.0,
           "chunks": 0}
    for s in snippets:
        s.chunks = script_chunks("snippet.gd", s.code)
        t0 = time.perf_counter()
        queries = [build_retriever_query(PROMPT, c) for c in s.chunks]
        bundles = retrieve_all(retriever, queries, no_vectors=no_vectors)
        res["retrieve_s"] += time.perf_counter() - t0
        res["chunks"] += len(s.chunks)
        for mode, project in (("new", build_project_context({"snippet.gd": s.code}, api)), ("old", None)):
            t1 = time.perf_counter()
            hits, godot4 = [], False
            for c, b in zip(s.chunks, bundles):
                inp = JudgeInput(prompt=PROMPT, trace=split_trace(c, "bench"), chunk=c, evidence=b, project=project)
                out = await judge_and_validate(judge, inp, fallback=judge)
                if out.judgment.version_signal == "godot3":
                    hits.append(out.judgment.rationale[:300])
                godot4 = godot4 or out.judgment.version_signal == "godot4"
            res[mode]["judge_s"] += time.perf_counter() - t1
            res[mode]["godot4"] += bool(godot4 and not hits)
            if hits:
                res[mode]["flagged"].append({"origin": s.origin, "why": hits, "code": s.code[:400]})
    return res


def _report(name: str, snippets: list[Snippet], res: dict) -> dict:
    n = len(snippets)
    row = {"set": name, "snippets": n, "chunks": res["chunks"], "retrieve_s": round(res["retrieve_s"], 2)}
    for mode in ("new", "old"):
        k = len(res[mode]["flagged"])
        g4 = res[mode]["godot4"]
        row[mode] = {"flagged": k, "share": round(k / n, 4) if n else 0.0,
                     "godot4_only": g4, "godot4_share": round(g4 / n, 4) if n else 0.0,
                     "judge_chunks_per_s": round(res["chunks"] / res[mode]["judge_s"], 1) if res[mode]["judge_s"] else None}
    return row


class _NoEmbedder:
    """Stands in for the model where no vector is ever computed (a --kb database has none)."""

    def embed_query(self, text: str):  # pragma: no cover - never reached: vectors are passed in
        raise RuntimeError("no embeddings in a --kb bench database")


def load_kb_without_embeddings(settings: Settings, kb: Path, database: str | None = None, *,
                               docs: bool = True) -> Settings:
    """A fresh database (`database`, by default `<name>_detect`) with the index, mappings and prototypes
    of `kb`, and (`docs`) the docs of the product's database when it has them (bench only)."""
    from agent.apiindex import store_index
    from agent.ingest.pipeline import _read_api_index
    from agent.ingest.store import upsert_mappings, upsert_prototypes
    from agent.storage import connection, migrate

    target = settings.with_(database_name=database or f"{settings.database_name}_detect")
    with connection(settings) as conn:
        conn.autocommit = True
        conn.execute(f'DROP DATABASE IF EXISTS "{target.database_name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{target.database_name}"')
    entries, classes = _read_api_index(kb / "api_index.jsonl")
    mappings = [json.loads(line) for line in (kb / "api_mapping.jsonl").open(encoding="utf-8")]
    protos = [json.loads(line) for line in (kb / "label_prototypes.jsonl").open(encoding="utf-8")]
    with connection(target) as conn:
        migrate(conn, target)
        store_index(conn, entries, classes)
        upsert_mappings(conn, mappings, {})
        upsert_prototypes(conn, protos, {})
    if docs:
        _copy_docs(settings, target)
    return target


_DOCS_TABLES = {
    "docs_pages": "source_file, source_url, source_sha256, converter_version, chunk_count, ingested_at",
    "docs_chunks": "chunk_id, doc_version, source_url, source_file, source_sha256, doc_type, symbol, section_path,"
                   " heading, content, code_blocks, api_symbols, metadata, search_text, embedding, search_tsv",
}


def _copy_docs(source: Settings, target: Settings) -> int:
    """The docs pages and chunks of the product's own database, copied as they are (a product run cites
    them: reference pages by symbol, the docs a mapping names). Without them a finding the product would
    back with a page is downgraded here for want of evidence. The vector index is dropped: the bench reads
    no vectors. Returns the chunks copied (0 when the source database has none or cannot be read)."""
    from agent.storage import connection

    try:
        with connection(source) as src, connection(target) as dst:
            if not src.execute("SELECT to_regclass('godot_rag.docs_chunks') AS t").fetchone()["t"]:
                return 0
            dst.execute("DROP INDEX IF EXISTS godot_rag.docs_chunks_embedding_hnsw")
            for table, cols in _DOCS_TABLES.items():
                with src.cursor().copy(f"COPY (SELECT {cols} FROM godot_rag.{table}) TO STDOUT") as out, \
                        dst.cursor().copy(f"COPY godot_rag.{table} ({cols}) FROM STDIN") as into:
                    for block in out:
                        into.write(block)
            dst.commit()
            return dst.execute("SELECT count(*) AS n FROM godot_rag.docs_chunks").fetchone()["n"]
    except Exception as exc:  # a bench without the product's docs still runs, on mappings alone
        print(f"docs not copied: {exc}", file=sys.stderr)
        return 0


def versioned_index(retriever):
    """The knowledge base's API index with its 3.4 side, or None (and says why on stderr)."""
    api = api_index_for(retriever)
    if api is None or "3.4" not in api.versions():
        print("error: the knowledge base has no 3.4 API index; run `godot-rag ingest` first", file=sys.stderr)
        return None
    return api


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=0, help="snippets per set (0 = all)")
    ap.add_argument("--out", type=Path, help="write every flagged and unflagged snippet here (JSON)")
    ap.add_argument("--kb", type=Path, help="a generated KB dir (api_index/api_mapping/label_prototypes JSONL)")
    args = ap.parse_args()
    settings = Settings.from_env()
    if args.kb:
        t0 = time.perf_counter()
        settings = load_kb_without_embeddings(settings, args.kb)
        print(f"loaded {args.kb} into {settings.database_name} in {time.perf_counter() - t0:.1f}s", flush=True)
    docs, ref = settings.docs_dir or default_docs_dir(), settings.classref3_dir or default_classref3_dir()
    if docs is None or ref is None:
        print("error: needs ../shared/godot-docs and ../shared/godot-class-ref-3.4", file=sys.stderr)
        return 2
    from agent.retrieve import Retriever
    from agent.storage import make_pool

    with make_pool(settings, min_size=1, max_size=2) as pool:
        retriever = Retriever(settings, pool, embedder=_NoEmbedder() if args.kb else None)
        api = versioned_index(retriever)
        if api is None:
            return 2
        sets = {"godot4_docs_4.4": godot4_snippets(docs), "godot3_classref_3.4": godot3_snippets(ref)}
        report = {"rows": [], "detail": {}}
        for name, snippets in sets.items():
            if args.limit:
                snippets = snippets[: args.limit]
            res = asyncio.run(run(snippets, retriever, api, no_vectors=bool(args.kb)))
            row = _report(name, snippets, res)
            report["rows"].append(row)
            flagged = {f["origin"] for f in res["new"]["flagged"]}
            report["detail"][name] = {"flagged": res["new"]["flagged"], "old_flagged": res["old"]["flagged"],
                                      "unflagged": [{"origin": s.origin, "code": s.code[:400]} for s in snippets
                                                    if s.origin not in flagged]}
            print(json.dumps(row), flush=True)
    for f in report["detail"]["godot4_docs_4.4"]["flagged"]:
        print(f"godot4 hit: {f['origin']}: {f['why'][0][:200]}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
