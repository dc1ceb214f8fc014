"""Every tool and resource through the SDK's in-memory client, on the real database and embedding model."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from agent.mcp_server.server import build_server
from tests.mcp.conftest import ENEMY, cancel_after_first_progress, new_interrupted_run, write_project

pytestmark = pytest.mark.asyncio(loop_scope="session")

KINEMATIC_ROW = "godot3-to-4:class:kinematicbody2d-to-characterbody2d"


async def test_tools_say_when_to_use_them_and_what_they_return(stdio_runtime):
    async with Client(build_server(stdio_runtime)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    assert set(tools) == {"check_code", "analyze_project", "migrate", "check_godot4", "lookup_api", "search_docs",
                          "follow_up"}
    for tool in tools.values():
        assert tool.description and tool.description.startswith("Use this"), tool.name
        assert tool.output_schema and tool.output_schema.get("properties"), tool.name
    assert {"verdict", "changes", "answer"} <= set(tools["check_code"].output_schema["properties"])
    assert templates == {"godot-rag://runs/{run_id}", "godot-docs://{version}/{class_name}"}


async def test_enemy_snippet_is_godot3_with_the_mapping_cited_then_migrated(stdio_runtime):
    async with Client(build_server(stdio_runtime)) as client:
        result = await client.call_tool("check_code", {"code": ENEMY})
        assert not result.is_error, result.content
        out = result.structured_content
        assert out["verdict"] == "godot3" and out["migration_required"] and "report" not in out
        assert out["report_uri"] == f"godot-rag://runs/{out['run_id']}"
        # the changes are the validated migration's: the new side is what the Godot 4 code holds
        assert any(c["old"] == "KinematicBody2D" and c["new"] == "CharacterBody2D" and c["docs_url"]
                   for c in out["changes"]), out["changes"]
        assert "godot3" in result.content[0].text and "CharacterBody2D" in result.content[0].text
        full = (await client.call_tool("check_code", {"code": ENEMY, "detail": "full"})).structured_content
        report = full["report"]
        assert report["owner"] == "mcp:local" and full["chunks_shown"] == len(report["chunks"])
        cited = {c["evidence_id"] for c in report["answer"]["citations"]}
        assert KINEMATIC_ROW in cited
        assert any(KINEMATIC_ROW in c["judgment"]["evidence_ids"] for c in report["chunks"])

        whole = await client.read_resource(out["report_uri"])
        assert json.loads(whole.contents[0].text)["run_id"] == out["run_id"]

        for args in ({"run_id": out["run_id"]}, {"code": ENEMY.split("\n", 1)[1], "path": "enemy.gd"}):
            migrated = await client.call_tool("migrate", args)
            assert not migrated.is_error, migrated.content
            code = migrated.structured_content["code"]
            assert code.startswith("extends CharacterBody2D") and "\tmove_and_slide()" in code, code
            assert "var velocity" not in code and "+\tmove_and_slide()" in migrated.structured_content["patch"]
            assert code in migrated.content[0].text

        answer = await client.call_tool("follow_up", {"run_id": out["run_id"], "question": "why is chunk 1 flagged?"})
        assert not answer.is_error and "KinematicBody2D" in answer.structured_content["text"]


async def test_lookup_api_gives_both_signatures_and_the_successor(stdio_runtime):
    async with Client(build_server(stdio_runtime)) as client:
        result = await client.call_tool("lookup_api", {"name": "KinematicBody2D.move_and_slide"})
    assert not result.is_error, result.content
    found = result.structured_content["lookup"]
    assert found["defined_in"] == ["3.4"]
    [v3] = found["definitions"]
    assert v3["signature"].startswith("Vector2 move_and_slide(linear_velocity: Vector2")
    assert v3["url"].endswith("class_kinematicbody2d.html#class-kinematicbody2d-method-move-and-slide")
    assert "CharacterBody2D.move_and_slide" in found["successors"]
    [v4] = [d for d in found["successor_definitions"] if d["class_name"] == "CharacterBody2D"]
    assert v4["version"] == "4.x" and v4["signature"] == "bool move_and_slide()"
    assert v4["url"].endswith("class_characterbody2d.html#class-characterbody2d-method-move-and-slide")


async def test_search_docs_keeps_to_the_asked_version(stdio_runtime):
    async with Client(build_server(stdio_runtime)) as client:
        old = await client.call_tool("search_docs", {"query": "Spatial translation and rotation", "version": "3.4"})
        new = await client.call_tool("search_docs", {"query": "CharacterBody2D move_and_slide velocity"})
    hits = old.structured_content["hits"]
    assert hits and all(h["id"].startswith("godot-3.4:") and h["doc_version"] == "3.4" for h in hits)
    assert all("#" in h["url"] and h["excerpt"] for h in hits)
    assert new.structured_content["hits"] and not any(h["doc_version"] == "3.4" for h in new.structured_content["hits"])


async def test_class_page_resource(stdio_runtime):
    async with Client(build_server(stdio_runtime)) as client:
        page = await client.read_resource("godot-docs://4/CharacterBody2D")
        text = page.contents[0].text
        assert text.startswith("# CharacterBody2D (Godot 4.x") and "bool move_and_slide()" in text
        with pytest.raises(Exception, match="no class"):
            await client.read_resource("godot-docs://4/KinematicBody2D")


async def test_refusals_are_tool_errors_without_secrets(stdio_runtime):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    async with Client(build_server(stdio_runtime)) as client:
        for target in (f"https://x-access-token:{token}@github.com/godotengine/godot",
                       f"https://gitlab.com/a/b?token={token}"):
            result = await client.call_tool("analyze_project", {"target": target})
            text = result.content[0].text
            assert result.is_error and "Refused" in text and token not in text, text
            assert "Traceback" not in text
        unknown = await client.call_tool("follow_up", {"run_id": "no-such-run", "question": "why?"})
        assert unknown.is_error and "no run 'no-such-run'" in unknown.content[0].text


async def test_local_paths_are_refused_over_http(mcp_service):
    from agent.mcp_server.runtime import McpRuntime
    from agent.access import AccessConfig

    runtime = McpRuntime(settings=mcp_service.settings, transport="http", service=mcp_service,
                         access=AccessConfig(allow_anonymous=True))
    async with Client(build_server(runtime)) as client:
        result = await client.call_tool("analyze_project", {"target": "/etc"})
    assert result.is_error and "only over the stdio transport" in result.content[0].text


async def test_a_cancelled_analysis_leaves_a_resumable_run(stdio_runtime, mcp_service, tmp_path):
    from agent.mcp_server.access import LOCAL

    before = set(await mcp_service.interrupted_runs(owner=LOCAL.owner))
    async with Client(build_server(stdio_runtime)) as client:
        await cancel_after_first_progress(client, {"target": str(write_project(tmp_path))})
    run_id = await new_interrupted_run(mcp_service, LOCAL.owner, before)
    stopped = await mcp_service.report(run_id)
    assert stopped["status"] == "interrupted" and stopped["progress"]["done"] < stopped["progress"]["total"]
    resumed = await mcp_service.resume(run_id)
    assert resumed["status"] == "completed" and resumed["verdict"]["label"] == "godot3"


async def test_the_mcp_chunk_cap_refuses_with_the_count_and_offers_the_cli(stdio_runtime):
    from agent.settings import DEFAULT_MAX_CHUNKS

    cap = DEFAULT_MAX_CHUNKS["mcp"]
    assert stdio_runtime.settings.chunk_limit == cap < DEFAULT_MAX_CHUNKS["bot"]
    code = "extends Node\n" + "".join(f"func f{i}():\n\tvar a = {i}\n\treturn a\n" for i in range(cap))  # cap + 1
    async with Client(build_server(stdio_runtime)) as client:
        result = await client.call_tool("check_code", {"code": code})
    text = result.content[0].text
    assert result.is_error and f"over the limit of {cap:,} chunks per run" in text
    assert "`godot-rag analyze" in text and "Traceback" not in text


async def test_check_godot4_says_what_godot4_refuses_line_by_line(stdio_runtime):
    code = "extends Node\nonready var label = $Label\n\nfunc _ready():\n\tyield(get_tree(), \"idle_frame\")\n"
    async with Client(build_server(stdio_runtime)) as client:
        result = await client.call_tool("check_godot4", {"code": code, "path": "hud.gd"})
    assert not result.is_error, result.content
    report = result.structured_content["report"]
    found = {(d["line"], d["rule"]) for f in report["files"] for d in f["diagnostics"]}
    assert {(2, "godot3-syntax"), (5, "godot3-syntax")} <= found
    assert report["errors"] >= 2 and "hud.gd:2:" in result.content[0].text


async def test_results_fit_an_agents_context(stdio_runtime):
    """Issue 47: tools/list under 30 KB, and check_code on an 18-line Godot 3 script under 12 KB by default
    (verdict, counts, changes, answer; the evidence is the run resource's or `detail="full"`'s)."""
    from pathlib import Path

    code = (Path(__file__).resolve().parents[2] / "bench" / "data" / "mcp_script_g3.gd").read_text()
    async with Client(build_server(stdio_runtime)) as client:
        listed = await client.list_tools()
        checked = await client.call_tool("check_code", {"code": code, "path": "player.gd"})
    assert len(listed.model_dump_json(by_alias=True, exclude_none=True)) <= 30_000
    assert not checked.is_error, checked.content
    assert len(checked.model_dump_json(by_alias=True, exclude_none=True)) <= 12_000
    assert checked.structured_content["changes"] and "chunks" not in checked.structured_content
