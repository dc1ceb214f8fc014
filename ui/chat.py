"""What each chat handler does: start a run, resume one, answer a follow-up. Thin glue over agent/.

Every user-facing failure becomes a short message: intake errors say what was wrong (size limit,
host, zip), anything else is logged with a reference and never shown as a stack trace.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import chainlit as cl
from chainlit.data import get_data_layer

from agent.answer.phrases import report_language
from agent.knowledge import knowledge_line
from ui import messages, runtime
from ui.answer import AnswerStream, history, remember
from ui.progress import ProgressView
from ui.render import final_markdown

log = logging.getLogger(__name__)


def guarded(handler: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Turn every failure into a short chat message; nothing reaches the user as a traceback."""

    @functools.wraps(handler)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        from agent.graph.service import RunBusyError
        from agent.intake import IntakeError
        from agent.redact import user_message

        try:
            return await handler(*args, **kwargs)
        except IntakeError as exc:
            await cl.Message(content=f"⚠️ {refusal_text(user_message(exc))}").send()
        except RunBusyError:
            await cl.Message(content=messages.RUN_BUSY).send()
        except Exception:  # the chat's last line of defence: logged in full, reported briefly
            ref = uuid.uuid4().hex[:8]
            log.exception("chat handler failed (ref %s)", ref)
            await cl.Message(content=messages.INTERNAL_ERROR.format(ref=ref)).send()
        return None

    return wrapper


# What git (or any tool) says on stderr starts like this; users get what to do instead.
_RAW_TOOL_OUTPUT = re.compile(r"^(fatal|error|remote|warning|git exited|ssh|hint)\b", re.I)


def refusal_text(text: str) -> str:
    """An intake refusal as the user reads it: a failed fetch says what to check, never git's stderr."""
    head, sep, detail = text.partition(": ")
    if head.startswith("Could not fetch ") and sep and _RAW_TOOL_OUTPUT.match(detail.strip()):
        return messages.FETCH_FAILED.format(what=head.removeprefix("Could not fetch "))
    return text


def _user() -> str:
    user = cl.user_session.get("user")
    return runtime.owner_of(getattr(user, "identifier", None))


async def _remember_run(run_id: str, name: str | None = None) -> None:
    """Tie the run to this thread (session + persisted thread metadata) for follow-ups and resume."""
    runs = list(cl.user_session.get("run_ids") or [])
    if run_id not in runs:
        runs.append(run_id)
    cl.user_session.set("run_id", run_id)
    cl.user_session.set("run_ids", runs)
    layer = get_data_layer()
    thread_id = cl.context.session.thread_id
    if layer is not None and thread_id:
        await layer.update_thread(thread_id, name=name, metadata={"run_id": run_id, "run_ids": runs})


def report_file(report: dict[str, Any]) -> cl.File:
    """The downloadable JSON report, in the CLI's `--format json` shape."""
    data = json.dumps(report, indent=2, ensure_ascii=False, default=str).encode("utf-8")
    return cl.File(name=f"godot-rag-{report['run_id']}.json", content=data, mime="application/json", display="inline")


async def _show_result(report: dict[str, Any]) -> None:
    elements = [report_file(report)]
    downloads = await (await runtime.service()).migration_downloads(report["run_id"]) if report.get("migration") else None
    if downloads is not None:  # the validated Godot 4 project: as a patch, and as a migrated copy
        patch, archive = downloads
        elements += [cl.File(name=f"godot4-{report['run_id']}.diff", content=patch.encode("utf-8"), mime="text/x-diff",
                             display="inline"),
                     cl.File(name=f"godot4-{report['run_id']}.zip", content=archive, mime="application/zip",
                             display="inline")]
    content = final_markdown(report)
    if partial := knowledge_line(report.get("knowledge"), report_language(report)):  # partial evidence: say so first
        content = f"ℹ️ {partial}\n\n{content}"
    await cl.Message(content=content, elements=elements).send()


