"""The deterministic answer: written from the validated judgments and the retrieved docs, offline.

An explain question gets what each piece of code does, built from the docs of the APIs it calls
(`Input.is_action_pressed`, `Vector2.ZERO`, ...), each cited. A migration question gets the changes
in file and line order and the Godot 4 code; a version check the verdict and why. The frame is in
the question's language; API names, code and quoted docs stay as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent.answer.inputs import AnswerInput, EvidenceRef
from agent.answer.model import Answer, Citation
from agent.answer.phrases import phrase
from agent.graph.verdict import change_line, changes_nothing
from agent.present import anchor_url
from agent.judge.lexer import identifiers, lex

_BRACKET_ID = re.compile(r"\[([^\[\]\s][^\[\]]*)\]")
_DOTTED = re.compile(r"\b([A-Z]\w*)\s*\.\s*([A-Za-z_]\w*)")
_SIGNATURE = re.compile(r"[\w\[\]<>:., =&\"'@-]*\([^)]*\)\s*(?:const|static|vararg|virtual|\s)*")
_VALUE_LINE = re.compile(r"(?:[\w\[\].]+\s+)?[A-Za-z_]\w*\s*=\s*`[^`]*`")
_BACKED_BY = re.compile(r"\s*Backed by [^\s,]+(?:,\s*[^\s,]+)*\.")  # the ids are cited as numbers instead
_BARE_CALL = re.compile(r"(?<![\w.])([a-z_]\w*)\s*\(")
_EXTENDS = re.compile(r"^extends\s+([A-Za-z_]\w*)", re.M)
_MD = re.compile(r"`|\*\*|\[([^\]]*)\]\([^)]*\)")
_AST_KINDS = {"class_extends", "class_name", "signal", "declaration_group", "enum", "function", "inner_class",
              "tool"}
_MAX_EXPLAINED = 8
_MAX_APIS = 6


class Citations:
    """Numbers evidence ids in the order they are first cited; label prototypes are kept apart.

    A label prototype is a known code pattern the judge compares against: how the product decided,
    never a docs source, so it gets no number and is listed under `patterns`.
    """

    def __init__(self, pool: Mapping[str, EvidenceRef]) -> None:
        self.pool = pool
        self.numbers: dict[str, int] = {}
        self.patterns: dict[str, None] = {}

    def cite(self, evidence_id: str | None) -> str:
        """` [n]` for a retrieved id, '' for anything else (never a dangling number)."""
        if not evidence_id or evidence_id not in self.pool:
            return ""
        if self.pool[evidence_id].table == "label_prototypes":
            self.patterns.setdefault(evidence_id)
            return ""
        url = anchor_url(evidence_id, self.pool[evidence_id].url)
        same = next((rid for rid in self.numbers if url and anchor_url(rid, self.pool[rid].url) == url), None)
        if same is not None:  # two windows of one docs section are one source
            return f" [{self.numbers[same]}]"
        n = self.numbers.setdefault(evidence_id, len(self.numbers) + 1)
        return f" [{n}]"

    def in_text(self, text: str) -> str:
        """Replace `[record-id]` mentions (judge rationales) by their numbers; unknown ids are dropped."""
        def sub(m: re.Match[str]) -> str:
            ids = [i.strip() for i in m.group(1).split(",")]
            if not all(i in self.pool for i in ids):
                return m.group(0) if not any(":" in i for i in ids) else ""
            return "".join(self.cite(i) for i in ids).strip()
        return _BRACKET_ID.sub(sub, text)

    def records(self) -> list[Citation]:
        """The citations in number order, each linked at the member anchor its id carries."""
        out = []
        for rid, n in sorted(self.numbers.items(), key=lambda kv: kv[1]):
            ref = self.pool[rid]
            out.append(Citation(number=n, evidence_id=rid, title=ref.title, url=anchor_url(rid, ref.url),
                                table=ref.table, doc_version=ref.doc_version if ref.table == "docs_chunks" else None,
                                retrieved_for="answer" if ref.origin == "answer" else "chunk"))
        return out

    def pattern_names(self) -> list[str]:
        """`yield-timer` for `label:godot3-api-in-godot4:yield-timer`."""
        return [rid.rsplit(":", 1)[-1] for rid in self.patterns]


_ABBREVIATIONS = ("e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "Eq", "Fig")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def first_sentence(text: str) -> str:
    """The text up to the first full stop that ends a sentence: not an abbreviation (`e.g.`), not inside
    brackets or parentheses, not inside inline code."""
    for m in _SENTENCE_END.finditer(text):
        head = text[: m.end()]
        word = head[:-1].rsplit(" ", 1)[-1].lstrip("([")
        if word.endswith(_ABBREVIATIONS) or head.count("(") > head.count(")") or head.count("[") > head.count("]") \
                or head.count("`") % 2:
            continue
        return head.strip()
    return text.strip()


def docs_gist(ref: EvidenceRef, limit: int = 220) -> str:
    """The first sentence of a docs chunk's prose (signature, value, accessor and `Inherits:` lines skipped)."""
    for line in ref.content.split("\n"):
        text = " ".join(line.split())
        if not text or text.startswith(("#", "|", "- ", "Inherits:", "Inherited By:")) or _SIGNATURE.fullmatch(text) \
                or _VALUE_LINE.fullmatch(text):
            continue
        sentence = _MD.sub(lambda mm: mm.group(1) or "", first_sentence(text))
        return sentence if len(sentence) <= 4 * limit else ""  # whole sentences only: a quote is never cut
    return ""


