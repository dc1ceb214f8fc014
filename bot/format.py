"""Turn service reports into Discord messages: progress lines, result embeds, report files.

Pure functions: they take the report dict (the CLI `--format json` object plus the extra keys)
and return discord.py objects that already respect every Discord limit, with user-provided
text neutralized so it can never ping anyone.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import discord

from bot import limits
from bot.limits import clip
from bot.safety import code_block, safe_text

COLORS = {
    "godot3": discord.Colour.orange(),
    "godot4": discord.Colour.green(),
    "mixed": discord.Colour.gold(),
    "ambiguous": discord.Colour.light_grey(),
}
_RUN_ID_SAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass
class OutgoingMessage:
    """Keyword arguments for one `send`: content, embeds and files, all within limits."""

    content: str | None = None
    embeds: list[discord.Embed] = field(default_factory=list)
    files: list[discord.File] = field(default_factory=list)
    truncated: bool = False
    """True when the embed had to leave something out (the report file then carries it)."""

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `Messageable.send`."""
        out: dict[str, Any] = {"allowed_mentions": discord.AllowedMentions.none()}
        if self.content:
            out["content"] = self.content
        if self.embeds:
            out["embeds"] = self.embeds
        if self.files:
            out["files"] = self.files
        return out


_PASTED = re.compile(r"pasted://snippet-[0-9a-f]+\.\w+")


def display_path(text: str) -> str:
    """Pasted snippets are called `snippet`, not by their internal `pasted://snippet-<id>.gd` name."""
    return _PASTED.sub("snippet", text)


def lines_label(source_file: str | None, start: int | None, end: int | None) -> str:
    """`player.gd:L20-L34` (or `:L7` for one line)."""
    where = display_path(source_file or "?")
    if start is None:
        return where
    return f"{where}:L{start}" if start == end or end is None else f"{where}:L{start}-L{end}"


def progress_text(state: dict[str, Any], label: str = "") -> str:
    """`12/40 chunks, player.gd L20-L34 processing` with a short stage prefix."""
    done, total, stage = state.get("done", 0), state.get("total", 0), state.get("stage", "queued")
    head = f"Analyzing {label}" if label else "Analyzing"
    if stage == "queued":
        body = "queued"
    elif stage in ("started",) or not total:
        body = "reading and parsing the sources"
    else:
        body = f"{done}/{total} chunks"
        current = state.get("current")
        if current and stage != "finished":
            path, start, end = current
            span = f"L{start}" if start == end else f"L{start}-L{end}"
            body += f", {display_path(str(path))} {span} processing"
    if stage == "finished":
        body += ", finished"
    text = f"{head}: {body}"
    if state.get("note"):
        text += f"\n{state['note']}"
    return clip(safe_text(text), limits.CONTENT)


def thread_name(label: str) -> str:
    """A thread name within Discord's 100 characters, mention-safe."""
    return clip(safe_text(f"godot-rag: {label}").replace("\n", " "), limits.THREAD_NAME)


def embed_size(embed: discord.Embed) -> int:
    """Characters Discord counts toward the 6,000 total (title, description, fields, footer, author)."""
    return len(embed)


def _counts_line(counts: dict[str, Any]) -> str:
    return " · ".join(f"{k} {counts.get(k, 0)}" for k in ("godot3", "godot4", "neutral"))


def _chunk_status_line(chunks: list[dict[str, Any]]) -> str:
    c = Counter(ch.get("status", "?") for ch in chunks)
    return ", ".join(f"{n} {s}" for s, n in sorted(c.items()))


def _item_field(item: dict[str, Any]) -> tuple[str, str]:
    name = lines_label(item.get("source_file"), item.get("start_line"), item.get("end_line"))
    old, new = item.get("old") or "?", item.get("new")
    value = f"`{clip(safe_text(str(old)), 300)}` → " + (
        f"`{clip(safe_text(str(new)), 300)}`" if new else "(removed)"
    )
    if item.get("docs_url"):
        value += f"\n[docs]({clip(str(item['docs_url']), 400)})"
    return clip(safe_text(name), limits.EMBED_FIELD_NAME), clip(value, limits.EMBED_FIELD_VALUE)


