"""Markdown for the chat, from the report (the CLI's JSON contract) and progress traces.

Pure functions (no Chainlit), so the layout is testable without a browser. Chunk locations are
always the file's own lines, written `player.gd L12-L26` everywhere (tasks, traces, answers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

VERDICT_TEXT = {
    "godot4": "Godot 4 code",
    "godot3": "Godot 3 code",
    "mixed": "a mix of Godot 3 and Godot 4 code",
    "ambiguous": "no clear version signal",
}
STATUS_WORD = {
    "done": "done",
    "processing": "processing",
    "failed": "failed",
    "stopped": "stopped",
    "pending": "waiting",
    "waiting": "waiting",
}


def lines(start: int | None, end: int | None) -> str:
    """`L12-L26`, or `L5` for a single line."""
    if start is None:
        return ""
    if end is None or end == start:
        return f"L{start}"
    return f"L{start}-L{end}"


def chunk_label(source_file: str, start: int | None, end: int | None) -> str:
    """`player.gd L12-L26`: where a chunk lives, in the file's own line numbers."""
    return f"{display_path(source_file)} {lines(start, end)}".strip()


def display_path(path: str) -> str:
    """Pasted snippets have a synthetic path; show it as `snippet.gd`."""
    return "snippet.gd" if path.startswith("pasted://") else path


def _esc(text: Any) -> str:
    """Keep table cells on one line and free of pipes."""
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _fence(text: str, lang: str = "gdscript") -> str:
    ticks = "````" if "```" in text else "```"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _link(title: str, url: str | None) -> str:
    return f"[{_esc(title)}]({url})" if url else _esc(title)


def verdict_markdown(report: Mapping[str, Any]) -> str:
    """The project verdict with counts, or what is missing when the run did not finish."""
    verdict = report.get("verdict") or {}
    status = report.get("status", "")
    label = verdict.get("label")
    counts = verdict.get("counts") or {}
    chunks = report.get("chunks") or []
    if status != "completed" or not label:
        done = sum(1 for c in chunks if c.get("status") == "done")
        return (
            f"### Analysis {status or 'unfinished'}\n"
            f"{done} of {len(chunks)} chunks are done; the verdict comes when every chunk is judged."
        )
    migration = "**migration required**" if verdict.get("migration_required") else "no migration needed"
    out = [
        f"### Verdict: `{label}` — {VERDICT_TEXT.get(label, label)}, {migration}",
        "",
        "| godot3 chunks | godot4 chunks | neutral chunks | chunks | files |",
        "|---:|---:|---:|---:|---:|",
        f"| {counts.get('godot3', 0)} | {counts.get('godot4', 0)} | {counts.get('neutral', 0)} "
        f"| {len(chunks)} | {len(report.get('files') or [])} |",
    ]
    if verdict.get("summary"):
        # Only the headline: the items and exclusions the summary goes on to list get their own tables.
        out += ["", str(verdict["summary"]).strip().splitlines()[0]]
    return "\n".join(out)


def _item_location(item: Mapping[str, Any]) -> str:
    return chunk_label(item.get("source_file") or item.get("file") or "", item.get("start_line"), item.get("end_line"))


def migration_markdown(report: Mapping[str, Any], limit: int = 60) -> str:
    """Migration items: file:lines, old → new, docs link. Empty string when there are none."""
    items = report.get("migration_items") or []
    if not items:
        return ""
    out = ["#### What to change", "", "| where | Godot 3 | Godot 4 | docs |", "|---|---|---|---|"]
    for item in items[:limit]:
        new = item.get("new") or "(removed: see docs)"
        docs = _link("docs", item.get("docs_url")) if item.get("docs_url") else ""
        out.append(f"| {_esc(_item_location(item))} | `{_esc(item.get('old'))}` | `{_esc(new)}` | {docs} |")
    if len(items) > limit:
        out.append(f"\n…and {len(items) - limit} more in the JSON report.")
    return "\n".join(out)


def excluded_markdown(report: Mapping[str, Any], limit: int = 40) -> str:
    """Files left out of the analysis, each with its reason."""
    excluded = report.get("excluded_files") or []
    if not excluded:
        return ""
    out = [f"#### Excluded files ({len(excluded)})", "", "| file | reason |", "|---|---|"]
    out += [f"| `{_esc(f.get('path'))}` | {_esc(f.get('reason'))} |" for f in excluded[:limit]]
    if len(excluded) > limit:
        out.append(f"\n…and {len(excluded) - limit} more in the JSON report.")
    return "\n".join(out)


def direct_answer_markdown(report: Mapping[str, Any]) -> str:
    """For a single snippet: the short answer, and the suggested Godot 4 code when a migration applies."""
    answer = report.get("direct_answer") or {}
    text = answer.get("text") or answer.get("answer")
    if not text:
        return ""
    out = [str(text)]
    if answer.get("suggested_code"):
        out += ["", "Suggested Godot 4 code:", _fence(str(answer["suggested_code"]))]
    return "\n".join(out)


NOT_GODOT = (
    "This does not look like Godot code, so there is nothing to check for Godot 3 or 4 "
    "(every piece was judged `non_godot_noise`). Send GDScript, a `.tscn` scene or `project.godot`, "
    "or a GitHub link to a Godot project."
)