async def _drive(
    title: str,
    start: Callable[[Callable[[Any], Awaitable[None]]], Awaitable[dict[str, Any]]],
    thread_name: str | None = None,
) -> None:
    """Run (or resume) with live progress, then show the final answer."""
    svc = await runtime.service()
    view = ProgressView(title)
    await view.start()
    answer = AnswerStream()

    async def on_event(event: Any) -> None:
        if await answer.on_event(event):
            return
        if view.run_id is None and event.run_id:
            await _remember_run(event.run_id, thread_name)
        if not view.seeded and event.total:
            # Once the chunks exist, list them all (waiting, or done before a resume).
            await view.seed((await svc.report(event.run_id)).get("chunks") or [])
        await view.on_event(event)

    try:
        report = await start(on_event)
    except BaseException:
        await view.stopped()  # never leave "Reading the source…" spinning next to the error
        raise
    await _remember_run(report["run_id"])
    await view.finish(report)
    await answer.finish(report)
    await _show_result(report)
    if report.get("answer"):
        await remember(svc, report.get("prompt") or title, report["answer"]["markdown"])


ESTIMATE_FROM = 100
"""Chunks from which the progress message says the expected time (a snippet is done before it could be read)."""


async def analyze(intake: Any, title: str, thread_name: str | None = None) -> None:
    """A new run for this thread's user, streamed into the chat."""
    from agent.limits import expected_time

    svc = await runtime.service()
    run_id = f"ui-{uuid.uuid4().hex[:12]}"
    cl.user_session.set("run_id", run_id)
    if getattr(intake, "chunks", 0) >= ESTIMATE_FROM:  # a project: say up front about how long it takes
        title = f"{title} — {expected_time(intake.chunks, await svc.store.chunk_rate(runtime.settings().judge))}"
    if partial := knowledge_line(await svc.knowledge()):  # the embedding fill is still going
        await cl.Message(content=f"ℹ️ {partial}").send()
    await _drive(title, lambda cb: svc.analyze(intake, run_id=run_id, owner=_user(), on_event=cb), thread_name)


@guarded
async def resume(run_id: str) -> None:
    """Continue an interrupted run from its checkpoint; finished chunks are not judged again."""
    svc = await runtime.service()
    await _drive("Resuming the analysis", lambda cb: svc.resume(run_id, on_event=cb))


async def _intake(text: str, files: list[Any]) -> tuple[Any, str]:
    """The user's input as an IntakeResult, and a title for the progress message."""
    from agent import intake as agent_intake
    from agent.chat_input import split_link, split_prompt_and_code

    settings = runtime.settings()
    if files:
        uploads = [(f.name, Path(f.path).read_bytes()) for f in files]
        names = ", ".join(name for name, _ in uploads)
        result = await asyncio.to_thread(agent_intake.intake_uploads, uploads, prompt=text, settings=settings)
        return result, f"Analysing {names}"
    link, prompt = split_link(text)
    if link:
        result = await asyncio.to_thread(agent_intake.intake_github, link, prompt=prompt, settings=settings)
        return result, f"Analysing {link}"
    prompt, code = split_prompt_and_code(text)
    # in a thread like the others: intake chunks the code to apply the chunk cap
    result = await asyncio.to_thread(agent_intake.intake_snippet, code, prompt=prompt, settings=settings)
    return result, "Analysing your snippet"


async def followup(question: str) -> None:
    """Answer about the thread's stored run (report + retrieval); never re-runs the analysis."""
    from agent.followup import answer_for_run

    svc = await runtime.service()
    answer = await answer_for_run(svc, cl.user_session.get("run_id"), question, history=await history(svc))
    await cl.Message(content=answer.text).send()
    await remember(svc, question, answer.text)


@guarded
async def on_message(message: cl.Message) -> None:
    """Route a message: empty → hint, follow-up → answer, else a new analysis."""
    from agent.chat_input import has_code, split_link
    from agent.followup import is_followup

    text = (message.content or "").strip()
    files = [e for e in (message.elements or []) if getattr(e, "path", None)]
    if not text and not files:
        await cl.Message(content=messages.EMPTY_HINT).send()
        return
    if not files and is_followup(text, has_run=bool(cl.user_session.get("run_id"))):
        await followup(text)
        return
    if not files and not has_code(text) and not split_link(text)[0]:
        await cl.Message(content=messages.QUESTION_WITHOUT_CODE).send()  # a question, not code to analyse
        return
    if not text:
        message.content = "Attached: " + ", ".join(f.name for f in files)  # not an empty bubble
        await message.update()
    try:
        intake, title = await _intake(text, files)
        # Chainlit names a thread after its first text; an upload without text gets the file names.
        await analyze(intake, title, thread_name=None if text else title.removeprefix("Analysing "))
    finally:
        if not text:
            await _first_interaction(message.content)