def _evidence_line(ev: dict[str, Any]) -> str:
    title = ev.get("title") or ev.get("record_id") or "?"
    url = ev.get("source_url")
    text = f"{ev.get('table', '?')}: {title}"
    if ev.get("source_api") or ev.get("target_api"):
        text += f" ({ev.get('source_api')} → {ev.get('target_api')})"
    return f"[{text}]({url})" if url else text


def result_message(
    report: dict[str, Any], *, top_items: int = 10, question: str | None = None
) -> OutgoingMessage:
    """The result post: one embed within every limit, plus report files when detail does not fit."""
    verdict = report.get("verdict") or {}
    label = verdict.get("label", "ambiguous")
    status = report.get("status", "completed")
    chunks: list[dict[str, Any]] = report.get("chunks") or []
    items: list[dict[str, Any]] = report.get("migration_items") or []
    excluded = report.get("excluded_files") or []
    run_id = str(report.get("run_id", "?"))
    truncated = False

    title = f"Verdict: {label}"
    if verdict.get("migration_required"):
        title += " (migration required)"
    if status != "completed":
        title = f"Run {status}: " + title
    embed = discord.Embed(
        title=clip(title, limits.EMBED_TITLE), colour=COLORS.get(label, COLORS["ambiguous"])
    )

    parts: list[str] = []
    if question:
        parts.append(f"**Question:** {clip(safe_text(question), 300)}")
    if verdict.get("summary"):  # its first line; the item list it goes on with is in the fields
        parts.append(clip(safe_text(display_path(str(verdict["summary"]).strip().split("\n")[0])), 1200))
    statuses = _chunk_status_line(chunks) or "none"
    parts.append(f"**Chunks:** {len(chunks)} ({statuses}) · {_counts_line(verdict.get('counts') or {})}")
    parts.append(f"**Excluded files:** {len(excluded)}")
    if status != "completed":
        parts.append(f"Not finished: use `/resume {clip(run_id, 80)}` to continue.")
    answer = report.get("direct_answer") or {}
    answer_text = answer.get("answer") or answer.get("text")
    if answer_text:
        parts.append("**Answer:** " + clip(safe_text(display_path(str(answer_text))), 1200))
    description = "\n".join(parts)
    if answer.get("suggested_code"):
        room = limits.EMBED_DESCRIPTION - len(description) - 40
        block = code_block(str(answer["suggested_code"]), "gdscript", limit=room) if room > 60 else ""
        if block and block.count("\n") and not block.endswith("…\n```"):
            description += "\n**Suggested Godot 4 code:**\n" + block
        else:
            truncated = True
            if block:
                description += "\n**Suggested Godot 4 code (cut; full code in the report):**\n" + block
    if len(description) > limits.EMBED_DESCRIPTION:
        description, truncated = clip(description, limits.EMBED_DESCRIPTION), True
    embed.description = description

    shown = items[: max(0, min(top_items, limits.EMBED_FIELDS - 2))]
    for item in shown:
        name, value = _item_field(item)
        embed.add_field(name=name, value=value, inline=False)
    if len(items) > len(shown):
        truncated = True
        embed.add_field(
            name="More migration items",
            value=f"{len(items) - len(shown)} more in the attached report.",
            inline=False,
        )

    inline_detail = len(chunks) <= 1 and not truncated
    if inline_detail and chunks:
        ch = chunks[0]
        j = ch.get("judgment") or {}
        if j:
            value = f"{j.get('label')} · {j.get('version_signal')} · confidence {j.get('confidence')}\n"
            value += safe_text(str(j.get("rationale") or ""))
            embed.add_field(name="Judgment", value=clip(value, limits.EMBED_FIELD_VALUE), inline=False)
        ev = ch.get("evidence") or []
        if ev:
            value = "\n".join(safe_text(_evidence_line(e)) for e in ev)
            if len(value) > limits.EMBED_FIELD_VALUE:
                inline_detail = False
            embed.add_field(name="Evidence", value=clip(value, limits.EMBED_FIELD_VALUE), inline=False)

    embed.set_footer(text=clip(f"run {run_id} · /status {run_id}", limits.EMBED_FOOTER))
    while embed_size(embed) > limits.EMBED_TOTAL and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
        truncated = True
    if embed_size(embed) > limits.EMBED_TOTAL:  # only a huge description is left: cut it
        over = embed_size(embed) - limits.EMBED_TOTAL
        embed.description = clip(embed.description or "", len(embed.description or "") - over)
        truncated = True

    msg = OutgoingMessage(embeds=[embed], truncated=truncated)
    if truncated or not inline_detail or len(chunks) > 1:
        msg.files = report_files(report)
    return msg


