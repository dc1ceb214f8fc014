"""Follow-up questions about a finished run, answered from the stored run in the question's language.

A thread that already holds a run gets questions like "why is mob.gd flagged?", "explain chunk 4",
"show me the whole thing in Godot 4", "第12行怎么改?" or "что делать с setget?". They are answered from the
stored per-chunk results (never by re-running the analysis): reasons come from the validated judgments and
cite the evidence that was retrieved for them; a change is shown once per line with what to write in Godot 4
and why; explanations are built from the docs of the APIs the code calls; a Godot 4 version is one code block
that passed the answer validator (re-parsed, re-judged, no inherited member redeclared). A question that names
no chunk may refer to the one the conversation was about (the thread's memory). Front doors (web UI, Discord)
call `is_followup`; they and the MCP server call `answer_for_run`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent.answer.check import InheritedProperties, Retrieve, drop_inherited_zero_vars, code_failures
from agent.answer.inputs import AnswerInput, EvidenceRef, evidence_pool
from agent.answer.phrases import answer_language, phrase
from agent.answer.template import Citations, add_api_docs, change_lines, explain_chunk_lines, sources_block, where, \
    why_lines
from agent.followup_query import FollowupQuery, chunk_number_of, is_flagged, resolve, wants_code
from agent.judge.project import ProjectContext, knowledge_context, mapping_table_for
from agent.models import EvidenceBundle, RetrieverQuery
from agent.retrieve.mapping_table import MappingTable

ChunkDict = Mapping[str, Any]
RetrieveFn = Callable[[RetrieverQuery], EvidenceBundle]

_CODE_LINE = re.compile(
    r"^\s*(extends|func|var|const|signal|class_name|onready|export|@export|@onready|tool\b|enum|\[gd_scene|"
    r"\[node|\[ext_resource|config_version)|^\t|```"
)
_URL = re.compile(r"https?://|www\.", re.I)
_RATIONALE_IDS = re.compile(r"\[([^\[\]]+)\]")

"""Follow-up sentences that agent/answer/phrases.py does not hold, in the same four languages."""

_WHY_RULE: dict[str, dict[str, str]] = {
    "yield": {
        "en": "`yield` no longer exists in Godot 4: `await` waits for a signal (`object.signal`) or a coroutine.",
        "ko": "Godot 4에는 `yield`가 없습니다. `await`로 시그널(`object.signal`)이나 코루틴을 기다립니다.",
        "zh": "Godot 4 中已没有 `yield`：用 `await` 等待信号（`object.signal`）或协程。",
        "ru": "В Godot 4 `yield` нет: `await` ждёт сигнал (`object.signal`) или корутину.",
    },
    "setget": {
        "en": "`setget` was removed: the setter and getter are declared on the property (`: set = f, get = g`) and "
              "now run on every access, also inside the class.",
        "ko": "`setget`은 없어졌습니다. 세터와 게터를 속성 선언에 붙이고(`: set = f, get = g`), 이제 클래스 안에서 "
              "접근할 때도 항상 호출됩니다.",
        "zh": "`setget` 已移除：设值函数和取值函数写在属性声明上（`: set = f, get = g`），并且每次访问都会调用，"
              "类内部访问也一样。",
        "ru": "`setget` убран: сеттер и геттер указываются в объявлении свойства (`: set = f, get = g`) и теперь "
              "вызываются при каждом обращении, в том числе внутри класса.",
    },
    "export_keyword": {
        "en": "In Godot 4 `export` is the `@export` annotation; the old keyword no longer parses.",
        "ko": "Godot 4에서 `export`는 `@export` 어노테이션이 되었고, 예전 키워드는 문법 오류입니다.",
        "zh": "在 Godot 4 中 `export` 变成了 `@export` 注解，旧关键字无法解析。",
        "ru": "В Godot 4 `export` стал аннотацией `@export`; старое ключевое слово не разбирается.",
    },
    "onready_keyword": {
        "en": "In Godot 4 `onready` is the `@onready` annotation; it still assigns the variable just before "
              "`_ready()`.",
        "ko": "Godot 4에서 `onready`는 `@onready` 어노테이션이 되었고, 여전히 `_ready()` 직전에 값을 넣습니다.",
        "zh": "在 Godot 4 中 `onready` 变成了 `@onready` 注解，仍在 `_ready()` 之前赋值。",
        "ru": "В Godot 4 `onready` стал аннотацией `@onready`; переменная по-прежнему задаётся перед `_ready()`.",
    },
    "tool_keyword": {
        "en": "In Godot 4 `tool` is the `@tool` annotation, at the top of the script.",
        "ko": "Godot 4에서 `tool`은 스크립트 맨 위의 `@tool` 어노테이션입니다.",
        "zh": "在 Godot 4 中 `tool` 是脚本顶部的 `@tool` 注解。",
        "ru": "В Godot 4 `tool` — это аннотация `@tool` в начале скрипта.",
    },
    "rpc_keyword": {
        "en": "The `remote`/`master`/`puppet`/`sync` keywords were replaced by the `@rpc` annotation.",
        "ko": "`remote`/`master`/`puppet`/`sync` 키워드는 `@rpc` 어노테이션으로 바뀌었습니다.",
        "zh": "`remote`/`master`/`puppet`/`sync` 关键字被 `@rpc` 注解取代。",
        "ru": "Ключевые слова `remote`/`master`/`puppet`/`sync` заменены аннотацией `@rpc`.",
    },
    "move_and_slide_args": {
        "en": "`move_and_slide()` takes no arguments in Godot 4: `velocity` and `up_direction` are properties of the "
              "body, and it returns a `bool`.",
        "ko": "Godot 4의 `move_and_slide()`는 인자를 받지 않습니다. `velocity`와 `up_direction`은 바디의 속성이고, "
              "반환값은 `bool`입니다.",
        "zh": "Godot 4 的 `move_and_slide()` 不接受参数：`velocity` 和 `up_direction` 是物体的属性，返回值是 `bool`。",
        "ru": "В Godot 4 `move_and_slide()` без аргументов: `velocity` и `up_direction` — свойства тела, а вернёт "
              "он `bool`.",
    },
    "connect_string_method": {
        "en": "Signals are connected with a `Callable` in Godot 4: `signal.connect(method)`.",
        "ko": "Godot 4에서는 시그널을 `Callable`로 연결합니다: `signal.connect(method)`.",
        "zh": "Godot 4 用 `Callable` 连接信号：`signal.connect(method)`。",
        "ru": "В Godot 4 сигналы подключаются через `Callable`: `signal.connect(method)`.",
    },
    "class_name_icon": {
        "en": "The icon moved out of `class_name`: write `@icon(...)` at the top of the script.",
        "ko": "아이콘은 `class_name`에서 빠졌습니다. 스크립트 맨 위에 `@icon(...)`을 쓰세요.",
        "zh": "图标不再写在 `class_name` 里：在脚本顶部写 `@icon(...)`。",
        "ru": "Иконка больше не пишется в `class_name`: укажите `@icon(...)` в начале скрипта.",
    },
    "kinematic-body-2d-velocity-property": {
        "en": "`CharacterBody2D` already has a `velocity` property; declaring it again is an error.",
        "ko": "`CharacterBody2D`에는 이미 `velocity` 속성이 있어 다시 선언하면 오류입니다.",
        "zh": "`CharacterBody2D` 已有 `velocity` 属性，再次声明会报错。",
        "ru": "У `CharacterBody2D` уже есть свойство `velocity`; повторное объявление — ошибка.",
    },
}
"""Why a rule's Godot 3 code must change, keyed by rule name or mapping id (the judge's notes are English)."""

_WHY_KIND: dict[str, dict[str, str]] = {
    "rename": {
        "en": "`{old}` was renamed to `{new}` in Godot 4; the old name no longer exists there.",
        "ko": "Godot 4에서 `{old}`의 이름이 `{new}`(으)로 바뀌어 예전 이름은 더 이상 없습니다.",
        "zh": "`{old}` 在 Godot 4 中改名为 `{new}`，旧名称已不存在。",
        "ru": "В Godot 4 `{old}` переименован в `{new}`; старого имени больше нет.",
    },
    "removed": {
        "en": "This Godot 3 code has no place in Godot 4: remove it or use the replacement.",
        "ko": "이 Godot 3 코드는 Godot 4에 해당하는 것이 없습니다. 지우거나 대체 코드를 쓰세요.",
        "zh": "这段 Godot 3 代码在 Godot 4 中已不适用：删除它或使用替代写法。",
        "ru": "В Godot 4 этому коду Godot 3 нет места: удалите его или используйте замену.",
    },
    "": {
        "en": "Godot 4 writes this differently; the Godot 3 form no longer works there.",
        "ko": "Godot 4에서는 다르게 씁니다. Godot 3 형태는 더 이상 동작하지 않습니다.",
        "zh": "Godot 4 的写法不同，Godot 3 的写法已不再适用。",
        "ru": "В Godot 4 это пишется иначе; форма Godot 3 там больше не работает.",
    },
}
"""Why, when no rule above says it: by the change item's kind."""