def script_bases(codes: Mapping[str, str], pool: Mapping[str, EvidenceRef]) -> set[str]:
    """The classes the scripts extend, with their Godot 4 names (`KinematicBody2D` -> `CharacterBody2D`)."""
    bases = {m.group(1) for code in codes.values() for m in _EXTENDS.finditer(lex(code).masked)}
    renamed = {r.target_api for r in pool.values() if r.source_api in bases and r.target_api}
    return bases | {str(t) for t in renamed if re.fullmatch(r"[A-Za-z_]\w*", str(t))}


def api_names(code: str, bases: set[str]) -> list[str]:
    """`Class.member` names the code uses in code positions, bare member calls qualified by the script's base."""
    masked = lex(code).masked
    dotted = [f"{a}.{b}" for a, b in _DOTTED.findall(masked)]
    calls = [f"{b}.{m}" for m in _BARE_CALL.findall(masked) for b in sorted(bases) if not m.startswith("_")]
    return list(dict.fromkeys(dotted + calls))


def add_api_docs(inp: AnswerInput, retrieve, chunk_ids: list[str] | None = None) -> None:
    """Retrieve the docs of APIs the explained code calls that no chunk's evidence covers.

    What an explanation cites must have been retrieved; these hits are retrieved here, for the answer,
    and marked so (`origin="answer"`). Only hits whose symbol is one of the asked names are kept.
    """
    from agent.models import RetrieverQuery

    if retrieve is None:
        return
    bases = script_bases(inp.codes, inp.evidence)
    have = {r.symbol for r in inp.evidence.values() if r.table == "docs_chunks" and r.content}
    chunks = [c for c in inp.chunks if c.get("chunk_kind") in _AST_KINDS and c.get("chunk_id") in inp.codes
              and (chunk_ids is None or c["chunk_id"] in chunk_ids)]
    wanted = [n for c in chunks[:_MAX_EXPLAINED] for n in api_names(inp.codes[c["chunk_id"]], bases) if n not in have]
    for name in list(dict.fromkeys(wanted))[:12]:  # one query per name: mixed names dilute the exact match
        bundle = retrieve(RetrieverQuery(query_text=name, query_terms=[name], raw_chunk_text=name,
                                         task_type="explain", api_call_candidates=[name], prompt_terms=["description"]))
        for hit in bundle.doc_evidence:
            md = hit.metadata or {}
            if md.get("symbol") == name and hit.record_id not in inp.evidence:
                inp.evidence[hit.record_id] = EvidenceRef(
                    evidence_id=hit.record_id, table=hit.table, title=hit.title, url=md.get("source_url"),
                    symbol=name, content=hit.content, origin="answer", doc_version=md.get("doc_version"))
                break


def apis_used(code: str, pool: Mapping[str, EvidenceRef], bases: set[str] | None = None) -> list[EvidenceRef]:
    """Docs hits for the APIs the code uses in code positions: `Class.member` as written, a class name,
    or a bare call of a member of the class the script extends (`move_and_slide()` in a CharacterBody2D)."""
    masked = lex(code).masked
    dotted = {f"{a}.{b}" for a, b in _DOTTED.findall(masked)}
    names = set(identifiers(masked))
    calls = {f"{b}.{m}" for m in _BARE_CALL.findall(masked) for b in bases or ()}
    found: dict[str, EvidenceRef] = {}
    for ref in pool.values():
        if ref.table != "docs_chunks" or not ref.symbol or not ref.content:
            continue
        sym = ref.symbol
        if sym in dotted or sym in calls or ("." not in sym and sym in names and sym[:1].isupper()):
            found.setdefault(sym, ref)
    order = {s: masked.find(s.split(".")[0]) if s in dotted or "." not in s else masked.find(s.split(".")[1])
             for s in found}
    return [found[s] for s in sorted(found, key=lambda s: (order[s], s))][:_MAX_APIS]


