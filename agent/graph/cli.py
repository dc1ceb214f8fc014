"""`godot-rag analyze | resume | runs | show | export` (a fixed contract: scripts parse it).

Progress goes to stderr (tqdm); `--format json` prints exactly one JSON object on stdout, on
success and on failure alike. Exit codes: 0 the run completed; 1 it failed or was interrupted
(Ctrl-C, SIGTERM, an unexpected error); 2 bad input, an unknown run, a run busy elsewhere or a
database that cannot be reached. A failure's JSON is `{"status": "failed", "error": KIND,
"reason": TEXT, "run_id": ID-or-null, "exit_code": N}`; an interrupted run prints its own report
(status `interrupted`) and says on stderr how to resume it. Every message is redacted
(`agent.redact`): no credentials, tokens or database URLs reach the terminal.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

# The contract shared with agent.batch.cli (exit codes, failures, output, the service) lives in
# agent.cli_common; this module's commands keep the names they always used. `failure_json` is
# imported from here by agent.cli.
from agent.cli_common import FAILED, OK, CliFailure, command, failure_json  # noqa: F401
from agent.cli_common import Progress as _Progress
from agent.cli_common import err as _err
from agent.cli_common import load_settings as _settings
from agent.cli_common import positive_int as _positive_int
from agent.cli_common import print_report as _print_report
from agent.cli_common import using_service as _using_service
from agent.cli_common import write_json as _write_json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the analysis commands to the `godot-rag` parser."""
    p = sub.add_parser("analyze", help="analyze a project, file, zip, GitHub URL or a snippet on stdin ('-')")
    p.add_argument("target", help="directory | .zip | file | GitHub URL | '-' for a snippet on stdin")
    p.add_argument("--prompt", default="", help="what you want to know (default: Godot 3 or 4, and what to change)")
    p.add_argument("--format", choices=("json", "text"), default="text", help="stdout format")
    p.add_argument("--run-id", default=None, help="id for the run (default: a new random id)")
    p.add_argument("--judge", choices=("evidence", "llm"), default=None, help="judge (default: GODOT_RAG_JUDGE)")
    p.add_argument("--owner", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("migrate", help="write the validated Godot 4 form of a project, file, zip, GitHub URL or "
                                       "snippet ('-'): a migrated copy (--out) or a unified diff (--patch), never in place")
    p.add_argument("target", help="directory | .zip | file | GitHub URL | '-' for a snippet on stdin")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", default=None, help="a new (or empty) folder for the migrated copy")
    where.add_argument("--patch", default=None, help="a file for the unified diff ('-' for stdout)")
    p.add_argument("--format", choices=("json", "text"), default="text", help="the summary's format on stdout")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("check", help="what Godot 4 refuses in the GDScript of a project, file, zip, GitHub URL or "
                                     "snippet ('-'): undeclared names, missing members, calls, redeclarations, "
                                     "Godot 3 grammar (exit 1 when it finds an error)")
    p.add_argument("target", help="directory | .zip | file | GitHub URL | '-' for a snippet on stdin")
    p.add_argument("--format", choices=("json", "text"), default="text", help="stdout format")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("resume", help="continue an interrupted run at its first chunk that is not done")
    p.add_argument("run_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_resume)

    p = sub.add_parser("runs", help="list recent runs")
    p.add_argument("--owner", default=None, help="only this owner's runs")
    p.add_argument("--limit", type=_positive_int, default=50, help="at most this many runs (at least 1)")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("show", help="show a stored run's report")
    p.add_argument("run_id")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", help="write a run's per-chunk results as JSONL (training data); "
                                      "`export corpus --batch ID --out DIR`: a batch's classified corpus")
    p.add_argument("run_id", help="a run id, or `corpus` with --batch")
    p.add_argument("--out", default=None, help="output file (default: stdout); its folder must exist; "
                                               "with --batch, the corpus folder")
    p.add_argument("--batch", default=None, help="`export corpus`: the batch whose completed runs to add")
    p.add_argument("--min-confidence", type=float, default=0.0,
                   help="`export corpus`: leave out chunks judged below this confidence (0-1)")
    p.add_argument("--format", choices=("json", "text"), default="text", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_export)


async def _warn_if_kb_empty(service: Any) -> None:
    counts = await service.kb_counts()
    if not any(counts.values()):
        _err("the knowledge base is empty: run `godot-rag ingest` first (judging without evidence for now)")


# ---- commands ------------------------------------------------------------------------------------


@command
def cmd_analyze(args: argparse.Namespace) -> int:
    """`godot-rag analyze TARGET`."""
    from agent.graph.service import check_run_id, new_run_id
    from agent.intake import intake_target
    from agent.limits import expected_time
    from agent.runs import RunExistsError

    settings = _settings()
    try:
        run_id = check_run_id(args.run_id) if args.run_id else new_run_id()
    except ValueError as exc:
        raise CliFailure(str(exc)) from None
    intake = intake_target(args.target, prompt=args.prompt, settings=settings)
    args.run_id = run_id  # from here on a failure names the run

    async def analyze(service: Any, progress: _Progress | None) -> dict[str, Any]:
        await _warn_if_kb_empty(service)
        if intake.chunks:  # above the progress bar, not on its line
            estimate = expected_time(intake.chunks, await service.store.chunk_rate(args.judge or settings.judge))
            if progress is not None:
                progress.bar.write(f"godot-rag: {estimate}", file=sys.stderr)
            else:
                _err(estimate)
        return await service.analyze(intake, run_id=run_id, judge=args.judge, owner=args.owner, on_event=progress)

    try:
        report = _using_service(settings, analyze, progress=True, run_id=run_id)
    except RunExistsError as exc:
        raise CliFailure(str(exc), error="run_exists", run_id=run_id) from None
    return _print_report(report, args.format)


@command
def cmd_migrate(args: argparse.Namespace) -> int:
    """`godot-rag migrate TARGET (--out DIR | --patch FILE)`: the migration engine on the intake's files."""
    from agent.intake import intake_target
    from agent.intake.raw import raw_files, with_shaders
    from agent.migrate.patch import summary_text, unified_diff, write_copy

    settings = _settings()
    out = Path(args.out).expanduser() if args.out else None
    if out is not None and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CliFailure(f"cannot write to {args.out}: it exists and is not an empty folder (nothing is written over)")
    patch = None if args.patch in (None, "-") else _check_out_path(args.patch)
    if patch is not None and patch.exists():
        raise CliFailure(f"cannot write to {args.patch}: the file exists (nothing is written over)")
    intake = intake_target(args.target, settings=settings)
    raw = raw_files(args.target, settings, texts=intake.expansion.texts())
    files = with_shaders(intake.expansion.texts(), raw)

    async def migrate(service: Any, _progress: Any) -> Any:
        await _warn_if_kb_empty(service)
        return await service.migrate(files)

    migration = _using_service(settings, migrate, reading_only=True)
    try:
        if out is not None:
            migration.manifest = write_copy(migration, files, out, raw)
        elif patch is not None:
            _write_atomically(patch, unified_diff(migration, files))
        else:
            sys.stdout.write(unified_diff(migration, files))
    except (OSError, ValueError) as exc:
        raise CliFailure(f"cannot write the migration: {getattr(exc, 'strerror', None) or exc}") from None
    if args.format == "json":
        _write_json(migration.model_dump(mode="json"))
    elif args.patch != "-":
        sys.stdout.write(summary_text(migration) + "\n")
    else:
        _err(summary_text(migration))
    return OK


@command
def cmd_check(args: argparse.Namespace) -> int:
    """`godot-rag check TARGET`: the GDScript 4 checker on the intake's scripts; exit 1 on any error."""
    from agent.graph.service import KnowledgeBaseMissingError
    from agent.intake import intake_target

    settings = _settings()
    intake = intake_target(args.target, settings=settings)
    files = intake.expansion.texts()
    if not any(p.endswith(".gd") for p in files):
        raise CliFailure(f"{args.target} holds no GDScript (.gd) file to check")
    try:
        report = _using_service(settings, lambda service, _: service.check(files), reading_only=True)
    except KnowledgeBaseMissingError as exc:
        raise CliFailure(str(exc), error="knowledge_base_missing") from None
    if args.format == "json":
        _write_json(report.model_dump(mode="json"))
    else:
        sys.stdout.write(report.text() + "\n")
    return FAILED if report.errors else OK


@command
def cmd_resume(args: argparse.Namespace) -> int:
    """`godot-rag resume RUN_ID`."""
    settings = _settings()

    async def resume(service: Any, progress: _Progress | None) -> dict[str, Any]:
        return await service.resume(args.run_id, on_event=progress)

    report = _using_service(settings, resume, progress=True, run_id=args.run_id)
    return _print_report(report, args.format)


@command
def cmd_show(args: argparse.Namespace) -> int:
    """`godot-rag show RUN_ID`."""
    settings = _settings()
    report = _using_service(settings, lambda service, _: service.report(args.run_id), reading_only=True)
    _print_report(report, args.format)
    return OK


@command
def cmd_runs(args: argparse.Namespace) -> int:
    """`godot-rag runs`."""
    settings = _settings()

    runs = _using_service(
        settings, lambda service, _: service.list_runs(owner=args.owner, limit=args.limit), reading_only=True
    )
    if args.format == "json":
        _write_json(runs)
        return OK
    if not runs:
        print("no runs yet")
    for r in runs:
        print(
            f"{r['run_id']:<18} {r['status']:<11} {r['verdict'] or '-':<9} {r['done']:>4}/{r['total']:<4} "
            f"{r['created_at'][:19]}  {r['source'] or ''}"
        )
    return OK


def _check_out_path(out: str) -> Path:
    """`--out` must name a file in a folder that exists; checked before the database is opened."""
    path = Path(out).expanduser()
    if path.is_dir():
        raise CliFailure(f"cannot write to {out}: it is a directory; give a file name, e.g. {Path(out) / 'run.jsonl'}")
    if not path.parent.is_dir():
        raise CliFailure(f"cannot write to {out}: the folder {path.parent} does not exist")
    return path


def _write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder: an existing file is replaced whole or not at all."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@command
def cmd_export(args: argparse.Namespace) -> int:
    """`godot-rag export RUN_ID [--out FILE]`: one JSON line per done chunk (`export corpus --batch`: agent.batch)."""
    from agent.runs.store import dumps

    if args.batch is not None or args.run_id == "corpus":
        return export_corpus_command(args)

    settings = _settings()
    out = _check_out_path(args.out) if args.out else None
    rows = _using_service(settings, lambda service, _: service.export_rows(args.run_id), reading_only=True)
    text = "".join(dumps(r) + "\n" for r in rows)
    if out is None:
        sys.stdout.write(text)
        return OK
    try:
        _write_atomically(out, text)
    except OSError as exc:
        raise CliFailure(f"cannot write to {args.out}: {exc.strerror or exc}") from None
    _err(f"wrote {len(rows)} record(s) to {args.out}")
    return OK


def export_corpus_command(args: argparse.Namespace) -> int:
    """`godot-rag export corpus --batch ID --out DIR [--min-confidence X]` (reached through `export`).

    It lives next to `export`, whose `--batch` and `--min-confidence` it reads, so that this module
    never imports agent.batch.cli (the two command modules imported each other: issue 46).
    """
    from agent.batch.corpus import export_corpus

    if args.run_id != "corpus" or not args.batch or not args.out:
        raise CliFailure("a corpus export is `godot-rag export corpus --batch ID --out DIR`")
    if not 0.0 <= args.min_confidence <= 1.0:
        raise CliFailure(f"--min-confidence must be between 0 and 1, got {args.min_confidence}")
    out = Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        raise CliFailure(f"cannot write the corpus to {args.out}: it is a file")
    settings = _settings()
    line = "godot-rag " + " ".join(shlex.quote(a) for a in sys.argv[1:])

    async def go(service: Any, _: Any) -> Any:
        try:
            return await export_corpus(service, args.batch, out, min_confidence=args.min_confidence, command=line)
        except KeyError:
            raise CliFailure(f"no batch {args.batch!r}", error="unknown_batch") from None

    result = _using_service(settings, go, reading_only=True)
    if args.format == "json":
        from dataclasses import asdict

        _write_json(asdict(result))
        return OK
    print(f"corpus {result.out}: {result.projects_added} project(s) and {result.chunks_added} chunk(s) added, "
          f"{result.already_exported} already there, {result.not_finished} not finished"
          + (f", {result.below_confidence} chunk(s) below --min-confidence" if result.below_confidence else ""))
    for conflict in result.conflicts:
        _err(conflict)
    return OK