def _after(label: str, text: str) -> str:
    """`Why: text`; no space after a full-width colon."""
    return f"{label}{text}" if label.endswith("：") else f"{label} {text}"




def _rule_of(change: Mapping[str, Any]) -> str:
    """The change's rule (`setget`, `export_keyword`) from the judge's note, else its mapping id's last part."""
    head = re.sub(r"^line \d+:\s*", "", str(change.get("note") or "")).split(";")[0].strip()
    if head in _WHY_RULE:
        return head
    return str(change.get("evidence_id") or "").rsplit(":", 1)[-1]


def why_change(change: Mapping[str, Any], language: str) -> str:
    """What the change is for, in the reply's language (the judge's English note adds to it in English)."""
    rule = _rule_of(change)
    if rule in _WHY_RULE:
        return _WHY_RULE[rule].get(language, _WHY_RULE[rule]["en"])
    kind = str(change.get("change_type") or "")
    kind = kind if kind in _WHY_KIND and (kind != "rename" or change.get("new")) else ""
    text = _WHY_KIND[kind].get(language, _WHY_KIND[kind]["en"]).format(old=change.get("old"), new=change.get("new"))
    note = _note(change) if language == "en" else ""
    if not note:
        return text
    return f"{text} {note[:1].upper()}{note[1:]}" + ("" if note.endswith(".") else ".")


