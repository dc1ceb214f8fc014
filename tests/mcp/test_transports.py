"""`godot-rag mcp` as a separate process, started exactly as the README's configurations start it.

Stdio: the Cursor block's command and arguments (the Claude Code line says the same), spoken to by the SDK's
stdio client. HTTP: the README's server command (only the port is a free one) and the Cursor block's URL and
Authorization header; without the header, or with a wrong password, the server answers 401.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters

from agent.settings import PROJECT_ROOT
from tests.mcp.conftest import ENEMY, cancel_after_first_progress, new_interrupted_run, write_project

pytestmark = pytest.mark.asyncio(loop_scope="session")

KINEMATIC_ROW = "godot3-to-4:class:kinematicbody2d-to-characterbody2d"
README = (PROJECT_ROOT / "README.md").read_text()
SECTION = README[README.index("## MCP server"):README.index("## Settings")]
BIN = Path(sys.executable).parent


def readme_blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", SECTION, re.S)


def cursor_config(kind: str) -> dict:
    """The Cursor block whose server has `kind` ("command" for stdio, "url" for HTTP)."""
    [cfg] = [c["mcpServers"]["godot-rag"] for c in map(json.loads, readme_blocks("json"))
             if kind in c["mcpServers"]["godot-rag"]]
    return cfg


def server_env(settings) -> dict[str, str]:
    """This worktree's code and the test database, as the client's environment would give them."""
    return {"PYTHONPATH": str(PROJECT_ROOT), "GODOT_RAG_HOME": str(settings.home),
            "GODOT_RAG_DATABASE_URL": settings.database_url, "GODOT_RAG_JUDGE": "evidence",
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


async def check_enemy_then_migrate(client: Client) -> None:
    """What a client does first: list the tools, check the enemy snippet, take the Godot 4 code."""
    names = {t.name for t in (await client.list_tools()).tools}
    assert {"check_code", "migrate", "lookup_api", "search_docs", "follow_up", "analyze_project"} <= names
    checked = await client.call_tool("check_code", {"code": ENEMY, "detail": "full"})
    assert not checked.is_error, checked.content
    report = checked.structured_content["report"]
    assert report["verdict"]["label"] == "godot3" and checked.structured_content["verdict"] == "godot3"
    assert KINEMATIC_ROW in {c["evidence_id"] for c in report["answer"]["citations"]}
    migrated = await client.call_tool("migrate", {"run_id": checked.structured_content["run_id"]})
    assert not migrated.is_error, migrated.content
    assert migrated.structured_content["code"].startswith("extends CharacterBody2D")


async def test_stdio_as_the_readme_configures_it(mcp_settings, mcp_service, tmp_path):
    cfg = cursor_config("command")
    claude = [b for b in readme_blocks("sh") if b.startswith("claude mcp add godot-rag -- ")][0].strip()
    assert shlex.split(claude.split(" -- ", 1)[1]) == [cfg["command"], *cfg["args"]] == ["godot-rag", "mcp"]
    params = StdioServerParameters(command=str(BIN / cfg["command"]), args=cfg["args"], env=server_env(mcp_settings),
                                   cwd=str(PROJECT_ROOT))
    before = set(await mcp_service.interrupted_runs(owner="mcp:local"))
    async with Client(params, read_timeout_seconds=300) as client:
        await check_enemy_then_migrate(client)
        # a cancel over the wire (notifications/cancelled) stops the server's run, resumable
        await cancel_after_first_progress(client, {"target": str(write_project(tmp_path))})
        run_id = await new_interrupted_run(mcp_service, "mcp:local", before)
    assert (await mcp_service.resume(run_id))["status"] == "completed"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(mcp_settings):
    """The README's HTTP server command, on a free port; yields (url, headers) from the Cursor block."""
    [line] = [ln for b in readme_blocks("sh") for ln in b.splitlines() if " godot-rag mcp --http" in ln]
    words = shlex.split(line)
    env_words = [w for w in words if re.match(r"^[A-Z_]+=", w)]
    argv = words[len(env_words):]
    cfg = cursor_config("url")
    port = _free_port()
    argv[argv.index("--port") + 1] = str(port)
    env = {**os.environ, **server_env(mcp_settings), **dict(w.split("=", 1) for w in env_words)}
    env.pop("GODOT_RAG_UI_ALLOW_ANONYMOUS", None)
    proc = subprocess.Popen([str(BIN / argv[0]), *argv[1:]], env=env, cwd=PROJECT_ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = cfg["url"].replace(":8765/", f":{port}/")
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start: {proc.stderr.read().decode()[-2000:]}") from None
                time.sleep(0.2)
        yield url, cfg["headers"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _messages(exc: BaseException) -> str:
    """Every message of an exception and the exceptions grouped or chained in it."""
    seen = [str(exc)]
    for inner in getattr(exc, "exceptions", ()) or ():
        seen.append(_messages(inner))
    if exc.__cause__ is not None:
        seen.append(_messages(exc.__cause__))
    return " | ".join(seen)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}


async def test_http_refuses_without_the_token_and_serves_with_it(http_server, mcp_service):
    import httpx2

    from agent.intake import intake_snippet

    bobs = await mcp_service.analyze(intake_snippet(ENEMY, settings=mcp_service.settings), owner="chainlit:bob")

    url, headers = http_server
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx.AsyncClient(timeout=30) as http:
        anonymous = await http.post(url, json=INIT, headers=accept)
        wrong = await http.post(url, json=INIT, headers={**accept, "Authorization": "Bearer alice:wrong"})
        foreign = await http.post(url, json=INIT, headers={**accept, **headers, "Origin": "https://evil.example"})
        ok = await http.post(url, json=INIT, headers={**accept, **headers})
    assert anonymous.status_code == wrong.status_code == 401
    assert "secret" not in anonymous.text and anonymous.headers["www-authenticate"].startswith("Bearer")
    assert foreign.status_code == 403
    assert ok.status_code == 200
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer alice:wrong"}, timeout=httpx2.Timeout(60)) as http:
        from mcp.client.streamable_http import streamable_http_client

        with pytest.raises(Exception) as refused:  # the SDK shows the server's own words, not "-32603 ..."
            async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60):
                pass
        assert "authentication failed" in _messages(refused.value)
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(300)) as http:
        from mcp.client.streamable_http import streamable_http_client

        async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=300) as client:
            await check_enemy_then_migrate(client)
            # alice's runs are alice's (the chat's owner for her); bob's run reads as no run at all
            mine = await client.call_tool("check_code", {"code": "extends Node\n", "detail": "full"})
            assert mine.structured_content["report"]["owner"] == "chainlit:alice"
            theirs = await client.call_tool("follow_up", {"run_id": bobs["run_id"], "question": "why?"})
            assert theirs.is_error and "no run" in theirs.content[0].text
            with pytest.raises(Exception, match="no run"):
                await client.read_resource(f"godot-rag://runs/{bobs['run_id']}")