def _lines(chunk: Mapping[str, Any]) -> str:
    a, b = chunk.get("start_line"), chunk.get("end_line")
    return f"{a}" if a == b else f"{a}-{b}"


def _title(chunk: Mapping[str, Any], code: str) -> str:
    first = code.strip().split("\n", 1)[0].rstrip(":").strip() if code.strip() else ""
    return first or str(chunk.get("name") or chunk.get("chunk_kind"))


def _quoted(gist: str, language: str) -> str:
    """A docs sentence in a reply in another language: marked as the docs' own (English) words."""
    return gist if language == "en" else f"“{gist}”"


def explain_chunk_lines(chunk: Mapping[str, Any], code: str, inp: AnswerInput, cites: Citations) -> list[str]:
    """What one chunk does, from the docs of what it uses."""
    lang = inp.language
    kind = chunk.get("chunk_kind")
    title = _title(chunk, code)
    if kind == "class_extends":
        base = title.split()[-1] if title.split() else ""
        ref = next((r for r in inp.evidence.values() if r.table == "docs_chunks" and r.symbol == base), None)
        line = "- " + phrase("extends", lang, name=title, base=base) + (cites.cite(ref.evidence_id) if ref else "")
        gist = docs_gist(ref) if ref else ""
        return [line + (f" {_quoted(gist, lang)}" if gist else "")]
    used = apis_used(code, inp.evidence, script_bases(inp.codes, inp.evidence))
    if kind in ("declaration_group", "signal", "enum", "class_name", "tool") and not used:
        names = re.findall(r"\b(?:var|const|signal|enum|class_name)\s+([A-Za-z_]\w*)", lex(code).masked)
        what = ", ".join(f"`{n}`" for n in dict.fromkeys(names)) or f"`{title}`"
        return ["- " + phrase("declares", lang, name=title, lines=_lines(chunk), what=what)]
    if not used:
        return ["- " + phrase("function_plain", lang, name=title, lines=_lines(chunk))]
    out = ["- " + phrase("function", lang, name=title, lines=_lines(chunk))]
    for ref in used:
        gist = docs_gist(ref)
        out.append(f"  - `{ref.symbol}`" + (f": {_quoted(gist, lang)}" if gist else "") + cites.cite(ref.evidence_id))
    return out


def _verdict_line(inp: AnswerInput) -> str:
    v = inp.verdict
    if not v.get("complete", True):
        return phrase("verdict_incomplete", inp.language)
    label = v.get("label") or "ambiguous"
    head = phrase(f"verdict_{label}" if label in ("godot3", "godot4", "mixed") else "verdict_ambiguous", inp.language)
    c = v.get("counts") or {}
    return head + " " + phrase("counts", inp.language, g3=c.get("godot3", 0), g4=c.get("godot4", 0),
                               n=c.get("neutral", 0))


def _flagged(chunk: Mapping[str, Any]) -> bool:
    j = chunk.get("judgment") or {}
    return j.get("version_signal") == "godot3" or bool(j.get("migration_required"))


def where(chunk: Mapping[str, Any]) -> str:
    """`player.gd L4-L9` (a pasted snippet shows as snippet.gd)."""
    path = str(chunk.get("source_file") or "")
    path = "snippet.gd" if path.startswith("pasted://") else path
    a, b = chunk.get("start_line"), chunk.get("end_line")
    return f"{path} L{a}" if a == b else f"{path} L{a}-L{b}"


