"""What a follow-up question is about and what it wants, resolved against the run (no LLM).

Users do not write "explain chunk 4"; they write "How do I write the yield line in Godot 4?",
"4번 청크 설명해줘", "what's wrong with line 7", "show me the whole thing in Godot 4" or "что делать с
setget?". A question is read for a target — a chunk number, a line (read in its file: its change, the chunk
holding it, or for an empty line the nearest change), a file, a function, the whole script, or a construct the
run's code or change items name (`yield`, `move_and_slide`, `KinematicBody2D`) — and for what it wants: the
Godot 4 code, what replaces something (what to do with it), why it was flagged, or an explanation. Only
identifiers the run itself holds count as constructs, so English words in a question never pose as code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.graph.verdict import changes_nothing

ChunkDict = Mapping[str, Any]
Want = Literal["code", "replace", "why", "explain", "general"]
Target = Literal["number", "line", "file", "name", "construct", "history", "whole", "kb", "none"]

_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
              "十": 10}
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                "eighth": 8, "ninth": 9, "tenth": 10}
_N = r"(\d+|[一二两三四五六七八九十])"
_CHUNK_WORD = r"(?:chunks?|chunck|chnk|청크|덩어리|块|代码块|片段|фрагмент\w*|кусо?к\w*|чанк\w*|блок\w*)"
_CHUNK_NO = re.compile(
    rf"{_CHUNK_WORD}\s*(?:#|no\.?|number|№|번호)?\s*{_N}"                # chunk 4, chunk #4, 청크 4, фрагмент №4
    rf"|{_N}\s*(?:번째|번|th|st|nd|rd|-?(?:й|ий|ой|ый|м|ом))?\s*{_CHUNK_WORD}"  # 4번 청크, 4th chunk, 4-й фрагмент
    rf"|第\s*{_N}\s*(?:个|段)?\s*(?:代码)?(?:块|段|片段)"                       # 第4块, 第四个代码块
    r"|(?<![\w&])#(\d+)\b",                                                  # #4
    re.I,
)
_ORDINAL_CHUNK = re.compile(rf"\b({'|'.join(_EN_ORDINALS)})\s+{_CHUNK_WORD}", re.I)
_LINE_NO = re.compile(
    r"\b(?:line|ln|L)\s*#?\s*(\d+)\b|\blines?\s+(\d+)"                            # line 7, L7
    r"|(\d+)\s*(?:번째|번)?\s*(?:줄|행|라인)|(?:줄|라인)\s*(\d+)"                 # 7번째 줄, 7행, 라인 7
    r"|第\s*(\d+|[零一二两三四五六七八九十百]+)\s*行|(\d+)\s*行"                  # 第7行, 第十二行
    r"|строк\w*\s*(?:№\s*)?(\d+)|(\d+)\s*-?\w{0,2}\s*строк\w*",                  # строка 7, 7-я строка
    re.I,
)
_FILE = re.compile(r"[\w./-]+\.(?:gd|tscn|tres|godot|cfg|import)\b")
_ASCII_IDENT = re.compile(r"(?<![A-Za-z0-9_@])@?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?(?![A-Za-z0-9_])")
_CODE_IDENT = re.compile(r"@?[A-Za-z_][A-Za-z0-9_]*")

_WANTS_CODE = re.compile(
    r"godot\s*4\s*(version|code|equivalent|way|syntax)|convert|rewrite|re-write|\bport\b|migrat|upgrad|translat"
    r"|how\s+(?:do|can|should|would|to)\s+(?:i\s+|we\s+|you\s+)?(?:write|do|make|use|fix|change|code|express)"
    r"|(?:write|fix|change|update)\s+(?:it|this|that|the\b)|give\s+me\s+the\s+(?:godot\s*4|new|fixed)"
    r"|변환|바꿔|바꾸|고쳐|고치|작성|써\s*줘|써줘|어떻게\s*(?:써|쓰|작성|바꿔|바꾸|고쳐)"
    r"|转换|改写|迁移|改成|怎么写|如何写|怎么改|如何改|写法|升级"
    r"|перепиш|переписать|конверт|как\s+(?:написать|записать|переписать|сделать|исправить)|перевед|исправ"
    r"|godot\s*4\s*\S{0,3}\s*(버전|코드|版本|代码|верси|код)",
    re.I,
)
_WANTS_REPLACE = re.compile(
    r"replac|instead\s+of|equivalent|alternative|substitut|successor|what\s+(?:is|'s)\s+\S+\s+(?:now|called)"
    r"|renamed|new\s+name"
    r"|대신|대체|뭘로|무엇으로|뭐로|바뀌었|이름"
    r"|替代|代替|换成|取代|替换|改名|叫什么"
    r"|вместо|замен|аналог|переименова|на\s+что"
    r"|what\s+(?:do|should|can|must)\s+(?:i|we|you)\s+do\s+(?:with|about)|what\s+about\b|what\s+(?:do|should)\s+i\s+use"
    r"|still\s+(?:a\s+thing|exist|work|valid|there)|gone|removed|deprecated|no\s+longer"
    r"|어떻게\s*해|어떻게\s*하|어떡|어쩌|없어졌|사라졌|못\s*써"
    r"|怎么办|怎么处理|如何处理|还能用|不能用|没有了|被删|去掉了|废弃"
    r"|что\s+делать|как\s+быть|что\s+теперь\s+с|больше\s+нет|убрал|удал[её]н|не\s+работает",
    re.I,
)
_WANTS_WHY = re.compile(r"\bwhy\b|\bwhats?\s+wrong|what'?s\s+wrong|problem|issue with|flagged|왜|문제|为什么|为何|"
                        r"有什么问题|почему|зачем|что\s+не\s+так", re.I)
_WANTS_EXPLAIN = re.compile(r"explain|expla?in|what\s+does|what\s+is|meaning|설명|뭐야|뭐하는|무슨|의미|解释|解釋|"
                            r"什么意思|是什么|干什么|объясн|что\s+делает|что\s+такое|что\s+значит", re.I)
_WHOLE = re.compile(
    r"\b(?:whole|entire|entirely)\b|\ball\s+(?:of\s+)?(?:it|this|that|the\s+(?:code|script|file|thing))\b"
    r"|\b(?:everything|in\s+full)\b|\b(?:full|complete|completely)\s+(?:\w+\s+)?"
    r"(?:script|file|code|thing|version|program|source|project|conversion|port|rewrite|migration)"
    r"|전체|전부|모두|통째|싹\s*다|다\s*(?:바꿔|변환|고쳐|보여)"
    r"|全部|整个|整份|整段|完整|全文|通篇|所有(?:的)?代码|全都"
    r"|целиком|полностью|\bвесь\b|\bвсю\b|\bвс[её]\s+(?:на|под|в|для|сразу|целиком)",
    re.I,
)
"""Asks for the whole script ("the whole thing", "full script", "全部", "전체", "целиком"), not a part of it."""
_REFERS_BACK = re.compile(r"\b(it|this|that|them)\b|그거|그것|이거|이것|이\s*부분|这个|那个|它|это|этот|эту|его", re.I)

STOPWORDS = frozenset("""
a an and are as at be but by can code chunk chunks could do does explain file files fix for from function
get give godot how i if in into is it its line lines me my new no not of old on or please print script set
show so tell than that the then this to use used version what when where which why will with write you your
""".split())
"""Common English words that are also plausible identifiers: never a construct unless code-shaped."""


@dataclass
class FollowupQuery:
    """A follow-up, resolved: what it targets in the run and what it wants."""

    want: Want
    target: Target
    chunks: list[ChunkDict] = field(default_factory=list)
    changes: list[Mapping[str, Any]] = field(default_factory=list)
    """The run's change items (a chunk judgment's suggested changes, with chunk and line) it points at."""
    construct: str | None = None
    line: int | None = None
    number: int | None = None
    """A chunk number the run does not have (the reply says which numbers exist)."""
    words: list[str] = field(default_factory=list)
    """Target "kb": the question's identifiers, for the knowledge base's mapping rows (nothing in the run)."""
    blank: str | None = None
    """Target "line" on no code: "empty", "comment" or "past_end" (`changes` are then the nearest change's)."""
    path: str | None = None
    """Target "line": the file the line was read in."""
    files: list[str] = field(default_factory=list)
    """Several files could be meant (a line in none named, a whole script of several): the reply asks which."""


def chunk_number_of(chunk: ChunkDict) -> int:
    """The number users see (`#5`): chunk_order + 1."""
    return int(chunk.get("chunk_order", 0)) + 1


def is_flagged(chunk: ChunkDict) -> bool:
    j = chunk.get("judgment") or {}
    return j.get("version_signal") == "godot3" or bool(j.get("migration_required"))


_ASKS_VERSION = re.compile(
    r"^\s*(?:is|are)\b.*\bgodot\s*[34](?:\.\d+)?\s*(?:code|script)?\s*\??\s*$|godot\s*3\s*(?:or|или|还是|아니면)\s*(?:godot\s*)?4"
    r"|(?:是|算)\s*godot\s*[34]\s*(?:的)?(?:代码)?\s*(?:吗|嘛)|godot\s*[34]\s*(?:코드|버전)?(?:인가|야|이야|맞아)\s*\??\s*$"
    r"|^\s*(?:это|он|она|оно)\b.*\bgodot\s*[34]\s*\?\s*$",
    re.I,
)
"""A yes/no question of version ("is the whole thing Godot 3?"): answered by why the code is flagged."""


def wants(question: str) -> Want:
    """Code beats replace beats why beats explain; "general" when the question says none of them."""
    if _ASKS_VERSION.search(question):
        return "why"
    if _WANTS_CODE.search(question):
        return "code"
    if _WANTS_REPLACE.search(question):
        return "replace"
    if _WANTS_WHY.search(question):
        return "why"
    if _WANTS_EXPLAIN.search(question):
        return "explain"
    return "general"


def wants_code(question: str) -> bool:
    return bool(_WANTS_CODE.search(question))


def wants_whole(question: str) -> bool:
    """Asks for the whole script rather than a part of it."""
    return bool(_WHOLE.search(question))


def refers_back(question: str) -> bool:
    return bool(_REFERS_BACK.search(question))


def _number(text: str) -> int:
    """`12`, or a Chinese numeral up to 999 (`十二`, `二十`, `一百零五`)."""
    if text.isdigit():
        return int(text)
    total, digit = 0, 0
    for ch in text:
        if ch in ("十", "百"):
            total += (digit or 1) * (10 if ch == "十" else 100)
            digit = 0
        else:
            digit = _ZH_DIGITS.get(ch, 0)
    return total + digit


def chunk_number(question: str) -> int | None:
    m = _CHUNK_NO.search(question)
    if m:
        return _number(next(g for g in m.groups() if g))
    m = _ORDINAL_CHUNK.search(question)
    return _EN_ORDINALS[m.group(1).lower()] if m else None


def line_number(question: str) -> int | None:
    m = _LINE_NO.search(question)
    return _number(next(g for g in m.groups() if g)) if m else None


def changes_of(chunk: ChunkDict) -> list[dict[str, Any]]:
    """A flagged chunk's suggested changes, each with its chunk and file line (from the judge's `line N:` note)."""
    if not is_flagged(chunk):
        return []
    out = []
    for c in (chunk.get("judgment") or {}).get("suggested_changes") or []:
        if changes_nothing(c.get("old"), c.get("new")):
            continue
        m = re.match(r"line (\d+)", str(c.get("note") or ""))
        out.append({**c, "line": int(m.group(1)) if m else chunk.get("start_line"), "chunk": chunk})
    return out


def _names(text: str) -> set[str]:
    out = set()
    for m in _CODE_IDENT.finditer(text or ""):
        out.add(m.group(0))
    return out


def question_identifiers(question: str) -> list[str]:
    """Code-shaped words of the question, in order: `A.b` also yields `A` and `b`; file names are not words."""
    out: list[str] = []
    for m in _ASCII_IDENT.finditer(_FILE.sub(" ", question)):
        word = m.group(0)
        out += [word, *word.split(".")] if "." in word else [word]
    return list(dict.fromkeys(out))


def _code_shaped(word: str) -> bool:
    return "_" in word or "." in word or word.startswith("@") or any(ch.isupper() for ch in word[1:]) \
        or word[:1].isupper() and word.lower() not in STOPWORDS


def _construct_changes(question: str, changes: Sequence[Mapping[str, Any]],
                       texts: Mapping[str, str]) -> tuple[str | None, list[Mapping[str, Any]]]:
    """The first question word that a change item's old code names (else the run's code), and those items."""
    for word in question_identifiers(question):
        bare = word.lstrip("@")
        if word.lower() in STOPWORDS and not _code_shaped(word):
            continue
        hits = [c for c in changes if bare in _names(str(c.get("old") or "")) or
                word in _names(str(c.get("old") or ""))]
        if hits:
            return word, hits
    for word in question_identifiers(question):
        if word.lower() in STOPWORDS or len(word) < 3:
            continue
        if any(word in _names(t) for t in texts.values()):
            return word, []
    return None, []


def resolve(question: str, report: Mapping[str, Any], chunk_texts: Mapping[str, str] | None = None,
            history: Sequence[tuple[str, str]] = (), file_texts: Mapping[str, str] | None = None) -> FollowupQuery:
    """The question's target in the run and what it wants (see module docstring)."""
    chunk_texts = chunk_texts or {}
    chunks: list[ChunkDict] = list(report.get("chunks") or [])
    want = wants(question)
    whole = wants_whole(question)
    if whole and want in ("general", "replace"):  # "all of it in Godot 4", "покажи весь код"
        want = "code"
    all_changes = [c for chunk in chunks for c in changes_of(chunk)]

    number = chunk_number(question)
    if number is not None:
        hit = [c for c in chunks if chunk_number_of(c) == number]
        return FollowupQuery(want, "number", hit, [c for c in all_changes if c["chunk"] in hit],
                             number=None if hit else number)

    files = {str(c.get("source_file")) for c in chunks}
    named_file = None
    for token in _FILE.findall(question):
        named_file = next((f for f in sorted(files) if f == token or f.endswith("/" + token)), None) or named_file
    line = line_number(question)
    if line is not None and line > 0:
        return resolve_line(want, line, chunks, all_changes, named_file, chunk_texts, file_texts or {})

    construct, hits = _construct_changes(question, all_changes, chunk_texts)
    if hits:
        if named_file:
            hits = [c for c in hits if c["chunk"].get("source_file") == named_file] or hits
        owners = list({id(c["chunk"]): c["chunk"] for c in hits}.values())
        return FollowupQuery(want, "construct", owners, _about(hits, construct), construct=construct)

    if named_file:
        return FollowupQuery(want, "file", [c for c in chunks if c.get("source_file") == named_file])

    names = {str(c.get("chunk_id", "")).rsplit(":", 1)[-1]: c for c in chunks
             if c.get("chunk_kind") in {"function", "inner_class", "signal", "enum"}}
    for word in question_identifiers(question):
        if word in names:
            return FollowupQuery(want, "name", [names[word]], changes_of(names[word]))

    if construct:  # named in the code, but no change concerns it: explain where it is used
        used = [c for c in chunks if construct in _names(chunk_texts.get(str(c.get("chunk_id")), ""))]
        return FollowupQuery(want, "construct", used[:3], [], construct=construct)

    if whole:  # before "it": "all of it" is the script, not the chunk talked about last
        return FollowupQuery(want, "whole", whole_source(chunks), files=flagged_scripts(chunks))
    if refers_back(question) or want == "code":
        for role, text in reversed(list(history)):
            if role == "user":
                earlier = resolve(text, report, chunk_texts, file_texts=file_texts)
                if earlier.target not in ("none", "whole") and earlier.chunks:
                    return FollowupQuery(want, "history", earlier.chunks, earlier.changes,
                                         construct=earlier.construct, line=earlier.line)
    if want == "code" or want == "why" and not _identifiers_left(question):  # "why is it flagged?" of one script
        source = whole_source(chunks)
        if source or want == "code":
            return FollowupQuery(want, "whole", source, files=flagged_scripts(chunks))
    words = [w for w in question_identifiers(question) if w.lower() not in STOPWORDS or _code_shaped(w)]
    if words and want in ("replace", "explain", "why"):  # "what replaces yield?", no yield in the run
        return FollowupQuery(want, "kb", words=words)
    return FollowupQuery(want, "none")


def _rule_words(change: Mapping[str, Any]) -> set[str]:
    """What a change item is about: its rule (`setget`, `export_keyword`) and its mapping id's words."""
    head = re.sub(r"^line \d+:\s*", "", str(change.get("note") or "")).split(";")[0].strip()
    words = {head.lower(), *head.lower().split("_")} if " " not in head else set()
    tail = str(change.get("evidence_id") or "").rsplit(":", 1)[-1].lower()
    return words | set(re.split(r"[-_]", tail)) | {tail}


def _about(changes: Sequence[Mapping[str, Any]], construct: str | None) -> list[Mapping[str, Any]]:
    """Items in order, those whose rule is the construct asked about first (one line may carry two rules)."""
    key = (construct or "").lstrip("@").lower()
    return sorted(changes, key=lambda c: (key not in _rule_words(c), str(c["chunk"].get("source_file")), c["line"]))


def line_text(line: int, path: str, chunks: Sequence[ChunkDict], chunk_texts: Mapping[str, str],
              file_texts: Mapping[str, str]) -> str | None:
    """The text of a file's line, from the file or the chunk holding it (None: not known)."""
    text = file_texts.get(path)
    if text is not None:
        lines = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else None
    for c in chunks:
        start = int(c.get("start_line") or 0)
        if c.get("source_file") == path and start <= line <= int(c.get("end_line") or 0):
            code = chunk_texts.get(str(c.get("chunk_id")))
            lines = code.splitlines() if code is not None else []
            return lines[line - start] if line - start < len(lines) else None
    return None


def resolve_line(want: Want, line: int, chunks: Sequence[ChunkDict], all_changes: Sequence[Mapping[str, Any]],
                 named_file: str | None, chunk_texts: Mapping[str, str],
                 file_texts: Mapping[str, str]) -> FollowupQuery:
    """A line number, read in the named file, else the only file, the only file changed on that line or at all,
    or the only file with code there: its change, else the chunk holding it, else (empty, a comment, past the
    end) the nearest change. Several files and none of these: the reply asks which."""
    def holds(c: ChunkDict) -> bool:
        return int(c.get("start_line") or 0) <= line <= int(c.get("end_line") or 0)

    def distance(c: ChunkDict) -> int:
        return min(abs(int(c.get("start_line") or 0) - line), abs(int(c.get("end_line") or 0) - line))

    files = sorted({str(c.get("source_file")) for c in chunks})
    changed_at = sorted({str(c["chunk"].get("source_file")) for c in all_changes if c["line"] == line})
    changed = sorted({str(c["chunk"].get("source_file")) for c in all_changes})
    holding = sorted({str(c.get("source_file")) for c in chunks if holds(c)})
    path = named_file or next((group[0] for group in (files, changed_at, changed, holding) if len(group) == 1), None)
    if path is None:
        return FollowupQuery(want, "line", line=line, files=changed or holding or files)
    mine = [c for c in chunks if c.get("source_file") == path]
    changes = [c for c in all_changes if c["chunk"].get("source_file") == path]
    at = [c for c in changes if c["line"] == line]
    if at:
        owners = list({id(c["chunk"]): c["chunk"] for c in at}.values())
        return FollowupQuery(want, "line", owners, at, line=line, path=path)
    holder = next((c for c in mine if holds(c)), None)
    text = line_text(line, path, chunks, chunk_texts, file_texts)
    last = max([int(c.get("end_line") or 0) for c in mine] + [len((file_texts.get(path) or "").splitlines())])
    blank: str | None = None
    if line > last:
        blank = "past_end"
    elif text is not None and not text.strip() or text is None and holder is None:  # between chunks: no code
        blank = "empty"
    elif text is not None and text.lstrip().startswith("#"):
        blank = "comment"
    if blank is None:
        return FollowupQuery(want, "line", [holder or min(mine, key=distance)], [], line=line, path=path)
    if changes:
        near = min(changes, key=lambda c: (abs(c["line"] - line), c["line"]))
        group = [c for c in changes if c["line"] == near["line"] and c["chunk"] is near["chunk"]]
        return FollowupQuery(want, "line", [near["chunk"]], group, line=line, path=path, blank=blank)
    return FollowupQuery(want, "line", [min(mine, key=distance)], [], line=line, path=path, blank=blank)


def flagged_scripts(chunks: Sequence[ChunkDict]) -> list[str]:
    """The run's scripts with a flagged chunk."""
    return sorted({str(c.get("source_file")) for c in chunks if is_flagged(c)
                   and str(c.get("source_file", "")).endswith(".gd")})


def _identifiers_left(question: str) -> list[str]:
    return [w for w in question_identifiers(question) if w.lower() not in STOPWORDS and w.lower() != "flagged"]


def whole_source(chunks: Sequence[ChunkDict]) -> list[ChunkDict]:
    """"Show me the Godot 4 version" with nothing named: the one script of the run, or the one flagged script."""
    files = {c.get("source_file") for c in chunks if str(c.get("source_file", "")).endswith(".gd")}
    flagged = {c.get("source_file") for c in chunks if is_flagged(c)}
    target = next(iter(files)) if len(files) == 1 else (next(iter(flagged)) if len(flagged) == 1 else None)
    return [c for c in chunks if c.get("source_file") == target] if target else []
