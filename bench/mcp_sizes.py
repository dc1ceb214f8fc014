"""MCP payload sizes: what each tool's answer costs an agent's context, this tree against a baseline revision.

An agent pays for every byte a tool returns (its text and its structured content) and for `tools/list` (names,
descriptions, input and output schemas) on every session. This bench calls the tools the README shows, in
process over the SDK's own client, on the configured database (GODOT_RAG_HOME or GODOT_RAG_DATABASE_URL), and
prints the bytes of each answer as JSON-RPC would carry it: `tools/list`, `check_code` on an 18-line Godot 3
script (bench/data/mcp_script_g3.gd), `analyze_project` on a 3-file zip, `migrate` and `follow_up` on that run.
With `--baseline REV` the same calls run on that revision's code (a git worktree) in the same run.

    GODOT_RAG_HOME=.godot_rag_home .venv/bin/python bench/mcp_sizes.py [--baseline c770ff7]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "data" / "mcp_script_g3.gd"
PROJECT = ROOT / "tests" / "ui" / "fixtures" / "mixed_project"


def _size(result) -> int:
    """The bytes of a tools/call result as the server sends it (content and structured content)."""
    return len(result.model_dump_json(by_alias=True, exclude_none=True).encode())


async def measure() -> dict[str, int]:
    from mcp import Client

    from agent.graph.service import AnalysisService
    from agent.mcp_server.runtime import McpRuntime
    from agent.mcp_server.server import build_server
    from agent.settings import Settings

    settings = Settings.from_env().with_(llm_base_url=None, judge="evidence", front_door="mcp")
    svc = await AnalysisService.create(settings)
    sizes: dict[str, int] = {}
    try:
        runtime = McpRuntime(settings=settings, transport="stdio", service=svc)
        async with Client(build_server(runtime)) as client:
            tools = await client.list_tools()
            sizes["tools/list"] = len(tools.model_dump_json(by_alias=True, exclude_none=True).encode())
            code = SCRIPT.read_text()
            checked = await client.call_tool("check_code", {"code": code, "path": "player.gd"})
            sizes[f"check_code ({len(code.splitlines())} lines)"] = _size(checked)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as zf:
                for name in ("player.gd", "mob.gd", "hud.gd"):
                    zf.write(PROJECT / name, name)
            analysed = await client.call_tool("analyze_project", {"zip_base64": base64.b64encode(buf.getvalue()).decode(),
                                                                  "zip_name": "crate_runner.zip"})
            sizes["analyze_project (3 files)"] = _size(analysed)
            run_id = (analysed.structured_content or {}).get("run_id")
            migrated = await client.call_tool("migrate", {"code": code, "path": "player.gd"})
            sizes[f"migrate ({len(code.splitlines())} lines)"] = _size(migrated)
            if run_id:
                answered = await client.call_tool("follow_up", {"run_id": run_id, "question": "why is mob.gd flagged?"})
                sizes["follow_up"] = _size(answered)
            looked = await client.call_tool("lookup_api", {"name": "Tween.interpolate_property"})
            sizes["lookup_api"] = _size(looked)
    finally:
        await svc.close()
    return sizes


def _at(rev: str) -> dict[str, int]:
    """The same calls on `rev`'s code: a worktree, this file run there with that tree first on the path."""
    with tempfile.TemporaryDirectory(prefix="godot-rag-mcp-sizes-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev], check=True,
                       capture_output=True)
        try:
            (tree / "bench" / "data").mkdir(parents=True, exist_ok=True)
            for f in (Path(__file__), SCRIPT):
                (tree / f.relative_to(ROOT)).write_bytes(f.read_bytes())
            env = {**os.environ, "PYTHONPATH": str(tree)}
            home = os.environ.get("GODOT_RAG_HOME")
            if home:
                env["GODOT_RAG_HOME"] = str(Path(home).resolve())
            done = subprocess.run([sys.executable, str(tree / "bench" / "mcp_sizes.py"), "--json"], env=env,
                                  cwd=tree, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(done.stderr[-2000:])
            return json.loads(done.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False,
                           capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default="", help="a git revision measured the same way in the same run")
    ap.add_argument("--json", action="store_true", help="print only the sizes, as one JSON line")
    args = ap.parse_args()
    now = asyncio.run(measure())
    if args.json:
        print(json.dumps(now))
        return 0
    base = _at(args.baseline) if args.baseline else {}
    print(f"{'payload (bytes)':40s} {'now':>10s}" + (f" {'baseline ' + args.baseline:>18s}" if base else ""))
    for k, v in now.items():
        print(f"{k:40s} {v:>10,}" + (f" {base.get(k, 0):>18,}" if base else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