def why_lines(chunks: list[Mapping[str, Any]], inp: AnswerInput, cites: Citations, limit: int = 6) -> list[str]:
    """The evidence-backed reasons of the chunks that carry a version signal, in plain words.

    The judge writes its rationale in English; in another language the reason is rebuilt from what is
    language-free (the changes' code, the rationale's code spans) so a reply never switches language.
    """
    out: list[str] = []
    written = migration_items(inp)
    for chunk in [c for c in chunks if (c.get("judgment") or {}).get("version_signal") in ("godot3", "godot4")][:limit]:
        j = chunk["judgment"]
        mine = [c for path, line, c in written if path == chunk.get("source_file")
                and int(chunk.get("start_line") or 0) <= line <= int(chunk.get("end_line") or 0)]
        if j["version_signal"] == "godot3" and mine:  # the migration's own items: the reason and the code agree
            rationale = _code_only_reason({"suggested_changes": mine, "rationale": ""}, cites)
        elif inp.language == "en":
            rationale = cites.in_text(_BACKED_BY.sub("", str(j.get("rationale") or ""))).strip()
        else:
            rationale = _code_only_reason(j, cites)
        rationale = _REPEATED_MARK.sub(r"\1", rationale)
        shown = set(re.findall(r"\[\d+\]", rationale))
        extra = ""
        for i in j.get("evidence_ids") or []:  # a source the reason did not cite yet, once
            mark = cites.cite(i) if i not in cites.numbers else ""
            if mark and mark.strip() not in shown:
                shown.add(mark.strip())
                extra += mark
        if j["version_signal"] == "godot3":
            out.append("- " + phrase("reason_godot3", inp.language, where=where(chunk)) + f" {rationale}{extra}")
        else:
            out.append("- " + phrase("reason_godot4", inp.language, where=where(chunk), cues=rationale) + extra)
    return out


_CODE_SPAN = re.compile(r"`[^`\n]+`")
_BY_HAND = "✎"
"""An item the migration left to a person (a TODO in the code): no language's words, the TODO says why."""
_REPEATED_MARK = re.compile(r"(\[\d+\])(?:\s*\1)+")
"""`[2] [2]`: one source cited twice in a row is one marker."""
_CUE_NAMES = re.compile(r"\(([\w@., ]+)\)")


def _change_text(c: Mapping[str, Any]) -> str:
    """`old` → `new`; `old` → ✎ for an item left to a person; `old` alone when nothing replaces it."""
    old = f"`{' '.join(str(c.get('old') or '').split())}`"
    if c.get("new"):
        return f"{old} → `{' '.join(str(c['new']).split())}`"
    return f"{old} → {_BY_HAND}" if c.get("change_type") == "by_hand" else old


def _code_only_reason(judgment: Mapping[str, Any], cites: Citations) -> str:
    """`old` → `new` [n] for each change, else the rationale's code spans: a reason with no English in it."""
    parts = [_change_text(c) + cites.cite(c.get("evidence_id")) for c in judgment.get("suggested_changes") or []
             if c.get("old") and not changes_nothing(c.get("old"), c.get("new"))]
    rationale = str(judgment.get("rationale") or "")
    if not parts:
        parts = list(dict.fromkeys(_CODE_SPAN.findall(rationale)))[:4]
    if not parts and (m := _CUE_NAMES.search(rationale)):  # "Godot 4 only syntax/API in code position (a, b)"
        parts = [f"`{n.strip()}`" for n in m.group(1).split(",") if n.strip()]
    return "; ".join(parts)


def _chunk_at(chunks: list[Mapping[str, Any]], path: str, line: int) -> Mapping[str, Any] | None:
    return next((c for c in chunks if c.get("source_file") == path
                 and int(c.get("start_line") or 0) <= line <= int(c.get("end_line") or 0)), None)


def migration_items(inp: AnswerInput) -> list[tuple[str, int, dict[str, Any]]]:
    """(file, line, item) of every hunk of the run's migration: what the Godot 4 code holds. A migrated hunk's
    item keeps its `new`; a TODO hunk's has none (`by hand`, with the hunk's reason as its note)."""
    out: list[tuple[str, int, dict[str, Any]]] = []
    seen: set[tuple[str, int, str, str | None]] = set()
    for f in (inp.migration or {}).get("files") or []:
        for h in f.get("hunks") or []:
            todo = h.get("status") == "todo"
            for c in h.get("items") or []:
                if changes_nothing(c.get("old"), c.get("new")):
                    continue
                item = {**c, "new": None if todo else c.get("new"), "note": f": {h['why']}" if todo and h.get("why")
                        else c.get("note"), "change_type": "by_hand" if todo else c.get("change_type")}
                chunk = _chunk_at(inp.chunks, f["path"], int(h["start_line"]))
                line = change_line({**chunk, "code_text": inp.codes.get(chunk.get("chunk_id"))}, c.get("old")) \
                    if chunk is not None else int(h["start_line"])
                key = (f["path"], line, " ".join(str(c.get("old")).split()), item["new"])
                if key not in seen:
                    seen.add(key)
                    out.append((f["path"], line, item))
    return out


