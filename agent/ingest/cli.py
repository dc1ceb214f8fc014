"""`godot-rag ingest` and `godot-rag mapping list|approve|reject`."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from pathlib import Path

from agent.settings import PROJECT_ROOT, Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("ingest", help="build the knowledge base from the crawled Godot docs")
    p.add_argument("--docs", type=Path, help="docs corpus dir (manifest.json + pages/); default ../shared/godot-docs")
    p.add_argument("--renames", type=Path, help="renames_3_to_4.json; default ../shared/godot-data/renames_3_to_4.json")
    p.add_argument("--classref", type=Path,
                   help="Godot 3.4 class reference (classes/*.xml); default ../shared/godot-class-ref-3.4")
    p.add_argument("--out", type=Path, help="where the JSONL artifacts go; default $GODOT_RAG_HOME/kb")
    p.add_argument("--force", action="store_true", help="ingest even if the crawl reports failed or missing pages")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    stage = p.add_mutually_exclusive_group()
    stage.add_argument("--no-vectors", action="store_true",
                       help="store everything but the embeddings (seconds): API index, mappings and keyword "
                            "search work at once; fill the vectors with --vectors-only")
    stage.add_argument("--vectors-only", action="store_true",
                       help="embed the rows stored without a vector (resumable; progress on stderr)")
    p.add_argument("--estimate", action="store_true",
                   help="with --vectors-only: embed a small sample, print the measured rate and the time "
                        "the rest will take, and stop")
    p.set_defaults(func=cmd_ingest)

    m = subparsers.add_parser("mapping", help="review API mapping rules (Godot 3 -> 4)")
    msub = m.add_subparsers(dest="mapping_command", metavar="ACTION", required=True)
    ls = msub.add_parser("list", help="list mapping rules")
    ls.add_argument("--status", choices=("candidate", "approved", "rejected"))
    ls.add_argument("--limit", type=int, default=50)
    ls.set_defaults(func=cmd_mapping_list)
    ap = msub.add_parser("approve", help="approve a rule (records reviewer and time)")
    ap.add_argument("id")
    ap.add_argument("--by", help="reviewer name; default $USER")
    ap.add_argument("--note", help="optional remark")
    ap.set_defaults(func=cmd_mapping_approve)
    rj = msub.add_parser("reject", help="reject a rule with a reason")
    rj.add_argument("id")
    rj.add_argument("--why", required=True, help="why the rule is wrong")
    rj.add_argument("--by", help="reviewer name; default $USER")
    rj.set_defaults(func=cmd_mapping_reject)


def _reviewer(by: str | None) -> str:
    if by:
        return by
    try:
        return os.environ.get("USER") or getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def cmd_ingest(args: argparse.Namespace) -> int:
    from agent.ingest.corpus import CorpusError
    from agent.ingest.pipeline import run_ingest
    from agent.settings import default_docs_dir, default_renames_file

    settings = Settings.from_env()
    if args.estimate and not args.vectors_only:
        print("error: --estimate goes with --vectors-only", file=sys.stderr)
        return 2
    if args.vectors_only:
        return _fill(settings, estimate=args.estimate, as_json=args.json)
    docs = args.docs or settings.docs_dir
    if docs is None or not Path(docs).is_dir():
        looked = args.docs or settings.docs_dir or default_docs_dir() or (PROJECT_ROOT.parent / "shared" / "godot-docs")
        print(
            f"error: docs corpus not found (looked in {looked}). Pass --docs DIR or set GODOT_RAG_DOCS_DIR "
            "to a directory holding manifest.json and pages/.",
            file=sys.stderr,
        )
        return 2
    renames = args.renames or settings.renames_file
    if args.renames is not None and not Path(args.renames).is_file():
        print(f"error: renames file not found: {args.renames}", file=sys.stderr)
        return 2
    if renames is None:
        print(
            f"warning: no renames file (looked in {default_renames_file() or '../shared/godot-data/renames_3_to_4.json'}); "
            "converter rename tables are skipped",
            file=sys.stderr,
        )
    classref = args.classref or settings.classref3_dir
    if args.classref is not None and not (Path(args.classref) / "classes").is_dir():
        print(f"error: 3.4 class reference not found: {args.classref} (expected classes/*.xml)", file=sys.stderr)
        return 2
    if classref is None:
        print(
            "warning: no Godot 3.4 class reference (looked in ../shared/godot-class-ref-3.4; set "
            "GODOT_RAG_CLASSREF3_DIR or pass --classref); the knowledge base documents Godot 4 only",
            file=sys.stderr,
        )
    try:
        summary = run_ingest(
            settings, docs_dir=Path(docs), renames_file=renames, out_dir=args.out, force=args.force,
            progress=not args.no_progress, classref_dir=classref, vectors=not args.no_vectors,
        )
    except CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary.as_json(), indent=1, default=str))
    else:
        _print_summary(summary)
        if args.no_vectors:
            _print_pending(settings)
    return 1 if summary.errors else 0


def _print_pending(settings: Settings) -> None:
    from agent.knowledge import current_knowledge

    k = current_knowledge(settings)
    if not k.complete:
        print(f"vectors: {k.total - k.embedded:,} of {k.total:,} rows wait for their vector "
              "(`godot-rag ingest --vectors-only` fills them; evidence is partial until then)")


ESTIMATE_SAMPLE = 64
"""Texts the estimate embeds (and stores) to measure this machine's rate: a few seconds of work."""


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def _fill(settings: Settings, *, estimate: bool, as_json: bool) -> int:
    """`--vectors-only`: embed what has no vector yet, logging progress; `--estimate` measures first and stops."""
    import signal

    # a stop signal exits through the exit hooks, so this process lets go of the embedded Postgres
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    try:
        return _fill_now(settings, estimate=estimate, as_json=as_json)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _fill_now(settings: Settings, *, estimate: bool, as_json: bool) -> int:
    import time

    from agent.embeddings import get_embedder
    from agent.ingest.vectors import embed_batch, fill_vectors, pending, sample

    todos = pending(settings)
    if not todos:
        print(json.dumps({"pending": 0}) if as_json else "vectors: every row has its vector", flush=True)
        return 0
    t0 = time.perf_counter()
    embedder = get_embedder(settings)
    load_s = time.perf_counter() - t0
    if estimate:
        probe = sample(todos, ESTIMATE_SAMPLE)
        warm = probe[:4] if len(probe) > 8 else []
        if warm:
            embed_batch(settings, embedder, warm)  # warm-up (stored too: no work is thrown away)
        timed = probe[len(warm):]
        _, seconds = embed_batch(settings, embedder, timed)
        rate = len(timed) / seconds if seconds else 0.0
        left = len(todos) - len(probe)
        eta = left / rate if rate else 0.0
        if as_json:
            print(json.dumps({"pending": left, "rate": round(rate, 2), "seconds": round(eta), "model_load_s": round(load_s, 1)}))
        else:
            print(f"vectors: {left:,} texts to embed at {rate:.1f}/s measured on this machine "
                  f"({len(timed)}-text sample): about {_duration(eta)}", flush=True)
        return 0
    print(f"vectors: {len(todos):,} texts to embed (model loaded in {load_s:.1f} s)", file=sys.stderr, flush=True)

    def log(done: int, total: int, s) -> None:
        left = (total - done) / s.rate if s.rate else 0.0
        print(f"vectors: {done:,}/{total:,} texts ({s.rate:.1f}/s, about {_duration(left)} left)",
              file=sys.stderr, flush=True)

    s = fill_vectors(settings, embedder=embedder, todos=todos, on_batch=log)
    if as_json:
        print(json.dumps({"rows": s.rows, "texts": s.texts, "seconds": round(s.seconds, 1), "rate": round(s.rate, 2)}))
    else:
        print(f"vectors: {s.rows:,} rows embedded ({s.texts:,} texts) in {_duration(s.seconds)}, {s.rate:.1f}/s")
    return 0


