"""Turn service reports into Discord messages: progress lines, result embeds, report files.

Pure functions: they take the run's `Report` (agent.graph.report; its JSON form is the CLI's
`--format json` object) and return discord.py objects that already respect every Discord
limit, with user-provided text neutralized so it can never ping anyone.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import discord

from agent.graph.report import ChunkReport, Evidence, MigrationItem, Report
from agent.knowledge import knowledge_line
from agent.present import replacement_words, source_words

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
    if stage == "answering":
        body += ", writing the answer"
    if stage == "finished":
        body += ", finished"
    text = f"{head}: {body}"
    if state.get("note"):
        text += f"\n{state['note']}"
    draft = state.get("answer")
    if draft and stage == "answering":
        room = limits.CONTENT - len(text) - 8
        text += "\n\n" + (draft if len(draft) <= room else "…" + draft[-(room - 1):])
    return clip(safe_text(text), limits.CONTENT)


_BARE_URL = re.compile(r"(?<![<(])(https?://[^\s<>)\]]+)")
FULL_ANSWER_ATTACHED = "…(the full answer is in the attached report)"


def fit(text: str, limit: int = limits.CONTENT, tail: str = limits.ELLIPSIS) -> str:
    """Discord's content limit without cutting a code fence open: cut at a paragraph, close the fence."""
    if len(text) <= limit:
        return text
    cut = text[: limit - len(tail) - 8]
    para = cut.rfind("\n\n")
    cut = cut[:para] if para > limit // 2 else cut
    if cut.count("```") % 2:
        cut += "\n```"
    return cut + "\n" + tail


def answer_content(markdown: str) -> tuple[str, bool]:
    """The answer as message content: links kept from unfurling, within Discord's limit; (text, cut)."""
    text = _BARE_URL.sub(r"<\1>", safe_text(display_path(markdown.strip())))
    shown = fit(text, tail=FULL_ANSWER_ATTACHED)
    return shown, shown != text


def thread_name(label: str) -> str:
    """A thread name within Discord's 100 characters, mention-safe."""
    return clip(safe_text(f"godot-rag: {label}").replace("\n", " "), limits.THREAD_NAME)


def embed_size(embed: discord.Embed) -> int:
    """Characters Discord counts toward the 6,000 total (title, description, fields, footer, author)."""
    return len(embed)


def _counts_line(counts: dict[str, Any]) -> str:
    return " · ".join(f"{k} {counts.get(k, 0)}" for k in ("godot3", "godot4", "neutral"))


def _chunk_status_line(chunks: list[ChunkReport]) -> str:
    c = Counter(ch.status for ch in chunks)
    return ", ".join(f"{n} {s}" for s, n in sorted(c.items()))


def _item_field(item: MigrationItem) -> tuple[str, str]:
    name = lines_label(item.source_file, item.start_line, item.end_line)
    old, new = item.old or "?", item.new
    value = f"`{clip(safe_text(str(old)), 300)}` → " + (
        f"`{clip(safe_text(str(new)), 300)}`" if new else replacement_words(None, item.change_type)
    )
    if item.docs_url:
        value += f"\n[docs]({clip(item.docs_url, 400)})"
    return clip(safe_text(name), limits.EMBED_FIELD_NAME), clip(value, limits.EMBED_FIELD_VALUE)


def _evidence_line(ev: Evidence) -> str:
    text = f"{source_words(ev.table, ev.doc_version)}: {ev.title or ev.record_id}"
    if ev.source_api or ev.target_api:
        text += f" ({ev.source_api} → {ev.target_api})"
    return f"[{text}]({ev.source_url})" if ev.source_url else text


def result_message(report: Report, *, top_items: int = 10, question: str | None = None) -> OutgoingMessage:
    """The result post: one embed within every limit, plus report files when detail does not fit."""
    verdict = report.verdict
    label = verdict.label
    status = report.status
    chunks = report.chunks
    items = report.migration_items
    excluded = report.excluded_files
    run_id = report.run_id
    truncated = False

    title = f"Verdict: {label}"
    if verdict.migration_required:
        title += " (migration required)"
    if status != "completed":
        title = f"Run {status}: " + title
    embed = discord.Embed(
        title=clip(title, limits.EMBED_TITLE), colour=COLORS.get(label, COLORS["ambiguous"])
    )

    parts: list[str] = []
    if question:
        parts.append(f"**Question:** {clip(safe_text(question), 300)}")
    if verdict.summary:  # its first line; the item list it goes on with is in the fields
        parts.append(clip(safe_text(display_path(verdict.summary.strip().split("\n")[0])), 1200))
    statuses = _chunk_status_line(chunks) or "none"
    parts.append(f"**Chunks:** {len(chunks)} ({statuses}) · {_counts_line(verdict.counts.model_dump())}")
    parts.append(f"**Excluded files:** {len(excluded)}")
    if partial := knowledge_line(report.knowledge.model_dump() if report.knowledge else None):
        parts.append(partial)
    if status != "completed":
        parts.append(f"Not finished: use `/resume {clip(run_id, 80)}` to continue.")
    written = (report.answer or {}).get("markdown")  # the answer step's validated reply, as content
    answer = None if written else report.direct_answer
    if answer and answer.answer:
        parts.append("**Answer:** " + clip(safe_text(display_path(answer.answer)), 1200))
    description = "\n".join(parts)
    if answer and answer.suggested_code:
        room = limits.EMBED_DESCRIPTION - len(description) - 40
        block = code_block(answer.suggested_code, "gdscript", limit=room) if room > 60 else ""
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
        j = ch.judgment
        if j:
            value = f"{j.label} · {j.version_signal} · confidence {j.confidence}\n"
            value += safe_text(j.rationale)
            embed.add_field(name="Judgment", value=clip(value, limits.EMBED_FIELD_VALUE), inline=False)
        ev = ch.evidence
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

    content = None
    if written:
        content, cut = answer_content(written)
        truncated = truncated or cut
    msg = OutgoingMessage(content=content, embeds=[embed], truncated=truncated)
    if truncated or not inline_detail or len(chunks) > 1:
        msg.files = report_files(report)
    return msg


