"""Markdown for the chat, from the report (the CLI's JSON contract) and progress traces.

Pure functions (no Chainlit), so the layout is testable without a browser. Chunk locations are
always the file's own lines, written `player.gd L12-L26` everywhere (tasks, traces, answers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from agent.answer.phrases import phrase, report_language
from agent.present import (
    SCORE_SCALE,
    TABLE_ORDER,
    TABLE_WORDS,
    MATCH_WORDS,
    Citation,
    Citations,
    chunk_citations,
    cite_rationale,
    cited_ids,
    file_summaries,
    item_citation,
    kind_words,
    number_ranges,
)

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


def _code(text: Any) -> str:
    """An id or name as inline code: never parsed as Markdown (links, emoji, emphasis)."""
    return f"`{_esc(text).replace('`', '')}`"


def cite_mark(c: Citation) -> str:
    """`[1]`, linked to the exact anchor of the evidence it names."""
    return f"[[{c.number}]]({c.url})" if c.url else f"[{c.number}]"


def sources_markdown(citations: Citations, heading: str | None = None, lang: str = "en") -> str:
    """The numbered sources this message cited: title linked to the anchor, where it comes from, its id as
    code; then the known code patterns the judge compared against, which are how it decided, not sources."""
    out: list[str] = []
    if len(citations):
        out += [heading or phrase("ui_sources", lang), ""]
        for c in citations:
            out.append(f"{c.number}. {_link(c.title, c.url)} · {_source_words(c, lang)} · {_code(c.record_id)}")
    patterns = citations.patterns()
    if patterns:
        names = ", ".join(_code(c.record_id.rsplit(":", 1)[-1]) for c in patterns)
        out += ["", phrase("ui_decided", lang, patterns=names)]
    return "\n".join(out).strip()


def _source_words(c: Citation, lang: str) -> str:
    if c.table == "docs_chunks":
        return phrase("docs_34" if c.doc_version == "3.4" else "docs_4", lang)
    return phrase("src_api_mapping", lang) if c.table == "api_mapping" else c.source_words


def verdict_markdown(report: Mapping[str, Any], lang: str = "en") -> str:
    """The project verdict with counts, or what is missing when the run did not finish."""
    verdict = report.get("verdict") or {}
    status = report.get("status", "")
    label = verdict.get("label")
    counts = verdict.get("counts") or {}
    chunks = report.get("chunks") or []
    if status != "completed" or not label:
        done = sum(1 for c in chunks if c.get("status") == "done")
        return phrase("ui_unfinished", lang, status=status or "unfinished", done=done, total=len(chunks))
    migration = phrase("ui_migration_required" if verdict.get("migration_required") else "ui_no_migration", lang)
    what = phrase(f"ui_label_{label}", lang) if label in VERDICT_TEXT else label
    out = [
        phrase("ui_verdict", lang, label=label, what=what, migration=migration),
        "",
        phrase("ui_counts_header", lang),
        "|---:|---:|---:|---:|---:|",
        f"| {counts.get('godot3', 0)} | {counts.get('godot4', 0)} | {counts.get('neutral', 0)} "
        f"| {len(chunks)} | {len(report.get('files') or [])} |",
    ]
    if verdict.get("summary") and lang == "en":
        # Only the headline: the items and exclusions the summary goes on to list get their own tables.
        out += ["", str(verdict["summary"]).strip().splitlines()[0]]
    out += _verdict_files_markdown(verdict, lang)
    return "\n".join(out)


def _verdict_files_markdown(verdict: Mapping[str, Any], lang: str = "en", limit: int = 20) -> list[str]:
    """What the verdict rests on, by file: scripts only Godot 3 loads (mixed), leftovers to check, notes."""
    out: list[str] = []
    if verdict.get("label") == "mixed" and verdict.get("godot3_files"):
        files = verdict["godot3_files"]
        out += ["", f"**{phrase('ui_godot3_files', lang)} ({len(files)}):** "
                + ", ".join(f"`{_esc(p)}`" for p in files[:limit]) + (" …" if len(files) > limit else "")]
    leftovers = verdict.get("leftovers") or []
    if leftovers:
        out += ["", f"**{phrase('ui_leftovers', lang)} ({len(leftovers)}):**"]
        out += [f"- {_esc(chunk_label(x.get('source_file') or '', x.get('start_line'), x.get('end_line')))}: "
                f"{_esc(str(x.get('why') or '')[:200])}" for x in leftovers[:limit]]
        if len(leftovers) > limit:
            out.append("- " + phrase("ui_more", lang, n=len(leftovers) - limit))
    notes = verdict.get("notes") or []
    if notes:
        out += ["", f"**{phrase('ui_notes', lang)} ({len(notes)}):** " + "; ".join(
            f"`{_esc(n.get('source_file'))}` {_esc(n.get('note'))}" for n in notes[:limit])
            + (" …" if len(notes) > limit else "")]
    return out


def _item_location(item: Mapping[str, Any]) -> str:
    return chunk_label(item.get("source_file") or item.get("file") or "", item.get("start_line"), item.get("end_line"))


def migration_markdown(report: Mapping[str, Any], citations: Citations, limit: int = 60, lang: str = "en") -> str:
    """Migration items: file and lines, old → new, and the numbered source. Empty when there are none."""
    items = report.get("migration_items") or []
    if not items:
        return ""
    chunks = {c.get("chunk_id"): c for c in report.get("chunks") or []}
    by_place = {(c.get("source_file"), c.get("start_line"), c.get("end_line")): c for c in chunks.values()}
    out = [phrase("ui_what_to_change", lang), "", phrase("ui_items_header", lang), "|---|---|---|---|"]
    for item in items[:limit]:
        chunk = chunks.get(item.get("chunk_id")) or by_place.get(
            (item.get("source_file"), item.get("start_line"), item.get("end_line")))
        new = _code(item["new"]) if item.get("new") else phrase(
            "ui_removed" if item.get("change_type") == "removed" else "ui_by_hand", lang)
        c = item_citation(item, chunk, citations)
        out.append(f"| {_esc(_item_location(item))} | {_code(item.get('old'))} | {new} | {cite_mark(c) if c else ''} |")
    if len(items) > limit:
        out.append("\n" + phrase("ui_more", lang, n=len(items) - limit))
    return "\n".join(out)


FILE_VERDICT_WORDS = {
    "godot3": "Godot 3: needs work", "godot4": "Godot 4", "mixed": "mixed: needs work",
    "neutral": "no version signal", "pending": "not judged yet",
}


def files_markdown(report: Mapping[str, Any], lang: str = "en") -> str:
    """A project's per-file table: verdict, migration items, and its chunks (the traces' `#n`)."""
    rows = file_summaries(report)
    if len(rows) < 2:
        return ""
    out = [phrase("ui_files", lang, n=len(rows)), "|---|---|---:|---|"]
    for r in sorted(rows, key=lambda r: (-r.migration_items, r.verdict != "godot3", r.path)):
        flagged = f" ({phrase('ui_flagged', lang)} {number_ranges(r.flagged_numbers)})" if r.flagged_numbers else ""
        chunks = f"[{number_ranges(r.chunk_numbers)}](#trace:{quote(display_path(r.path))})" if r.chunk_numbers else ""
        out.append(
            f"| {_code(display_path(r.path))} | {_file_verdict(r.verdict, lang)} | {r.migration_items} "
            f"| {chunks}{flagged} |"
        )
    return "\n".join(out)


def _file_verdict(verdict: str, lang: str) -> str:
    return phrase(f"ui_file_{verdict}", lang) if verdict in FILE_VERDICT_WORDS else verdict


def excluded_markdown(report: Mapping[str, Any], limit: int = 40, lang: str = "en") -> str:
    """Files left out of the analysis, each with its reason."""
    excluded = report.get("excluded_files") or []
    if not excluded:
        return ""
    out = [phrase("ui_excluded", lang, n=len(excluded)), "|---|---|"]
    out += [f"| `{_esc(f.get('path'))}` | {_esc(f.get('reason'))} |" for f in excluded[:limit]]
    if len(excluded) > limit:
        out.append("\n" + phrase("ui_more", lang, n=len(excluded) - limit))
    return "\n".join(out)


def direct_answer_markdown(report: Mapping[str, Any]) -> str:
    """For a single snippet: the short answer. Code is never shown here: the answer message above shows the
    suggested Godot 4 code once the answer check has passed it, and a rejected one is never shown at all."""
    answer = report.get("direct_answer") or {}
    text = answer.get("text") or answer.get("answer")
    return str(text) if text else ""


def is_noise_only(report: Mapping[str, Any]) -> bool:
    """Every judged chunk is non-Godot text."""
    labels = [(c.get("judgment") or {}).get("label") for c in report.get("chunks") or []]
    return bool(labels) and all(label == "non_godot_noise" for label in labels)


def migrated_markdown(report: Mapping[str, Any], lang: str = "en") -> str:
    """The validated Godot 4 version of the run, offered as downloads (the patch and the migrated zip below)."""
    migration = report.get("migration")
    if not migration or not (migration.get("summary") or {}).get("files_changed"):
        return ""
    from agent.graph.report import migration_line

    return phrase("ui_godot4_version", lang, line=migration_line(migration, lang))


def final_markdown(report: Mapping[str, Any]) -> str:
    """The whole closing answer: direct answer, verdict, files, migration items with sources, excluded files."""
    lang = report_language(report)
    if is_noise_only(report):
        return phrase("ui_not_godot", lang) + "\n\n" + verdict_markdown(report, lang)
    citations = Citations.after(report.get("answer"))  # one numbering with the answer above
    parts = [direct_answer_markdown(report) if lang == "en" else "", verdict_markdown(report, lang),
             files_markdown(report, lang), migration_markdown(report, citations, lang=lang),
             sources_markdown(citations, lang=lang), excluded_markdown(report, lang=lang), migrated_markdown(report, lang)]
    return "\n\n".join(p for p in parts if p)


def cues_markdown(terms: Iterable[str]) -> str:
    """The search cues on one wrapping line (what went into the search)."""
    terms = list(terms)
    return " · ".join(f"`{_esc(t)}`" for t in terms) if terms else "(none)"


def evidence_markdown(evidence: Iterable[Mapping[str, Any]], cited: Iterable[str] = (),
                      citations: Citations | None = None, per_table: int = 5) -> str:
    """Candidates found, grouped by where they come from; the ones the judgment used are marked."""
    rows = list(evidence)
    if not rows:
        return "(no candidates)"
    cited = set(cited)
    citations = citations if citations is not None else Citations()
    out = [f"_Score: {SCORE_SCALE}._"]
    tables = [t for t in TABLE_ORDER if any(e.get("table") == t for e in rows)]
    tables += sorted({str(e.get("table")) for e in rows} - set(tables))
    for table in tables:
        group = [e for e in rows if e.get("table") == table]
        # cited first, then by score: what the judgment used is never folded away
        group.sort(key=lambda e: (str(e.get("record_id")) not in cited, -float(e.get("score") or 0)))
        shown = group[: max(per_table, sum(1 for e in group if str(e.get("record_id")) in cited))]
        out += ["", f"**{TABLE_WORDS.get(table, table)}** ({len(group)})", "",
                "| used | candidate | found by | score |", "|---|---|---|---:|"]
        for e in shown:
            c = citations.cite(e)
            used = f"✓ {cite_mark(c)}" if c.record_id in cited else ""
            found_by = ", ".join(MATCH_WORDS.get(m, m) for m in e.get("match") or [])
            score = e.get("score")
            score_text = f"{score:.3f}" if isinstance(score, int | float) else _esc(score)
            version = f" · {c.source_words}" if c.table == "docs_chunks" and c.doc_version == "3.4" else ""
            out.append(f"| {used} | {_link(c.title, c.url)}{version} | {_esc(found_by)} | {score_text} |")
        if len(group) > len(shown):
            out.append(f"\n…and {len(group) - len(shown)} more in the JSON report.")
    return "\n".join(out)


def judgment_markdown(judgment: Mapping[str, Any] | None, chunk: Mapping[str, Any] | None = None,
                      citations: Citations | None = None) -> str:
    """Signal, label, migration, confidence, and the rationale with numbered citations."""
    if not judgment:
        return "(not judged yet)"
    chunk = dict(chunk or {})
    chunk.setdefault("judgment", judgment)
    citations = citations if citations is not None else Citations()
    migration = "yes" if judgment.get("migration_required") else "no"
    conf = judgment.get("confidence")
    out = [
        f"- signal: **{_esc(judgment.get('version_signal'))}**",
        f"- label: {_code(judgment.get('label'))}",
        f"- migration required: {migration}",
        f"- confidence: {conf:.2f}" if isinstance(conf, int | float) else f"- confidence: {_esc(conf)}",
        f"- why: {cite_rationale(str(judgment.get('rationale') or ''), chunk, citations)}",
    ]
    used = chunk_citations(chunk, citations)
    if used:
        out.append("- evidence used: " + ", ".join(f"{cite_mark(c)} {_code(c.record_id)}" for c in used))
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
    full = {**chunk, "evidence": evidence, "judgment": judgment}
    citations = Citations()
    judged = judgment_markdown(judgment, full, citations)  # numbers the cited sources first
    out = [
        "**Tracking only (never searched)**",
        "",
        f"- current file: {_code(display_path(chunk.get('source_file', '')))}",
        f"- line range: {lines(chunk.get('start_line'), chunk.get('end_line'))} (the file's own lines)",
        f"- piece: {kind_words(chunk.get('chunk_kind'))}, chunk #{int(chunk.get('chunk_order', 0)) + 1} "
        f"({_code(chunk.get('chunk_id'))})",
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
        evidence_markdown(evidence, cited_ids(full), citations),
        "",
        "**Judgment**",
        "",
        judged,
    ]
    return "\n".join(out)


def chunk_step_name(chunk: Mapping[str, Any]) -> str:
    """`#5 player.gd L12-L26 · _process`: the number users can ask about ("explain chunk 5")."""
    number = int(chunk.get("chunk_order", 0)) + 1
    where = chunk_label(chunk.get("source_file", ""), chunk.get("start_line"), chunk.get("end_line"))
    kind = chunk.get("chunk_kind") or ""
    name = str(chunk.get("chunk_id", "")).rsplit(":", 1)[-1]
    tail = {"function": name, "inner_class": f"class {name}", "signal": f"signal {name}"}.get(kind, kind_words(kind))
    return f"#{number} {where} · {tail}" if tail else f"#{number} {where}"


def progress_line(done: int, total: int, counts: Mapping[str, int]) -> str:
    """`██████░░░░ 6/10 chunks · done 6 · processing 1 · waiting 3`."""
    width = 20
    filled = int(width * done / total) if total else 0
    bar = "█" * filled + "░" * (width - filled)
    parts = [f"{word} {n}" for word, n in counts.items() if n]
    return f"`{bar}` {done}/{total} chunks" + (" · " + " · ".join(parts) if parts else "")