def change_lines(chunks: list[Mapping[str, Any]], inp: AnswerInput, cites: Citations) -> list[str]:
    """The changes, numbered in file and line order: the run's migration where it has one (so each line says
    what the code beside it does), else the suggested changes of flagged chunks."""
    items = migration_items(inp)
    for chunk in chunks if not items else []:
        if not _flagged(chunk):
            continue
        for c in (chunk.get("judgment") or {}).get("suggested_changes") or []:
            if changes_nothing(c.get("old"), c.get("new")):
                continue
            m = re.match(r"line (\d+)", str(c.get("note") or ""))
            line = int(m.group(1)) if m else change_line(
                {**chunk, "code_text": inp.codes.get(chunk.get("chunk_id"))}, c.get("old"))
            items.append((str(chunk.get("source_file")), line, c))
    items.sort(key=lambda t: (t[0], t[1]))
    out = []
    for k, (path, line, c) in enumerate(items, 1):
        where = "" if path.startswith("pasted://") else f"`{path}` "  # a project's items name their file
        old = " ".join(str(c.get("old") or "").split())
        if c.get("new"):
            text = phrase("change", inp.language, line=line, old=old, new=" ".join(str(c["new"]).split()))
        else:
            # the judge's note is English prose: another language gets the change without it
            note = str(c.get("note") or "").split(":", 1)[-1].strip() if inp.language == "en" else ""
            key = "change_removed" if c.get("change_type") == "removed" else "change_by_hand"
            text = phrase(key, inp.language, line=line, old=old, note=f" ({note})" if note else "")
        out.append(f"{k}. {where}{text}{cites.cite(c.get('evidence_id'))}")
    return out


def sources_lines(citations: list[Citation], language: str = "en") -> list[str]:
    """`[n] title (Godot 3.4 docs) — url` for every citation, in number order (docs say their version)."""
    def version(c: Citation) -> str:
        return phrase("docs_34" if c.doc_version == "3.4" else "docs_4", language) if c.doc_version else ""

    return [f"[{c.number}] {c.title}" + (f" ({version(c)})" if c.doc_version else "")
            + (f" — {c.url}" if c.url else "") for c in sorted(citations, key=lambda c: c.number)]


def sources_block(cites: Citations, language: str) -> list[str]:
    """The numbered sources, then the known code patterns the judge compared against (not sources)."""
    out: list[str] = []
    sources = sources_lines(cites.records(), language)
    if sources:
        out += ["", phrase("sources", language), *sources]
    if cites.patterns:
        out += ["", phrase("ui_decided", language, patterns=", ".join(f"`{p}`" for p in cites.pattern_names()))]
    return out


def write_template(inp: AnswerInput, *, code: str | None, note: str | None = None) -> Answer:
    """The template answer for the input's intent; `code` is validated Godot 4 code (or None)."""
    lang, task = inp.language, inp.task_type
    cites = Citations(inp.evidence)
    parts = [_verdict_line(inp)]
    code_chunks = [c for c in inp.chunks if c.get("chunk_kind") in _AST_KINDS and c.get("chunk_id") in inp.codes]
    if task in ("explain", "general"):
        lines: list[str] = []
        for chunk in code_chunks[:_MAX_EXPLAINED]:
            lines += explain_chunk_lines(chunk, inp.codes[chunk["chunk_id"]], inp, cites)
        if lines:
            parts += ["", phrase("what_it_does", lang), *lines]
    flagged = any(_flagged(c) for c in inp.chunks)
    if task in ("version_check", "explain", "general") or (task == "migration" and not flagged):
        why = why_lines(inp.chunks, inp, cites)  # numbers only what is shown: every listed source is cited
        if why:
            parts += ["", phrase("why", lang), *why]
    if task == "migration" or flagged:
        changes = change_lines(inp.chunks, inp, cites)
        parts += ["", phrase("steps", lang), *(changes or [phrase("no_changes", lang)])]
        if code:
            parts += ["", phrase("code_head", lang), "```gdscript", code.rstrip("\n"), "```"]
        elif flagged and (inp.migration or {}).get("summary", {}).get("files_changed"):
            from agent.graph.report import migration_line  # the project's patch: what was written, what was not

            parts += ["", phrase("migration_written", lang, line=migration_line(inp.migration, lang))]
        elif flagged:
            parts += ["", note or phrase("no_code", lang)]
    parts += sources_block(cites, lang)
    return Answer(markdown="\n".join(parts).strip(), language=lang, task_type=task, citations=cites.records(),
                  suggested_code=code if (task == "migration" or flagged) else None, writer="template")