def _safe_run_id(run_id: str) -> str:
    return _RUN_ID_SAFE.sub("-", run_id)[:40] or "run"


def report_markdown(report: dict[str, Any]) -> str:
    """Full detail as Markdown: verdict, migration items, excluded files, every chunk with evidence."""
    v = report.get("verdict") or {}
    out = [f"# godot-rag report {report.get('run_id')}", ""]
    out.append(f"- status: {report.get('status')}")
    out.append(f"- verdict: {v.get('label')} (migration required: {v.get('migration_required')})")
    out.append(f"- counts: {_counts_line(v.get('counts') or {})}")
    if report.get("prompt"):
        out.append(f"- question: {report['prompt']}")
    if v.get("summary"):
        out += ["", str(v["summary"])]
    answer = report.get("direct_answer") or {}
    if answer.get("answer") or answer.get("text"):
        out += ["", "## Answer", "", str(answer.get("answer") or answer.get("text"))]
    if answer.get("suggested_code"):
        out += ["", "```gdscript", str(answer["suggested_code"]).rstrip("\n"), "```"]
    items = report.get("migration_items") or []
    if items:
        out += ["", "## Migration items", ""]
        for it in items:
            where = lines_label(it.get("source_file"), it.get("start_line"), it.get("end_line"))
            line = f"- {where}: `{it.get('old')}` → `{it.get('new')}`"
            if it.get("docs_url"):
                line += f" ([docs]({it['docs_url']}))"
            out.append(line)
    excluded = report.get("excluded_files") or []
    if excluded:
        out += ["", "## Excluded files", ""]
        out += [f"- {e.get('path')}: {e.get('reason')}" for e in excluded]
    chunks = report.get("chunks") or []
    out += ["", f"## Chunks ({len(chunks)})"]
    for ch in chunks:
        j = ch.get("judgment") or {}
        where = lines_label(ch.get("source_file"), ch.get("start_line"), ch.get("end_line"))
        out += ["", f"### {ch.get('chunk_order')}. {where} ({ch.get('chunk_kind')}) — {ch.get('status')}"]
        if j:
            out.append(
                f"- judgment: {j.get('label')} / {j.get('version_signal')}"
                f" / migration {j.get('migration_required')} / confidence {j.get('confidence')}"
            )
            out.append(f"- rationale: {j.get('rationale')}")
            if j.get("evidence_ids"):
                out.append(f"- cited: {', '.join(map(str, j['evidence_ids']))}")
        if ch.get("query_terms"):
            out.append(f"- query terms: {', '.join(map(str, ch['query_terms']))}")
        for ev in ch.get("evidence") or []:
            out.append(f"  - {_evidence_line(ev)} (score {ev.get('score')}, id {ev.get('record_id')})")
    return "\n".join(out) + "\n"


def _file(data: bytes, name: str) -> discord.File:
    if len(data) > limits.FILE_BYTES:
        note = b"\n\n[report cut at Discord's upload limit; use `godot-rag show RUN_ID` for the rest]\n"
        data = data[: limits.FILE_BYTES - len(note)] + note
    return discord.File(io.BytesIO(data), filename=name)