@dataclass
class FollowupAnswer:
    """A markdown answer plus the chunks it is about (so a UI can link their traces)."""

    text: str
    chunk_ids: list[str] = field(default_factory=list)
    code: str | None = None
    """A validated Godot 4 version of the chunk or file, when asked for and a migration applies."""
    validation_failures: list[str] = field(default_factory=list)
    """Why a Godot 4 version was withheld (the answer validator's rules), if it was."""


def is_followup(text: str, *, has_run: bool) -> bool:
    """A question about the current run rather than new code, a link or an empty message."""
    text = text.strip()
    if not has_run or not text or _URL.search(text):
        return False
    if any(_CODE_LINE.match(line) for line in text.splitlines()):
        return False
    return len(text) <= 600


def _head(chunk: ChunkDict) -> str:
    return f"**#{chunk_number_of(chunk)} {where(chunk)}** (`{chunk.get('name') or chunk.get('chunk_kind')}`)"


def _name(chunk: ChunkDict) -> str:
    return str(chunk.get("chunk_id", "")).rsplit(":", 1)[-1]


def _items_for(report: Mapping[str, Any], chunk: ChunkDict) -> list[Mapping[str, Any]]:
    out = []
    for item in report.get("migration_items") or []:
        same_id = item.get("chunk_id") == chunk.get("chunk_id")
        same_place = item.get("source_file") == chunk.get("source_file") and item.get("start_line") is not None and (
            chunk.get("start_line", 0) <= item["start_line"] <= chunk.get("end_line", 0)
        )
        if same_id or same_place:
            out.append(item)
    return out


def godot4_version(code: str, items: Sequence[Mapping[str, Any]]) -> str | None:
    """Apply the run's one-to-one renames (old → new) to a chunk's code, whole identifiers only.

    Items without a one-to-one replacement are left for the reader (their notes are shown).
    Comment lines are left untouched so we never rewrite prose.
    """
    renames = [(str(i["old"]), str(i["new"])) for i in items if i.get("old") and i.get("new")]
    if not renames:
        return None
    out = []
    for line in code.splitlines():
        if line.lstrip().startswith("#"):
            out.append(line)
            continue
        for old, new in renames:
            if re.fullmatch(r"[\w.]+", old):
                line = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, line)
        out.append(line)
    result = "\n".join(out)
    return result if result != code else None


@dataclass
class FollowupContext:
    """What a follow-up may read: the stored run and, optionally, retrieval and the API index."""

    report: Mapping[str, Any]
    chunk_texts: Mapping[str, str] = field(default_factory=dict)
    contents: Mapping[str, str] = field(default_factory=dict)
    """docs_chunks id -> docs text of the run's evidence (for explanations)."""
    file_texts: Mapping[str, str] = field(default_factory=dict)
    """path -> file text, for a whole-file Godot 4 version."""
    retrieve: Retrieve | None = None
    props: InheritedProperties | None = None
    kb: ProjectContext | None = None
    """The knowledge base as a context (`project.knowledge_context`): suggested code is judged on its model."""
    mappings: MappingTable | None = None
    """Every api_mapping row, for a construct the run does not use ("what replaces yield?")."""
    dimension: str = "unknown"
    history: list[tuple[str, str]] = field(default_factory=list)
    pool: Any = None
    """The knowledge base's connection pool, to link a mapping row's docs page."""