async def _first_interaction(text: str) -> None:
    """Tell the browser the thread has begun, with a non-empty text.

    Chainlit announces a thread's first interaction with the first message's text; for a message of
    files alone that text is empty, and the browser then keeps the feedback buttons disabled for the
    whole chat. Sent after the handler's work, so Chainlit's own (empty) announcement is already past.
    """
    await cl.context.emitter.emit("first_interaction", {"interaction": text, "thread_id": cl.context.session.thread_id})


async def greet() -> None:
    """The greeting with its examples; while the embedding fill runs, a line on how far it has come."""
    from agent.knowledge import current_knowledge
    from agent.storage import DatabaseError

    content = messages.GREETING
    try:
        partial = knowledge_line(await asyncio.to_thread(current_knowledge, runtime.settings()))
    except DatabaseError:  # the greeting never fails on the database; an analysis will say what is wrong
        partial = None
    if partial:
        content += f"\n\nℹ️ {partial}"
    await cl.Message(content=content, actions=example_actions()).send()


def example_actions() -> list[cl.Action]:
    """Buttons under the greeting that send a ready-made example, so a newcomer can start with a click."""
    return [cl.Action(name="try_example", label=label, payload={"example": key})
            for key, (label, _text) in messages.EXAMPLES.items()]


async def try_example(key: str) -> None:
    """Send the example as the user's own message, then handle it like any other."""
    label, text = messages.EXAMPLES[key]
    message = cl.Message(content=text, type="user_message")
    await message.send()
    await on_message(message)
    layer = get_data_layer()  # Chainlit names a thread begun by an action after the action ("try_example")
    if layer is not None and cl.context.session.thread_id:
        await layer.update_thread(cl.context.session.thread_id, name=label.removeprefix("Try: "))


def _json_dict(value: Any) -> dict[str, Any]:
    """Chainlit's metadata, stored as JSON text or as a dict."""
    if isinstance(value, str):
        value = json.loads(value or "{}")
    return value if isinstance(value, dict) else {}


RESUME_OFFER = "resume_offer"
"""metadata mark of the offer message, so a reopened thread shows only the fresh one"""


async def on_resume(thread: dict[str, Any]) -> None:
    """Reopened thread: restore its run, then offer Resume once if there is something to resume.

    Chainlit replays `thread` to the browser only after this handler returns, and that replay
    drops live actions; so earlier offers are taken out of the replay (and the database) here,
    and the one fresh offer is sent from a task that runs after the replay.
    """
    meta = _json_dict(thread.get("metadata"))
    old = [s for s in thread.get("steps") or [] if _json_dict(s.get("metadata")).get("godot_rag") == RESUME_OFFER]
    if old:
        thread["steps"] = [s for s in thread["steps"] if s not in old]
        layer = get_data_layer()
        for step in old:
            if layer is not None:
                await layer.delete_step(step["id"])
    run_id = meta.get("run_id")
    if not run_id:
        return
    cl.user_session.set("run_id", run_id)
    cl.user_session.set("run_ids", meta.get("run_ids") or [run_id])
    asyncio.create_task(_offer_resume(run_id, asyncio.get_running_loop().time()))


def resumable(report: dict[str, Any]) -> bool:
    """Interrupted or failed with chunks left to judge; a run with no chunks has nothing to resume."""
    progress = report.get("progress") or {}
    total, done = progress.get("total", 0), progress.get("done", 0)
    return report.get("status") in {"interrupted", "failed"} and total > 0 and done < total


@guarded
async def _offer_resume(run_id: str, reopened_at: float) -> None:
    svc = await runtime.service()
    report = await svc.report(run_id)
    if not resumable(report):
        return
    # let Chainlit's thread replay reach the browser first (it is emitted right after on_resume)
    await asyncio.sleep(max(0.0, 0.5 - (asyncio.get_running_loop().time() - reopened_at)))
    progress = report.get("progress") or {}
    await cl.Message(
        content=messages.RESUMABLE.format(done=progress.get("done", 0), total=progress.get("total", 0)),
        actions=[cl.Action(name="resume_analysis", label="Resume analysis", payload={"run_id": run_id})],
        metadata={"godot_rag": RESUME_OFFER},
    ).send()