def report_files(report: dict[str, Any]) -> list[discord.File]:
    """The full report as Markdown (for people) and JSON (for scripts), each under the upload cap."""
    rid = _safe_run_id(str(report.get("run_id", "run")))
    md = report_markdown(report).encode("utf-8")
    js = json.dumps(report, indent=1, ensure_ascii=False, default=str).encode("utf-8")
    files = [_file(md, f"godot-rag-{rid}.md")]
    if len(md) + len(js) <= limits.FILE_BYTES:
        files.append(_file(js, f"godot-rag-{rid}.json"))
    return files


def status_embed(report: dict[str, Any], *, running_here: bool = False) -> discord.Embed:
    """Where a run stands: status, chunk counts, verdict when complete."""
    run_id = str(report.get("run_id", "?"))
    chunks = report.get("chunks") or []
    status = report.get("status", "?")
    if running_here and status != "completed":
        status = "running"
    embed = discord.Embed(title=clip(f"Run {run_id}: {status}", limits.EMBED_TITLE))
    done = sum(1 for c in chunks if c.get("status") == "done")
    lines = [f"**Chunks:** {done}/{len(chunks)} done ({_chunk_status_line(chunks) or 'none'})"]
    verdict = report.get("verdict") or {}
    if status == "completed" and verdict:
        lines.append(f"**Verdict:** {verdict.get('label')} · {_counts_line(verdict.get('counts') or {})}")
    elif status not in ("running", "completed"):
        lines.append(f"Use `/resume {clip(run_id, 80)}` to continue it.")
    files = report.get("files") or []
    lines.append(f"**Files:** {len(files)} analyzed, {len(report.get('excluded_files') or [])} excluded")
    embed.description = clip(safe_text("\n".join(lines)), limits.EMBED_DESCRIPTION)
    return embed


def runs_embed(runs: list[dict[str, Any]], *, limit: int = 20) -> discord.Embed:
    """The user's own runs, newest first, one line each."""
    embed = discord.Embed(title="Your runs")
    if not runs:
        embed.description = "No runs yet. Start one with `/analyze`."
        return embed
    lines = []
    for r in runs[:limit]:
        verdict = r.get("verdict") or {}
        label = verdict.get("label") if isinstance(verdict, dict) else verdict
        when = str(r.get("created_at") or r.get("started_at") or "")[:16]
        source = r.get("source_file") or r.get("source") or ""
        line = f"`{r.get('run_id')}` {r.get('status', '?')}"
        if label:
            line += f" · {label}"
        if source:
            line += f" · {clip(str(source), 60)}"
        if when:
            line += f" · {when}"
        lines.append(line)
    if len(runs) > limit:
        lines.append(f"…and {len(runs) - limit} older runs.")
    embed.description = clip(safe_text("\n".join(lines)), limits.EMBED_DESCRIPTION)
    return embed


def help_embed() -> discord.Embed:
    """What the bot does and how to ask, written for users."""
    embed = discord.Embed(
        title="godot-rag: is this Godot 3 or Godot 4 code?",
        description=(
            "I read your GDScript, scenes or project chunk by chunk and tell you, with evidence from the "
            "official Godot docs, whether it is Godot 3 or Godot 4 code and what must change to migrate."
        ),
    )
    embed.add_field(
        name="/analyze",
        value=(
            "Give **one** of: `code` (a snippet), `file` (.gd, .tscn, .tres, project.godot or a .zip of a "
            "project) or `repo` (a https://github.com/owner/repo link). Add an optional `question`. "
            "I work in a thread and post the verdict there."
        ),
        inline=False,
    )
    embed.add_field(
        name="Analyze with godot-rag",
        value=(
            "Right-click a message with a ``` code block or an attachment → Apps → Analyze with godot-rag."
        ),
        inline=False,
    )
    embed.add_field(
        name="/status, /resume, /runs",
        value=(
            "`/status run_id` shows where a run stands, `/resume run_id` continues an interrupted run, "
            "`/runs` lists your own runs."
        ),
        inline=False,
    )
    return embed