def is_noise_only(report: Mapping[str, Any]) -> bool:
    """Every judged chunk is non-Godot text."""
    labels = [(c.get("judgment") or {}).get("label") for c in report.get("chunks") or []]
    return bool(labels) and all(label == "non_godot_noise" for label in labels)


def final_markdown(report: Mapping[str, Any]) -> str:
    """The whole closing answer: direct answer, verdict, migration items, excluded files."""
    if is_noise_only(report):
        return NOT_GODOT + "\n\n" + verdict_markdown(report)
    parts = [direct_answer_markdown(report), verdict_markdown(report), migration_markdown(report)]
    parts.append(excluded_markdown(report))
    return "\n\n".join(p for p in parts if p)


def cues_markdown(terms: Iterable[str]) -> str:
    """The search cues on one wrapping line (what went into the search)."""
    terms = list(terms)
    return " · ".join(f"`{_esc(t)}`" for t in terms) if terms else "(none)"


def evidence_markdown(evidence: Iterable[Mapping[str, Any]]) -> str:
    """Candidates found: table, title, score and the docs link."""
    rows = list(evidence)
    if not rows:
        return "(no candidates)"
    out = ["| table | title | score | docs |", "|---|---|---:|---|"]
    for e in rows:
        title = e.get("title") or e.get("record_id")
        if e.get("source_api") and e.get("target_api"):
            title = f"{e['source_api']} → {e['target_api']}"
        url = e.get("source_url")
        score = e.get("score")
        score_text = f"{score:.3f}" if isinstance(score, int | float) else _esc(score)
        out.append(f"| {_esc(e.get('table'))} | {_esc(title)} | {score_text} | {_link('docs', url) if url else ''} |")
    return "\n".join(out)


def judgment_markdown(judgment: Mapping[str, Any] | None) -> str:
    """Signal, label, migration, confidence, and the rationale with its evidence ids."""
    if not judgment:
        return "(not judged yet)"
    migration = "yes" if judgment.get("migration_required") else "no"
    conf = judgment.get("confidence")
    out = [
        f"- signal: **{_esc(judgment.get('version_signal'))}**",
        f"- label: `{_esc(judgment.get('label'))}`",
        f"- migration required: {migration}",
        f"- confidence: {conf:.2f}" if isinstance(conf, int | float) else f"- confidence: {_esc(conf)}",
        f"- rationale: {judgment.get('rationale', '')}",
    ]
    ids = judgment.get("evidence_ids") or []
    if ids:
        out.append("- evidence ids: " + ", ".join(f"`{_esc(i)}`" for i in ids))
    return "\n".join(out)


def trace_markdown(chunk: Mapping[str, Any], trace: Mapping[str, Any] | None) -> str:
    """One chunk's debug trace; what was searched is kept visibly apart from what is tracking only.

    `chunk` holds the trace-only fields (source_file, start_line, end_line, chunk_id, chunk_order);
    `trace` holds chunk_text, query_terms, evidence and judgment.
    """
    trace = trace or {}
    judgment = trace.get("judgment") or chunk.get("judgment")
    evidence = trace.get("evidence") if trace.get("evidence") is not None else chunk.get("evidence") or []
    terms = trace.get("query_terms") if trace.get("query_terms") is not None else chunk.get("query_terms") or []
    text = trace.get("chunk_text") or chunk.get("chunk_text")
    out = [
        "**Tracking only (never searched)**",
        "",
        f"- current file: `{_esc(display_path(chunk.get('source_file', '')))}`",
        f"- line range: {lines(chunk.get('start_line'), chunk.get('end_line'))}",
        f"- chunk: `{_esc(chunk.get('chunk_id'))}` (order {chunk.get('chunk_order', '')})",
        "",
        "**Sent to the retriever: the chunk text**",
        "",
        _fence(text) if text else "(text not available)",
        "",
        "**Search cues**",
        "",
        cues_markdown(terms),
        "",
        "**Candidates found**",
        "",
        evidence_markdown(evidence),
        "",
        "**Judgment**",
        "",
        judgment_markdown(judgment),
    ]
    return "\n".join(out)


def chunk_step_name(chunk: Mapping[str, Any]) -> str:
    """`#5 player.gd L12-L26 · _process`: the number users can ask about ("explain chunk 5")."""
    number = int(chunk.get("chunk_order", 0)) + 1
    where = chunk_label(chunk.get("source_file", ""), chunk.get("start_line"), chunk.get("end_line"))
    kind = chunk.get("chunk_kind") or ""
    name = str(chunk.get("chunk_id", "")).rsplit(":", 1)[-1]
    tail = {"function": name, "inner_class": f"class {name}", "signal": f"signal {name}"}.get(kind, kind)
    return f"#{number} {where} · {tail}" if tail else f"#{number} {where}"


def progress_line(done: int, total: int, counts: Mapping[str, int]) -> str:
    """`██████░░░░ 6/10 chunks · done 6 · processing 1 · waiting 3`."""
    width = 20
    filled = int(width * done / total) if total else 0
    bar = "█" * filled + "░" * (width - filled)
    parts = [f"{word} {n}" for word, n in counts.items() if n]
    return f"`{bar}` {done}/{total} chunks" + (" · " + " · ".join(parts) if parts else "")
