"""MCP cold start: `godot-rag mcp` from process start to the first check_code answer, against `godot-rag analyze`.

What an agent waits on the first time it calls the server is everything a fresh process does: imports, the
SDK's handshake, opening the pools and the embedding model (on the first tool call, not at start-up), and
the analysis of the snippet. The baseline is the CLI doing the same work on the same snippet, in the same
run: `godot-rag analyze - --format json` with the snippet on stdin, wall time to exit. The two are measured
in turns (MCP, CLI, MCP, CLI, ...), `--repeats` times each, on the configured database (GODOT_RAG_HOME or
GODOT_RAG_DATABASE_URL); each prints its runs and median, then the ratio of the medians.

    GODOT_RAG_HOME=.godot_rag_home .venv/bin/python bench/mcp_cold_start.py [--repeats 3] [--snippet FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ENEMY = ROOT / "tests" / "fixtures" / "projects" / "enemy_g3.txt"


def _env() -> dict[str, str]:
    """This tree's code (not another checkout's editable install), offline model loading."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


async def mcp_once(code: str) -> tuple[float, float, str]:
    """(seconds to the first answer, of which the handshake and tools/list, verdict) of a fresh `godot-rag mcp`."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=str(BIN / "godot-rag"), args=["mcp"], env=_env(), cwd=str(ROOT))
    t0 = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        from mcp.client.stdio import stdio_client

        async with Client(stdio_client(params, errlog=quiet), read_timeout_seconds=600) as client:
            await client.list_tools()
            listed = time.perf_counter() - t0
            result = await client.call_tool("check_code", {"code": code})
            elapsed = time.perf_counter() - t0
    if result.is_error:
        raise RuntimeError(f"check_code failed: {result.content}")
    return elapsed, listed, (result.structured_content.get("verdict") if isinstance(result.structured_content.get("verdict"), str)
                             else result.structured_content["report"]["verdict"]["label"])


def cli_once(code: str) -> tuple[float, str]:
    """(seconds to exit, verdict) of `godot-rag analyze - --format json` on the snippet."""
    t0 = time.perf_counter()
    done = subprocess.run([str(BIN / "godot-rag"), "analyze", "-", "--format", "json"], input=code.encode(),
                          capture_output=True, env=_env(), cwd=ROOT, check=False)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"godot-rag analyze exited {done.returncode}: {done.stderr.decode()[-1000:]}")
    return elapsed, json.loads(done.stdout)["verdict"]["label"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each, in turns (default 3)")
    parser.add_argument("--snippet", type=Path, default=ENEMY, help="the snippet (default: the enemy fixture)")
    args = parser.parse_args()
    code = args.snippet.read_text()
    mcp_runs: list[float] = []
    cli_runs: list[float] = []
    print(f"snippet {args.snippet.name}, {args.repeats} run(s) each, in turns; load {os.getloadavg()[0]:.1f}")
    for i in range(args.repeats):
        elapsed, listed, verdict = asyncio.run(mcp_once(code))
        mcp_runs.append(elapsed)
        print(f"  mcp #{i + 1}: {elapsed:6.2f} s to the first check_code answer "
              f"(handshake + tools/list {listed:.2f} s), verdict {verdict}")
        elapsed, verdict = cli_once(code)
        cli_runs.append(elapsed)
        print(f"  cli #{i + 1}: {elapsed:6.2f} s for godot-rag analyze, verdict {verdict}")
    mcp, cli = statistics.median(mcp_runs), statistics.median(cli_runs)
    print("\n| path | median s | runs |\n| --- | --- | --- |")
    for name, median, runs in (("godot-rag mcp: start -> first check_code answer", mcp, mcp_runs),
                               ("godot-rag analyze (baseline)", cli, cli_runs)):
        print(f"| {name} | {median:.2f} | {', '.join(f'{x:.2f}' for x in runs)} |")
    print(f"\nratio mcp / cli: {mcp / cli:.2f}x   load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