def _language(question: str, report: Mapping[str, Any]) -> str:
    from agent.intent import detect_language

    lang = detect_language(question)
    return answer_language(lang if lang != "unknown" else (report.get("intent") or {}).get("language"))


def _input(ctx: FollowupContext, question: str, language: str) -> AnswerInput:
    chunks = list(ctx.report.get("chunks") or [])
    return AnswerInput(prompt=question, task_type="explain", language=language,
                       verdict=dict(ctx.report.get("verdict") or {}), chunks=chunks, codes=dict(ctx.chunk_texts),
                       evidence=evidence_pool(chunks, ctx.contents), dimension=ctx.dimension)


def checked_code(code: str | None, ctx: FollowupContext) -> tuple[str | None, list[str]]:
    """Suggested code validated like any answer's: fixed where mechanical, else withheld with the reasons."""
    if not code:
        return None, []
    fixed = drop_inherited_zero_vars(code, ctx.props)
    failures = code_failures(fixed if fixed is not None else code, retrieve=ctx.retrieve, dimension=ctx.dimension,
                             props=ctx.props, kb=ctx.kb)
    return (None, failures) if failures or fixed is None else (fixed, [])


def _with_sources(lines: list[str], cites: Citations, language: str) -> str:
    return "\n".join([*lines, *sources_block(cites, language)])


