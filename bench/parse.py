"""Parse+chunk throughput on a generated GDScript corpus, against gdtoolkit's parser.

Generates a deterministic corpus (Godot 3 and Godot 4 syntax, 50k+ lines by default), builds
one `Expansion` of it the way intake does (`agent.intake.expand.build_expansion`), and times
what the graph's parse node runs: `agent.parse.chunk_project` on the whole project, cold parse
cache, the previous repeat's chunks freed first (a real run holds one copy). Also times
`chunk_file` per file (secondary row), the bare tree-sitter parser, then
`gdtoolkit.parser.parser.parse` on the same files, and prints a table: lines/s, ratio,
gdtoolkit failures per syntax, peak memory, and whether every file of both syntaxes was
chunked.

The baseline is the parser as it was before the C extension was deleted: `agent/` of
`--baseline` (default BASELINE_COMMIT) is taken out of git into a temporary folder, and this
same script times `chunk_project` there in a subprocess, on the same corpus, with
GODOT_RAG_PURE_PYTHON_PARSE=1 (the pure-Python path it had), in turns with an identical
subprocess running ours, so both see the same load and neither is the bench's own process.
Its chunks are compared with ours, minus the `extra["syntax"]` facts that were dropped since,
so the table says whether anything else changed. Times are CPU seconds (the machine is
shared); wall time is shown too, and the 1-minute load average before and after, since CPU
time still grows on a busy machine.

gdtoolkit's parser stops at the first line it cannot read, which in a Godot 3 file is one of
the first few (`export var`, `onready var`, `tool`): it then spends almost no time on the file.
Dividing all lines by its time therefore counts lines it never read as parsed. The table shows
that all-files ratio, the lines it really read per second, and the like-for-like ratio on the
Godot 4 files, which both parsers read to the end (ours timed on those files alone).

    .venv/bin/python bench/parse.py [--lines 60000] [--seed 7] [--baseline COMMIT]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from agent.intake.expand import Entry, build_expansion
from agent.models import Expansion
from agent.parse import chunk_file, chunk_project, clear_cache
from agent.settings import Settings

BASELINE_COMMIT = "75f2bcb"
"""The last commit with the C extension; its pure-Python path is the speed to keep."""
REPO = Path(__file__).resolve().parents[1]

G3_TYPES = ["KinematicBody2D", "Area2D", "Node2D", "Spatial", "KinematicBody", "Control", "RigidBody2D"]
G4_TYPES = ["CharacterBody2D", "Area2D", "Node2D", "Node3D", "CharacterBody3D", "Control", "RigidBody2D"]
WORDS = [
    "speed",
    "health",
    "target",
    "timer",
    "score",
    "enemy",
    "path",
    "jump",
    "dir",
    "state",
    "ammo",
    "cooldown",
]


def _name(rng: random.Random) -> str:
    return f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"


def _body(rng: random.Random, g3: bool, n: int) -> list[str]:
    stmts3 = [
        "velocity = move_and_slide(velocity, Vector2.UP)",
        'yield(get_tree().create_timer({f}), "timeout")',
        'connect("body_entered", self, "_on_body_entered")',
        'var {v} = get_node("Sprite").position',
        "{v} += {i}",
        'emit_signal("changed", {v})',
        'if Input.is_action_pressed("ui_right"):\n\t\t{v} += 1',
        "for i in range({i}):\n\t\tprint(i)",
        '$AnimationPlayer.play("run")',
        "# adjust {v} before the next frame",
        "",
    ]
    stmts4 = [
        "velocity.y += gravity * delta\n\tmove_and_slide()",
        "await get_tree().create_timer({f}).timeout",
        "body_entered.connect(_on_body_entered)",
        "var {v}: Vector2 = $Sprite2D.position",
        "{v} += {i}",
        "changed.emit({v})",
        'if Input.is_action_pressed(&"ui_right"):\n\t\t{v} += 1',
        "var doubled := items.map(func(x): return x * 2)",
        '%AnimationPlayer.play(&"run")',
        "# adjust {v} before the next frame",
        "",
    ]
    out = []
    for _ in range(n):
        s = rng.choice(stmts3 if g3 else stmts4).format(v=_name(rng), i=rng.randint(1, 99), f=rng.random())
        out += [("\t" + line if line and not line.startswith("\t") else line) for line in s.split("\n")]
    return out


def make_file(rng: random.Random, g3: bool) -> str:
    """One script: extends, signals, a declaration group and 5-12 functions of 4-25 statements."""
    lines: list[str] = []
    if g3 and rng.random() < 0.3:
        lines.append("tool")
    if not g3 and rng.random() < 0.3:
        lines.append("@tool")
    lines += [f"extends {rng.choice(G3_TYPES if g3 else G4_TYPES)}", ""]
    lines += [f"signal {_name(rng)}", "signal changed(value)", ""]
    for _ in range(rng.randint(3, 8)):
        v = _name(rng)
        if g3:
            lines.append(
                rng.choice(
                    [
                        f"export var {v} = {rng.randint(0, 9)}",
                        f"onready var {v} = $Node",
                        f"var {v} = 0 setget set_{v}",
                        f"var {v} = Vector2()",
                    ]
                )
            )
        else:
            lines.append(
                rng.choice(
                    [
                        f"@export var {v}: int = {rng.randint(0, 9)}",
                        f"@onready var {v} := $Node",
                        f"var {v}: Array[int] = []",
                        f"var {v} := Vector2()",
                    ]
                )
            )
    lines.append("")
    for f in range(rng.randint(5, 12)):
        if rng.random() < 0.2:
            lines.append("# " + " ".join(rng.choice(WORDS) for _ in range(6)))
        prefix = (
            ("remote " if g3 and rng.random() < 0.1 else "")
            if g3
            else ("@rpc\n" if rng.random() < 0.1 else "")
        )
        lines += (prefix + f"func {_name(rng)}_{f}(delta):").split("\n")
        lines += _body(rng, g3, rng.randint(4, 25))
        lines.append("\tpass")
        lines.append("")
    return "\n".join(lines) + "\n"


def corpus(total_lines: int, seed: int) -> list[tuple[str, str, bool]]:
    """(path, text, is_godot3) files, alternating syntaxes, until `total_lines` is reached."""
    rng = random.Random(seed)
    out: list[tuple[str, str, bool]] = []
    count = 0
    while count < total_lines:
        g3 = len(out) % 2 == 0
        text = make_file(rng, g3)
        out.append((f"{'g3' if g3 else 'g4'}/file_{len(out):04d}.gd", text, g3))
        count += text.count("\n")
    return out


def expansion(files: list[tuple[str, str, bool]]) -> Expansion:
    """The corpus as intake would expand an upload of it: sorted, classified, decoded, hashed."""
    data = {path: text.encode("utf-8") for path, text, _ in files}
    entries = [Entry(path=p, size=len(b), read=(lambda b=b: b)) for p, b in data.items()]
    return build_expansion(entries, Settings(), what="the bench corpus")


def _timed(run, repeat: int) -> tuple[float, float, list]:
    """Best CPU and wall seconds of `repeat` cold-cache runs; the last run's result.

    The previous run's result is dropped before the next run starts, as in a real run
    (which holds one project's chunks, not several).
    """
    cpu = wall = float("inf")
    result: list = []
    for _ in range(repeat):
        del result
        clear_cache()
        w0, t0 = time.perf_counter(), time.process_time()
        result = run()
        cpu = min(cpu, time.process_time() - t0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu, wall, result


@dataclass
class GdtoolkitRun:
    """gdtoolkit's parser over the corpus: the best run's seconds per syntax and where it stopped."""

    seconds: dict[str, float]
    failed: dict[str, int]
    stop_lines: list[int]  # the line of the first error in each failed file
    read_lines: int  # lines of the files it parsed, plus the lines up to each stop

    @property
    def total(self) -> float:
        """Seconds over all files."""
        return self.seconds["godot3"] + self.seconds["godot4"]


def _gdtoolkit(files: list[tuple[str, str, bool]], repeat: int) -> GdtoolkitRun:
    """Best of `repeat` runs of `gdtoolkit.parser.parser.parse` on every file (CPU seconds)."""
    from gdtoolkit.parser import parser as gd_parser

    best: GdtoolkitRun | None = None
    for _ in range(repeat):  # best of N like ours: the ratio compares like with like
        run = GdtoolkitRun({"godot3": 0.0, "godot4": 0.0}, {"godot3": 0, "godot4": 0}, [], 0)
        for _, text, g3 in files:
            syntax = "godot3" if g3 else "godot4"
            error: Exception | None = None
            t0 = time.process_time()
            try:
                gd_parser.parse(text)
            except Exception as exc:  # noqa: BLE001 - any gdtoolkit failure counts as a failed file
                error = exc
            run.seconds[syntax] += time.process_time() - t0
            line = text.count("\n")  # read to the end, unless it stopped earlier
            if error is not None:
                run.failed[syntax] += 1
                stop = getattr(error, "line", None)  # lark's errors carry the line they stopped at
                if isinstance(stop, int) and stop > 0:
                    line = stop
                run.stop_lines.append(line)
            run.read_lines += line
        if best is None or run.total < best.total:
            best = run
    assert best is not None
    return best


def digest(chunks: list) -> str:
    """sha256 of the chunks' JSON, without `extra["syntax"]` (facts the parser no longer computes)."""
    h = hashlib.sha256()
    for c in chunks:
        d = c.model_dump(mode="json")
        d["extra"].pop("syntax", None)
        h.update(json.dumps(d, sort_keys=True).encode())
    return h.hexdigest()


def _worker(args: argparse.Namespace) -> int:
    """Time one cold `chunk_project` per "run" line on stdin, one JSON line each (the baseline's side)."""
    project = expansion(corpus(args.lines, args.seed))
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            break
        cpu, wall, chunked = _timed(lambda: chunk_project(project, project_id="bench"), 1)
        print(json.dumps({"cpu": cpu, "wall": wall, "digest": digest(chunked)}), flush=True)
        del chunked
    return 0


class Worker:
    """This script's `_worker` in a subprocess, importing `agent` from `tree` (a folder on PYTHONPATH).

    `run()` times one cold `chunk_project` there. The speed ratio is taken between two workers,
    ours and the baseline's, run in turns: both are equal processes that see the same load.
    """

    def __init__(self, args: argparse.Namespace, tree: str, env: dict[str, str] | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": tree, **(env or {})}
        cmd = [sys.executable, __file__, "--worker", f"--lines={args.lines}", f"--seed={args.seed}"]
        self._proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._in, self._out = self._proc.stdin, self._proc.stdout
        if self._out.readline().strip() != "ready":
            raise RuntimeError(f"the worker on {tree} did not start (exit {self._proc.wait()})")

    def run(self) -> dict:
        """CPU and wall seconds and the chunks' digest of one cold run."""
        self._in.write("run\n")
        self._in.flush()
        return json.loads(self._out.readline())

    def close(self) -> None:
        """Let the worker finish."""
        self._in.close()
        self._proc.wait()


def _versus_baseline(args: argparse.Namespace) -> tuple[float, float, bool] | str:
    """(ours, baseline) best CPU seconds of --repeat turns each, and whether the chunks agree; or why not."""
    try:
        blob = subprocess.run(
            ["git", "-C", str(REPO), "archive", args.baseline, "agent"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"skipped: no `git archive {args.baseline}` ({exc})"
    with tempfile.TemporaryDirectory(prefix="bench-parse-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
            tar.extractall(tmp, filter="data")
        workers = [Worker(args, str(REPO)), Worker(args, tmp, {"GODOT_RAG_PURE_PYTHON_PARSE": "1"})]
        best = [float("inf"), float("inf")]
        digests = ["", ""]
        try:
            for turn in range(args.repeat):
                for n in (0, 1) if turn % 2 == 0 else (1, 0):  # ABBA: who goes first takes turns too
                    got = workers[n].run()
                    best[n], digests[n] = min(best[n], got["cpu"]), got["digest"]
        finally:
            for w in workers:
                w.close()
    return best[0], best[1], digests[0] == digests[1]


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=60_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of ours; the best is kept")
    ap.add_argument("--skip-gdtoolkit", action="store_true")
    ap.add_argument("--gdtoolkit-repeat", type=int, default=2, help="timed gdtoolkit runs; the best is kept")
    ap.add_argument("--baseline", default=BASELINE_COMMIT, help="commit whose pure-Python parser is the bar")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return _worker(args)

    load_before = os.getloadavg()
    files = corpus(args.lines, args.seed)
    project = expansion(files)
    sources = project.included
    syntax_of = {p: ("godot3" if g3 else "godot4") for p, _, g3 in files}
    lines = sum(t.count("\n") for _, t, _ in files)
    g3_files = sum(1 for *_, g3 in files if g3)
    print(
        f"corpus: {len(files)} files ({g3_files} Godot 3, {len(files) - g3_files} Godot 4), {lines:,} lines",
        file=sys.stderr,
    )

    def run_project() -> list:
        return chunk_project(project, project_id="bench")

    def run_files() -> list:
        return [c for s in sources for c in chunk_file(s)]

    clear_cache()
    tracemalloc.start()
    run_project()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # timed untraced (tracemalloc slows Python allocation), cold cache, best of --repeat;
    # CPU time of this process, because the machine is shared and wall time includes waiting
    ours, wall, chunked = _timed(run_project, args.repeat)
    per_file, _, per_file_chunks = _timed(run_files, args.repeat)
    del per_file_chunks
    versus = _versus_baseline(args)  # the baseline commit's parser, same corpus, same run
    n_chunks = len(chunked)
    unparsed = sum(1 for c in chunked if c.chunk_kind == "unparsed")
    by_file: dict[str, list] = {p: [] for p, _, _ in files}
    for c in chunked:
        by_file[c.source_file].append(c)
    all_chunked = {
        syntax: all(
            cs and all(c.parse_status in ("ok", "partial") for c in cs)
            for p, cs in by_file.items()
            if syntax_of[p] == syntax
        )
        for syntax in ("godot3", "godot4")
    }

    # the raw grammar alone, same files, same run: shows how much of the time is ours
    import tree_sitter_gdscript
    from tree_sitter import Language, Parser

    ts_parser = Parser(Language(tree_sitter_gdscript.language()))
    encoded = [t.encode() for _, t, _ in files]
    ts_time = float("inf")
    for _ in range(args.repeat):
        t0 = time.process_time()
        for data in encoded:
            ts_parser.parse(data)
        ts_time = min(ts_time, time.process_time() - t0)

    gd = None if args.skip_gdtoolkit else _gdtoolkit(files, args.gdtoolkit_repeat)
    like = None
    if gd is not None:  # ours on the files gdtoolkit reads to the end: the like-for-like ratio
        g4_files = [f for f in files if not f[2]]
        g4_project = expansion(g4_files)
        like, _, g4_chunked = _timed(lambda: chunk_project(g4_project, project_id="bench-g4"), args.repeat)
        del g4_chunked
        g4_lines = sum(t.count("\n") for _, t, _ in g4_files)

    rows = [
        ("files", f"{len(files)}"),
        ("lines", f"{lines:,}"),
        ("chunks", f"{n_chunks:,} ({unparsed} unparsed)"),
        ("parse+chunk CPU time (chunk_project)", f"{ours:.3f} s (wall {wall:.3f} s)"),
        ("parse+chunk lines/s (CPU)", f"{lines / ours:,.0f}"),
        ("parse+chunk lines/s (wall)", f"{lines / wall:,.0f}"),
        ("chunk_file per file lines/s (CPU)", f"{lines / per_file:,.0f} ({per_file:.3f} s)"),
        ("tree-sitter parse only lines/s (CPU)", f"{lines / ts_time:,.0f} ({ts_time:.3f} s)"),
    ]
    if isinstance(versus, tuple):
        mine, base, same = versus
        rows += [
            (f"baseline {args.baseline} pure Python lines/s (CPU)", f"{lines / base:,.0f} ({base:.3f} s)"),
            ("  ours in the same kind of worker, lines/s", f"{lines / mine:,.0f} ({mine:.3f} s)"),
            ("  ours vs baseline, target >= 1.0x", f"{base / mine:.2f}x"),
            ("  chunks identical to the baseline's", str(same)),
        ]
    else:
        rows.append((f"baseline {args.baseline}", versus))
    rows += [
        ("chunking beyond the bare parse (CPU)", f"{ours - ts_time:.3f} s ({(ours - ts_time) / ours:.0%})"),
        ("peak memory (tracemalloc)", f"{peak / 1e6:.1f} MB"),
        ("every Godot 3 file chunked", str(all_chunked["godot3"])),
        ("every Godot 4 file chunked", str(all_chunked["godot4"])),
    ]
    if gd is not None and like is not None:
        stops = sorted(gd.stop_lines)
        read, secs = gd.read_lines, gd.seconds
        unread = lines - read  # the rest of each failed file, after the line gdtoolkit stopped at
        rows += [
            ("gdtoolkit CPU time, all files", f"{gd.total:.3f} s (best of {args.gdtoolkit_repeat})"),
            ("  of which Godot 3 / Godot 4 files", f"{secs['godot3']:.3f} s / {secs['godot4']:.3f} s"),
            ("gdtoolkit failures Godot 3", f"{gd.failed['godot3']}/{g3_files}"),
            ("gdtoolkit failures Godot 4", f"{gd.failed['godot4']}/{len(files) - g3_files}"),
        ]
        if stops:
            rows.append(
                (
                    "  where it stops in a failed file",
                    f"line {stops[0]}-{stops[-1]} (median {stops[len(stops) // 2]})",
                )
            )
        rows += [
            ("gdtoolkit lines/s, all lines / time", f"{lines / gd.total:,.0f} ({unread:,} of them unread)"),
            ("ratio, all files (ours / gdtoolkit)", f"{gd.total / ours:.1f}x"),
            ("gdtoolkit lines/s, lines it read", f"{read / gd.total:,.0f} ({read:,} lines)"),
            ("like for like: Godot 4 files", f"{g4_lines:,} lines, both parsers read every line"),
            ("  ours, chunk_project lines/s (CPU)", f"{g4_lines / like:,.0f} ({like:.3f} s)"),
            ("  gdtoolkit lines/s (CPU)", f"{g4_lines / secs['godot4']:,.0f}"),
            ("  ratio (ours / gdtoolkit)", f"{secs['godot4'] / like:.1f}x"),
        ]
    load = (load_before[0], os.getloadavg()[0])
    rows.append(("load average before / after", " / ".join(f"{a:.2f}" for a in load)))
    width = max(len(k) for k, _ in rows)
    print(f"{'metric':<{width}} | value")
    print(f"{'-' * width}-+-{'-' * 24}")
    for k, v in rows:
        print(f"{k:<{width}} | {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