def _safe_run_id(run_id: str) -> str:
    return _RUN_ID_SAFE.sub("-", run_id)[:40] or "run"


def report_markdown(report: Report) -> str:
    """Full detail as Markdown: verdict, migration items, excluded files, every chunk with evidence."""
    v = report.verdict
    out = [f"# godot-rag report {report.run_id}", ""]
    out.append(f"- status: {report.status}")
    out.append(f"- verdict: {v.label} (migration required: {v.migration_required})")
    out.append(f"- counts: {_counts_line(v.counts.model_dump())}")
    if report.prompt:
        out.append(f"- question: {report.prompt}")
    if v.summary:
        out += ["", v.summary]
    written = (report.answer or {}).get("markdown")
    answer = None if written else report.direct_answer
    if written:
        out += ["", "## Answer", "", written]
    if answer and answer.answer:
        out += ["", "## Answer", "", answer.answer]
    if answer and answer.suggested_code:
        out += ["", "```gdscript", answer.suggested_code.rstrip("\n"), "```"]
    if report.migration_items:
        out += ["", "## Migration items", ""]
        for it in report.migration_items:
            line = f"- {lines_label(it.source_file, it.start_line, it.end_line)}: `{it.old}` → `{it.new}`"
            if it.docs_url:
                line += f" ([docs]({it.docs_url}))"
            out.append(line)
    if report.excluded_files:
        out += ["", "## Excluded files", ""]
        out += [f"- {e.path}: {e.reason}" for e in report.excluded_files]
    out += ["", f"## Chunks ({len(report.chunks)})"]
    for ch in report.chunks:
        j = ch.judgment
        where = lines_label(ch.source_file, ch.start_line, ch.end_line)
        out += ["", f"### {ch.chunk_order}. {where} ({ch.chunk_kind}) — {ch.status}"]
        if j:
            out.append(f"- judgment: {j.label} / {j.version_signal} / migration {j.migration_required}"
                       f" / confidence {j.confidence}")
            out.append(f"- rationale: {j.rationale}")
            if j.evidence_ids:
                out.append(f"- cited: {', '.join(j.evidence_ids)}")
        if ch.query_terms:
            out.append(f"- query terms: {', '.join(ch.query_terms)}")
        for ev in ch.evidence:
            out.append(f"  - {_evidence_line(ev)} (score {ev.score}, id {ev.record_id})")
    return "\n".join(out) + "\n"


def _file(data: bytes, name: str) -> discord.File:
    if len(data) > limits.FILE_BYTES:
        note = b"\n\n[report cut at Discord's upload limit; use `godot-rag show RUN_ID` for the rest]\n"
        data = data[: limits.FILE_BYTES - len(note)] + note
    return discord.File(io.BytesIO(data), filename=name)


def patch_file(run_id: str, patch: str) -> discord.File | None:
    """The migration's unified diff as an attachment, when it fits Discord's upload limit whole (a cut patch
    would not apply: then the report points to `godot-rag migrate`)."""
    data = patch.encode("utf-8")
    if not data or len(data) > limits.FILE_BYTES:
        return None
    return discord.File(io.BytesIO(data), filename=f"godot4-{_safe_run_id(run_id)}.diff")


def report_files(report: Report) -> list[discord.File]:
    """The full report as Markdown (for people) and JSON (the CLI's, for scripts), each under the upload cap."""
    rid = _safe_run_id(report.run_id)
    md = report_markdown(report).encode("utf-8")
    js = json.dumps(report.to_dict(), indent=1, ensure_ascii=False).encode("utf-8")
    files = [_file(md, f"godot-rag-{rid}.md")]
    if len(md) + len(js) <= limits.FILE_BYTES:
        files.append(_file(js, f"godot-rag-{rid}.json"))
    return files


def status_embed(report: Report, *, running_here: bool = False) -> discord.Embed:
    """Where a run stands: status, chunk counts, verdict when complete."""
    run_id = report.run_id
    chunks = report.chunks
    status = report.status
    if running_here and status != "completed":
        status = "running"
    embed = discord.Embed(title=clip(f"Run {run_id}: {status}", limits.EMBED_TITLE))
    done = sum(1 for c in chunks if c.status == "done")
    lines = [f"**Chunks:** {done}/{len(chunks)} done ({_chunk_status_line(chunks) or 'none'})"]
    if status == "completed":
        lines.append(f"**Verdict:** {report.verdict.label} · {_counts_line(report.verdict.counts.model_dump())}")
    elif status not in ("running", "completed"):
        lines.append(f"Use `/resume {clip(run_id, 80)}` to continue it.")
    lines.append(f"**Files:** {len(report.files)} analyzed, {len(report.excluded_files)} excluded")
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