def _print_summary(s) -> None:
    print(f"pages: {s.pages} incl. {s.pages_3_4} of the 3.4 reference (changed {s.pages_changed}, unchanged {s.pages_unchanged}, removed {s.pages_removed})")
    print(f"chunks: {s.chunks} (embedded now {s.chunks_embedded})")
    print(f"api_mapping: {s.mappings} (embedded now {s.mappings_embedded})")
    print(f"label_prototypes: {s.prototypes} (embedded now {s.prototypes_embedded})")
    print(f"api_index: {s.api_index_rows} definitions")
    print(f"warnings: {len(s.warnings)}  errors: {len(s.errors)}  time: {s.seconds:.1f}s  artifacts: {s.out_dir}")
    for e in s.errors[:20]:
        print(f"  error: {e}")
    for w in s.warnings[:50]:  # each one named: a bare count tells nobody what to look at
        print(f"  warning: {w}")
    if len(s.warnings) > 50:
        print(f"  ...and {len(s.warnings) - 50} more warnings in {s.out_dir}/ingest_report.jsonl")
    for c in s.retrieval_checks:
        mark = "ok " if c["ok"] else "MISSING"
        print(f"  check {mark} {c['question']}: {len(c['mapping_hits'])} mapping hit(s), {len(c['docs_hits'])} docs hit(s)")


def cmd_mapping_list(args: argparse.Namespace) -> int:
    from agent.ingest.review import list_mappings
    from agent.storage import connection

    with connection(Settings.from_env()) as conn:
        rows = list_mappings(conn, status=args.status, limit=args.limit)
    for r in rows:
        who = f" by {r['reviewed_by']} at {r['reviewed_at']:%Y-%m-%d %H:%M}" if r["reviewed_by"] else ""
        print(f"{r['mapping_id']}\t{r['source_api']} -> {r['target_api'] or '(removed)'}\t{r['change_type']}\t"
              f"{r['confidence']}\t{r['status']}{who}")
    if not rows:
        print("no mapping rows match", file=sys.stderr)
    return 0


def _review(args: argparse.Namespace, decision: str, note: str | None) -> int:
    from agent.ingest.review import ReviewError, review_mapping
    from agent.storage import connection

    try:
        with connection(Settings.from_env()) as conn:
            row = review_mapping(conn, args.id, decision=decision, reviewer=_reviewer(args.by), note=note)
    except ReviewError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{row['mapping_id']}: {row['status']} by {row['reviewed_by']} at {row['reviewed_at']:%Y-%m-%d %H:%M:%S %Z}")
    return 0


def cmd_mapping_approve(args: argparse.Namespace) -> int:
    return _review(args, "approved", args.note)


def cmd_mapping_reject(args: argparse.Namespace) -> int:
    return _review(args, "rejected", args.why)