def explain(chunk: ChunkDict, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """The chunk's code, what it does (from the docs of what it calls), and why it was judged so."""
    inp = _input(ctx, question, language)
    add_api_docs(inp, ctx.retrieve, [chunk["chunk_id"]])
    cites = Citations(inp.evidence)
    code = ctx.chunk_texts.get(chunk["chunk_id"], "")
    lines = [_head(chunk)]
    if code:
        lines += ["", "```gdscript", code.rstrip("\n"), "```"]
    lines += ["", phrase("what_it_does", language), *explain_chunk_lines(chunk, code, inp, cites)]
    why = why_lines([chunk], inp, cites)
    if why:
        lines += ["", phrase("why", language), *why]
    if is_flagged(chunk):
        lines += ["", phrase("steps", language), *change_lines([chunk], inp, cites)]
    return FollowupAnswer(_with_sources(lines, cites, language), [chunk["chunk_id"]])


def why_flagged(chunks: list[ChunkDict], ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """Evidence-backed reasons, in plain words, for a file or chunks."""
    path = str(chunks[0].get("source_file"))
    path = "snippet.gd" if path.startswith("pasted://") else path
    flagged = [c for c in chunks if is_flagged(c)]
    if not flagged:
        signals = ", ".join(sorted({(c.get("judgment") or {}).get("version_signal") or "?" for c in chunks}))
        return FollowupAnswer(phrase("not_flagged", language, where=path, signals=signals),
                              [c["chunk_id"] for c in chunks])
    inp = _input(ctx, question, language)
    cites = Citations(inp.evidence)
    lines = [f"`{path}` is flagged because {len(flagged)} of its {len(chunks)} chunks use Godot 3 API."
             if language == "en" else phrase("reason_godot3", language, where=path)]
    lines += why_lines(flagged, inp, cites, limit=8)
    changes = change_lines(flagged, inp, cites)
    if changes:
        lines += ["", phrase("steps", language), *changes]
    return FollowupAnswer(_with_sources(lines, cites, language), [c["chunk_id"] for c in flagged])


def godot4_code(chunks: list[ChunkDict], ctx: FollowupContext, language: str) -> FollowupAnswer:
    """One code block: the Godot 4 version of a chunk, or of a whole file when several chunks are asked."""
    from agent.graph.verdict import suggested_snippet

    ids = [c["chunk_id"] for c in chunks]
    if not any(is_flagged(c) for c in chunks):
        return FollowupAnswer(_head(chunks[0]) + "\n\n" + phrase("already_godot4", language) if len(chunks) == 1
                              else phrase("already_godot4", language), ids)
    path = str(chunks[0].get("source_file"))
    candidate = None
    migrated = _migrated_file(ctx.report, path)
    if migrated is not None and len(chunks) > 1:  # the whole file: the migration engine's validated code
        head = f"**{where({**chunks[0], 'end_line': chunks[-1].get('end_line')})}**"
        if migrated.get("status") == "migrated":
            code = migrated["migrated"]
            return FollowupAnswer(f"{head}\n\n```gdscript\n{code.rstrip()}\n```", ids, code)
        if migrated.get("migrated"):  # written where sure, TODOs where not: say which parts, show it whole
            todos = [f"- {phrase('line', language)} {t['line']}: {t['reason']}" for t in migrated.get("todos") or []]
            lines = [head, "", phrase("partial_code", language), *todos[:12], "", "```gdscript",
                     migrated["migrated"].rstrip(), "```"]
            return FollowupAnswer("\n".join(lines), ids, None, [f"todo: {len(todos)} part(s) left for a person"])
    if len(chunks) > 1 and path in ctx.file_texts:
        rows = [{**c, "status": "done", "code_text": ctx.chunk_texts.get(c["chunk_id"], "")} for c in chunks]
        candidate = suggested_snippet(ctx.file_texts[path], rows)
    elif len(chunks) == 1:
        chunk = chunks[0]
        candidate = (chunk.get("judgment") or {}).get("suggested_code") or godot4_version(
            ctx.chunk_texts.get(chunk["chunk_id"], ""), _items_for(ctx.report, chunk))
    code, failures = checked_code(candidate, ctx)
    head = _head(chunks[0]) if len(chunks) == 1 else f"**{where({**chunks[0], 'end_line': chunks[-1].get('end_line')})}**"
    if code is None:
        inp = _input(ctx, "", language)
        cites = Citations(inp.evidence)
        lines = [head, "", phrase("no_code", language), "", phrase("steps", language),
                 *change_lines([c for c in chunks if is_flagged(c)], inp, cites)]
        return FollowupAnswer(_with_sources(lines, cites, language), ids, None, failures)
    return FollowupAnswer(f"{head}\n\n```gdscript\n{code.rstrip()}\n```", ids, code)


def _migrated_file(report: Mapping[str, Any], path: str) -> dict[str, Any] | None:
    """The migration engine's record of one script of the run (`report["migration"]`), if it has one."""
    files = (report.get("migration") or {}).get("files") or []
    return next((f for f in files if f.get("path") == path and f.get("kind") == "gdscript"), None)


def _change_place(change: Mapping[str, Any], language: str) -> str:
    chunk = change["chunk"]
    path = str(chunk.get("source_file") or "")
    path = "snippet.gd" if path.startswith("pasted://") else path
    name = chunk.get("name") or chunk.get("chunk_kind")
    return (f"**{phrase('at_line', language, path=path, line=change['line'])}** — "
            + phrase("in_chunk", language, n=chunk_number_of(chunk), name=name))


def _note(change: Mapping[str, Any]) -> str:
    """The judge's note without its `line N:` prefix and rule key (`move_and_slide_args; ...`)."""
    note = re.sub(r"^line \d+:\s*", "", str(change.get("note") or "").strip())
    head, sep, rest = note.partition(";")
    if " " not in head.strip():
        return rest.strip() if sep else ""
    return note


def _docs_of_line(chunk: ChunkDict, line: int, evidence_id: str | None = None) -> list[str]:
    """The ids the chunk's rationale cites for one line (`... (line 8) -> ... [ids]`): the part that cites the
    change's own mapping row when the line has several."""
    rationale = str((chunk.get("judgment") or {}).get("rationale") or "")
    parts = [[i.strip() for m in _RATIONALE_IDS.finditer(part) for i in m.group(1).split(",")]
             for part in re.split(r";\s+(?=Godot|`|[A-Z])", rationale) if f"(line {line})" in part]
    return next((ids for ids in parts if evidence_id in ids), parts[0] if parts else [])


def _linked(pool: dict[str, EvidenceRef], changes: Sequence[Mapping[str, Any]],
            ctx: FollowupContext) -> dict[str, EvidenceRef]:
    """The evidence pool with a docs page on each change's mapping row that has none: the item's own link,
    else the page the row cites."""
    for change in changes:
        rid = change.get("evidence_id")
        ref = pool.get(rid) if rid else None
        if ref is None or ref.url:
            continue
        rows = ctx.mappings.rows if ctx.mappings is not None else {}
        url = change.get("docs_url") or (_row_url(rows[rid], ctx) if rid in rows else None)
        if url:
            pool[rid] = replace(ref, url=url)
    return pool


def changes_answer(query: FollowupQuery, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """Each changed line the question points at, once: where, the Godot 3 code, what to write in Godot 4 (or
    that it goes), why, and the docs it rests on (quoted in English), all cited. Several rules on one line (an
    `export var ... setget`) are one block; the rule asked about leads and is cited first."""
    from agent.answer.template import docs_gist

    inp = _input(ctx, question, language)
    cites = Citations(_linked(dict(inp.evidence), query.changes, ctx))
    groups: dict[tuple[str, int, str], list[Mapping[str, Any]]] = {}
    for change in query.changes:  # in the resolver's order: the construct's own rule first
        key = (str(change["chunk"].get("chunk_id")), change["line"], " ".join(str(change.get("old") or "").split()))
        groups.setdefault(key, []).append(change)
    lines: list[str] = []
    ordered = sorted(groups.values(), key=lambda g: (str(g[0]["chunk"].get("source_file")), g[0]["line"]))
    for group in ordered[:6]:
        lead = group[0]
        old = str(lead.get("old") or "").strip()
        lines += ["", _change_place(lead, language), "",
                  _after(phrase("godot3_form", language), f"`{' '.join(old.split())}`") if "\n" not in old
                  else f"{phrase('godot3_form', language)}\n```gdscript\n{old}\n```"]
        new, cited = lead.get("new"), cites.cite(lead.get("evidence_id"))
        if new:
            code = "\n".join(part.strip() for part in str(new).split(";")) if "; " in str(new) else str(new)
            lines += [f"{phrase('do_this', language)}{cited}", "```gdscript", code.rstrip(), "```"]
        else:
            key = "removed_in_4" if lead.get("change_type") == "removed" else "no_one_line"
            lines.append(phrase(key, language, note="") + cited)
        lines.append(_after(phrase("why_inline", language), why_change(lead, language)))
        for other in group[1:]:
            also = why_change(other, language) + cites.cite(other.get("evidence_id"))
            lines.append(_after(phrase("also", language), also))
        quotes = [(rid, docs_gist(ref, limit=400))
                  for rid in _docs_of_line(lead["chunk"], lead["line"], lead.get("evidence_id"))
                  if (ref := inp.evidence.get(rid)) is not None and ref.table == "docs_chunks" and ref.content]
        for rid, gist in quotes[:2]:
            if gist:
                lines += [phrase("docs_say", language), f"> {gist}{cites.cite(rid)}"]
    if len(ordered) > 6:
        lines += ["", phrase("more_changes", language, n=len(ordered) - 6)]
    return FollowupAnswer(_with_sources(lines[1:], cites, language),
                          list(dict.fromkeys(str(c["chunk"]["chunk_id"]) for c in query.changes)))


def _path(chunk: ChunkDict) -> str:
    path = str(chunk.get("source_file") or "")
    return "snippet.gd" if path.startswith("pasted://") else path


def line_answer(query: FollowupQuery, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """A line: its change; else that it needs none and the chunk it belongs to; else (empty, a comment, past the
    end) that it holds nothing to change and the nearest change, or the nearest code when the file needs none."""
    chunk = query.chunks[0]
    path = _path(chunk)
    if query.blank is None and query.changes:
        return changes_answer(query, ctx, question, language)
    if query.blank is None:
        head = phrase("line_no_change", language, line=query.line, path=path,
                      chunk=phrase("in_chunk", language, n=chunk_number_of(chunk), name=chunk.get("name") or "?"))
        inner = explain(chunk, ctx, question, language)
        return FollowupAnswer(head + "\n\n" + inner.text, inner.chunk_ids)
    if query.blank == "past_end":
        last = max([int(c.get("end_line") or 0) for c in ctx.report.get("chunks") or []
                    if c.get("source_file") == chunk.get("source_file")]
                   + [len((ctx.file_texts.get(str(chunk.get("source_file"))) or "").splitlines())])
        head = phrase("past_end", language, path=path, n=last, line=query.line)
    else:
        head = phrase("line_blank", language, line=query.line, path=path, what=phrase(query.blank, language))
    if query.changes:
        inner = changes_answer(query, ctx, question, language)
        near = phrase("nearest_change", language, near=query.changes[0]["line"])
    else:
        inner = explain(chunk, ctx, question, language)
        near = phrase("nearest_code", language, path=path,
                   chunk=phrase("in_chunk", language, n=chunk_number_of(chunk), name=chunk.get("name") or "?"))
    return FollowupAnswer(f"{head}{'' if language == 'zh' else ' '}{near}\n\n{inner.text}", inner.chunk_ids)


def which_file(query: FollowupQuery, language: str) -> FollowupAnswer:
    """Several files could be meant: name them and ask which."""
    files = [f"`{'snippet.gd' if f.startswith('pasted://') else f}`" for f in query.files[:8]]
    first = files[0].strip("`") if files else "player.gd"
    if query.target == "line":
        return FollowupAnswer(phrase("which_file_line", language, line=query.line, files=", ".join(files), first=first))
    return FollowupAnswer(phrase("which_file", language, files=", ".join(files), first=first))


_KIND_WORD: dict[str, dict[str, str]] = {
    "removed": {"en": "removed", "ko": "제거됨", "zh": "已移除", "ru": "удалено"},
    "syntax_change": {"en": "syntax change", "ko": "문법 변경", "zh": "语法变更", "ru": "изменение синтаксиса"},
    "rename": {"en": "renamed", "ko": "이름 변경", "zh": "改名", "ru": "переименовано"},
}


def _docs_urls(pool: Any, ids: Sequence[str]) -> dict[str, str]:
    """source_url of docs chunks by id (a mapping row cites its docs by chunk id)."""
    if pool is None or not ids:
        return {}
    sql = "SELECT chunk_id, source_url FROM godot_rag.docs_chunks WHERE chunk_id = ANY(%s) AND source_url IS NOT NULL"
    with pool.connection() as conn:
        rows = conn.execute(sql, (list(ids),)).fetchall()
    return dict((r["chunk_id"], r["source_url"]) if isinstance(r, Mapping) else (r[0], r[1]) for r in rows)


def _row_url(row: Any, ctx: FollowupContext) -> str | None:
    """A mapping row's docs page: its own link, else the first docs chunk it cites."""
    from agent.judge.citing import linked_url
    from agent.present import anchor_url

    md = row.hit.metadata
    url = md.get("docs_url") or md.get("source_url") or linked_url(row.hit)
    if url:
        return url
    ids = [i for i in md.get("evidence_chunk_ids") or [] if not str(i).startswith("godot-3.4:")]
    try:
        urls = _docs_urls(ctx.pool, ids)
    except Exception:  # noqa: BLE001 - a link is a courtesy: the answer stands without it
        return None
    return next((anchor_url(i, urls[i]) for i in ids if i in urls), None)


def knowledge_answer(query: FollowupQuery, ctx: FollowupContext, language: str) -> FollowupAnswer | None:
    """A construct the run does not use ("what replaces yield?", "what do I do with setget?"): the knowledge
    base's change rows for it, with why when the rule is known."""
    table = ctx.mappings
    if table is None:
        return None
    for word in query.words:
        names = [word, word.lstrip("@")]
        rows = [r for r in table.named(names) if r.documents_a_change and not r.derived]
        rows = rows or [r for r in table.named(names[:1]) if r.status != "rejected"]
        if not rows and word.islower():  # "the tween node": the class is `Tween`
            rows = [r for r in table.named([word.capitalize()]) if r.documents_a_change and not r.derived]
        if not rows:
            continue
        pool = dict(_input(ctx, "", language).evidence)
        for r in rows[:4]:
            known = pool.get(r.mapping_id)
            if known is None or not known.url:  # retrieved in the run without a link: link it
                pool[r.mapping_id] = replace(known, url=_row_url(r, ctx)) if known else EvidenceRef(
                    evidence_id=r.mapping_id, table="api_mapping", title=r.hit.title or r.mapping_id,
                    url=_row_url(r, ctx), source_api=r.source_api, target_api=r.target_api)
        cites = Citations(pool)
        lines = [phrase("kb_not_in_run", language, name=word), ""]
        for r in rows[:4]:
            key = "kb_renamed" if r.target_api else "kb_gone"
            kind = _KIND_WORD.get(r.change_type, {}).get(language, r.change_type.replace("_", " "))
            lines.append("- " + phrase(key, language, old=r.source_api, new=r.target_api or "", kind=kind)
                         + cites.cite(r.mapping_id))
            rule = next((k for k in (r.source_api, f"{r.source_api}_keyword") if k in _WHY_RULE), None)
            if rule:
                lines.append("  " + _after(phrase("why_inline", language), _WHY_RULE[rule].get(language, "")))
        return FollowupAnswer(_with_sources(lines, cites, language))
    return None


async def answer_followup(question: str, report: Mapping[str, Any], *, chunk_texts: Mapping[str, str] | None = None,
                          retrieve: RetrieveFn | None = None, ctx: FollowupContext | None = None) -> FollowupAnswer:
    """Answer from the stored run (see module docstring); `retrieve` is a sync Retriever.retrieve."""
    ctx = ctx or FollowupContext(report=report, chunk_texts=chunk_texts or {}, retrieve=retrieve)
    language = _language(question, report)
    query = resolve(question, report, ctx.chunk_texts, ctx.history, file_texts=ctx.file_texts)
    return await asyncio.to_thread(answer_query, query, ctx, question, language)


def answer_query(query: FollowupQuery, ctx: FollowupContext, question: str, language: str) -> FollowupAnswer:
    """The reply for a resolved follow-up: specific whenever the question named something the run holds."""
    report = ctx.report
    if query.number is not None:
        return FollowupAnswer(phrase("which_chunk", language, total=len(report.get("chunks") or [])))
    if query.target == "kb":
        return knowledge_answer(query, ctx, language) or general(report, language)
    chunks = query.chunks
    if not chunks and query.files and (query.target == "line" or query.target == "whole" and len(query.files) > 1):
        return which_file(query, language)
    if query.target == "line" and chunks:
        return line_answer(query, ctx, question, language)
    if query.changes and (query.target == "construct" or query.want == "replace"):
        return changes_answer(query, ctx, question, language)
    if query.target == "construct" and not query.changes:
        head = phrase("name_no_change", language, name=query.construct)
        if not chunks:
            return FollowupAnswer(head)
        inner = explain(chunks[0], ctx, question, language)
        return FollowupAnswer(head + "\n\n" + inner.text, inner.chunk_ids)
    if chunks and query.want == "code":
        return godot4_code(chunks, ctx, language)
    if chunks and (query.target in ("file", "whole") or query.want == "why" and len(chunks) > 1):
        return why_flagged(chunks, ctx, question, language)
    if chunks:
        return explain(chunks[0], ctx, question, language)
    return general(report, language)


def general(report: Mapping[str, Any], language: str) -> FollowupAnswer:
    """No chunk named: the verdict, the flagged chunks, and how to ask about one."""
    verdict = report.get("verdict") or {}
    label = verdict.get("label") or "ambiguous"
    flagged = [c for c in report.get("chunks") or [] if is_flagged(c)]
    key = f"verdict_{label}" if label in ("godot3", "godot4", "mixed") else "verdict_ambiguous"
    out = [phrase(key, language)]
    if flagged:
        out.append(phrase("flagged_list", language, items=", ".join(
            f"#{chunk_number_of(c)} {where(c)} (`{c.get('name') or c.get('chunk_kind')}`)" for c in flagged[:8])))
    out.append(phrase("ask_more", language))
    return FollowupAnswer("\n".join(out), [c["chunk_id"] for c in flagged[:8]])


async def followup_context(service: Any, run_id: str, question: str,
                           history: list[tuple[str, str]] | None = None) -> FollowupContext:
    """Everything a follow-up reads, from an `AnalysisService`'s store and retriever."""
    from agent.answer.inputs import docs_ids, load_docs_contents
    from agent.judge.dimension import detect_project_dimension

    report = await service.report(run_id)
    store = service.store
    rows = await store.chunk_rows(run_id)
    texts = {r["chunk_id"]: r.get("code_text") or "" for r in rows}
    chunks = await store.load_chunks(run_id, list(texts))
    files = {f["path"] for f in await store.files(run_id) if f.get("included") and str(f["path"]).endswith(".gd")}
    file_texts = {p: t for p in files if (t := await store.file_text(run_id, p)) is not None}
    retriever = getattr(service, "retriever", None)
    return FollowupContext(
        report=report, chunk_texts=texts, contents=await load_docs_contents(store.pool, docs_ids(report["chunks"])),
        file_texts=file_texts, retrieve=retriever.retrieve if retriever is not None else None,
        props=InheritedProperties(retriever.pool) if retriever is not None else None,
        kb=await asyncio.to_thread(knowledge_context, retriever) if retriever is not None else None,
        mappings=await asyncio.to_thread(mapping_table_for, retriever) if retriever is not None else None,
        dimension=detect_project_dimension(chunks), history=list(history or []),
        pool=retriever.pool if retriever is not None else None,
    )


async def answer_for_run(service: Any, run_id: str, question: str, history: list[tuple[str, str]] | None = None,
                         on_token: Callable[[str], Any] | None = None) -> FollowupAnswer:
    """Answer a follow-up about a stored run through an `AnalysisService`; `history` is the thread's memory.

    A question about no chunk in particular goes to the answer organiser when an LLM is configured
    (it sees the conversation and streams through `on_token`); everything else is answered here.
    """
    ctx = await followup_context(service, run_id, question, history)
    query = resolve(question, ctx.report, ctx.chunk_texts, ctx.history, file_texts=ctx.file_texts)
    settings = service.settings
    if query.target == "none" and settings.llm_base_url and not wants_code(question):
        from agent.answer import answer_run

        answer = await answer_run(service.store, ctx.report, settings=settings, retriever=service.retriever,
                                  prompt=question, history=ctx.history, dimension=ctx.dimension, on_token=on_token)
        return FollowupAnswer(answer.markdown, [], answer.suggested_code, answer.validation_failures)
    return await asyncio.to_thread(answer_query, query, ctx, question, _language(question, ctx.report))
