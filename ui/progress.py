"""Live progress of one run in the chat: a task list row per chunk, counts, a bar, and a trace step per chunk.

Driven by the service's `on_event` callback (the graph's stream), never by polling.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import chainlit as cl

from agent.present import is_neutral
from ui.render import STATUS_WORD, chunk_label, chunk_step_name, display_path, progress_line, trace_markdown

_TASK_STATUS = {
    "done": cl.TaskStatus.DONE,
    "processing": cl.TaskStatus.RUNNING,
    "failed": cl.TaskStatus.FAILED,
    "stopped": cl.TaskStatus.FAILED,
}
_MIN_REFRESH_S = 0.4


def _is_neutral(trace: dict[str, Any] | None) -> bool:
    """No version signal and nothing to change: the chunk's trace is folded away with its kind."""
    return is_neutral({"status": "done", "judgment": (trace or {}).get("judgment")})


def _kind_of(chunk_id: str | None) -> str:
    """`player.gd:function:_process` -> `function` (paths may contain `:` as in `pasted://`)."""
    parts = (chunk_id or "").rsplit(":", 2)
    return parts[1] if len(parts) == 3 else ""


class ProgressView:
    """Everything the user sees while a run works; `on_event` is the service callback."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.task_list = cl.TaskList(status="Starting…")
        self.tasks: dict[str, cl.Task] = {}
        self.states: dict[str, str] = {}
        self.chunks: dict[str, dict[str, Any]] = {}
        self.message = cl.Message(content=f"**{title}**\n\nReading the source…")
        self.trace_root = cl.Step(name="Per-chunk trace", type="tool", default_open=False)
        self.done = 0
        self.total = 0
        self.run_id: str | None = None
        self._last_refresh = 0.0
        self.seeded = False
        self.groups: dict[str, cl.Step] = {}
        """trace containers: one per file (projects only) and one for each file's neutral chunks"""
        self.neutral: Counter[str] = Counter()

    async def start(self) -> None:
        """Show the progress message, the (empty) task list and the trace container."""
        await self.message.send()
        self.trace_root.output = "One trace per chunk: what was tracked, what was searched, what was found, the judgment."
        await self.trace_root.send()

    async def on_event(self, event: Any) -> None:
        """Apply one ProgressEvent (run_started | files | chunk_status | run_finished)."""
        self.run_id = event.run_id or self.run_id
        self.total = max(self.total, event.total or 0)
        self.done = event.done if event.done is not None else self.done
        if event.kind == "chunk_status" and event.chunk_id:
            await self._chunk(event)
        force = event.kind != "chunk_status"
        if event.message and event.kind in {"run_started", "files"}:
            self.message.content = f"**{self.title}**\n\n{event.message}"
        await self._refresh(force=force)

    async def seed(self, chunks: list[dict[str, Any]]) -> None:
        """One row per chunk of the run up front (done ones from before a resume show as done)."""
        for c in chunks:
            state = c.get("state") or c.get("status") or "waiting"
            await self._set(dict(c), "waiting" if state == "pending" else state)
        self.seeded = True

    async def _chunk(self, event: Any) -> None:
        chunk = dict(self.chunks.get(event.chunk_id) or {})
        chunk.update(
            chunk_id=event.chunk_id,
            chunk_order=event.chunk_order,
            source_file=event.source_file or "",
            start_line=event.start_line,
            end_line=event.end_line,
        )
        chunk.setdefault("chunk_kind", _kind_of(event.chunk_id))
        status = event.status or "waiting"
        await self._set(chunk, status)
        if status in {"done", "failed"}:
            parent = await self._parent_of(chunk, neutral=status == "done" and _is_neutral(event.trace))
            step = cl.Step(name=chunk_step_name(chunk), type="tool", parent_id=parent.id, default_open=False)
            if status == "failed":
                step.is_error = True
                step.output = f"This chunk failed: {event.message or 'no reason given'}"
            else:
                step.output = trace_markdown(chunk, event.trace)
            await step.send()
            self.tasks[event.chunk_id].forId = step.id

    async def _group(self, key: str, name: str, parent: cl.Step, output: str) -> cl.Step:
        step = self.groups.get(key)
        if step is None:
            step = cl.Step(name=name, type="tool", parent_id=parent.id, default_open=False)
            step.output = output
            await step.send()
            self.groups[key] = step
        return step

    async def _parent_of(self, chunk: dict[str, Any], *, neutral: bool) -> cl.Step:
        """Where a chunk's trace goes: under its file (in a project), neutral chunks folded into their own group."""
        path = display_path(chunk.get("source_file", ""))
        parent = self.trace_root
        if len({c.get("source_file") for c in self.chunks.values()}) > 1:
            parent = await self._group(f"file:{path}", path, parent, f"The chunks of {path}, in file order.")
        if not neutral:
            return parent
        self.neutral[path] += 1
        group = await self._group(
            f"neutral:{path}", f"{path}: chunks with no version signal", parent,
            "Chunks that say nothing about Godot 3 or 4 and need no change (folded away).",
        )
        return group

    async def _set(self, chunk: dict[str, Any], status: str) -> None:
        """Create or update the chunk's task row."""
        chunk_id = chunk["chunk_id"]
        self.chunks[chunk_id] = chunk
        self.states[chunk_id] = status
        label = chunk_label(chunk.get("source_file", ""), chunk.get("start_line"), chunk.get("end_line"))
        task = self.tasks.get(chunk_id)
        if task is None:
            task = cl.Task(title=label)
            self.tasks[chunk_id] = task
            await self.task_list.add_task(task)
        task.title = f"{label} · {STATUS_WORD.get(status, status)}"
        task.status = _TASK_STATUS.get(status, cl.TaskStatus.READY)

    def counts(self) -> dict[str, int]:
        """Chunks per status word (done, processing, waiting, …) as the user reads them."""
        words = Counter(STATUS_WORD.get(s, s) for s in self.states.values())
        unseen = max(self.total - len(self.states), 0)
        if unseen:
            words["waiting"] += unseen
        return {w: words[w] for w in ("done", "processing", "waiting", "stopped", "failed") if words[w]}

    async def _refresh(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_refresh < _MIN_REFRESH_S:
            return
        self._last_refresh = now
        line = progress_line(self.done, self.total, self.counts()) if self.total else "Reading the source…"
        self.task_list.status = f"{self.done}/{self.total} chunks" if self.total else "Starting…"
        await self.task_list.send()
        self.message.content = f"**{self.title}**\n\n{line}"
        await self.message.update()

    async def finish(self, report: dict[str, Any]) -> None:
        """Final counts from the report (the authority), then the last refresh."""
        for c in report.get("chunks") or []:
            state = c.get("state") or c.get("status")
            if c["chunk_id"] in self.tasks and state:
                self.states[c["chunk_id"]] = state
                task = self.tasks[c["chunk_id"]]
                task.status = _TASK_STATUS.get(state, cl.TaskStatus.READY)
                task.title = f"{chunk_label(c['source_file'], c['start_line'], c['end_line'])} · {STATUS_WORD.get(state, state)}"
        progress = report.get("progress") or {}
        self.done = progress.get("done", self.done)
        self.total = progress.get("total", self.total)
        status = report.get("status", "")
        self.trace_root.output = (
            f"One trace per chunk ({len(self.chunks)}): what was tracked, what was searched, what was found, "
            f"the judgment. Run `{report.get('run_id')}` {status}."
        )
        await self.trace_root.update()
        await self._refresh(force=True)
        self.task_list.status = f"{status}: {self.done}/{self.total} chunks"
        await self.task_list.send()

    async def stopped(self) -> None:
        """The run raised: end the progress display (the error message that follows says what to do)."""
        for chunk_id, state in list(self.states.items()):
            if state in {"processing", "waiting", "pending"}:
                self.states[chunk_id] = "stopped"
                self.tasks[chunk_id].status = cl.TaskStatus.FAILED
        line = progress_line(self.done, self.total, self.counts()) + "\n\n" if self.total else ""
        self.message.content = f"**{self.title}**\n\n{line}Stopped: this analysis did not finish."
        await self.message.update()
        if self.tasks:
            self.task_list.status = f"stopped: {self.done}/{self.total} chunks"
            await self.task_list.send()
        self.trace_root.output = "The analysis stopped before every chunk was judged."
        await self.trace_root.update()
