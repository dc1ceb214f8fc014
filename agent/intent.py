"""What the user wants from the prompt alone: version check, migration, explanation, or general.

The prompt is matched against plain cue lists in English, Korean, Chinese and Russian; it is
never parsed as code and never mixed into the code being chunked. `prompt_terms` are the
canonical English cues (`Godot 3`, `Godot 4`, `migration`, `deprecated`, `renamed`,
`description`, `usage`) that the retriever adds to a chunk's own search terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TASK_TYPES = ("version_check", "migration", "explain", "general")

_CUES: dict[str, str] = {
    "Godot 3": r"godot\s*[-:]?\s*3|\bgd\s*3\b|\b3\.x\b|годо\w*\s*3|고도\s*3",
    "Godot 4": r"godot\s*[-:]?\s*4|\bgd\s*4\b|\b4\.x\b|годо\w*\s*4|고도\s*4",
    "migration": r"migrat|convert|conversion|\bport(?:ing)?\b|upgrad"
    r"|변환|마이그레이션|이전|업그레이드|转换|迁移|升级|移植"
    r"|миграц|перенос|перенес|конверт|преобраз|обнов",
    "deprecated": r"deprecat|obsolete|removed|no longer"
    r"|폐기|지원\s*중단|사용\s*중단|더\s*이상|弃用|废弃|过时|移除"
    r"|устар|удал[её]н|больше не",
    "renamed": r"renam|new name|이름\s*(?:변경|바뀐|이\s*바뀐)|重命名|改名|更名|переимен",
    "description": r"explain|describe|description|what does|meaning|\bmean\b"
    r"|설명|뜻|의미|무슨|解释|说明|含义|什么意思|意思"
    r"|объясн|опиш|описан|что делает|что означает|значит",
    "usage": r"usage|how (?:do i|to) use|how does .* work"
    r"|사용법|사용\s*방법|어떻게\s*사용|用法|怎么用|如何使用|使用方法"
    r"|как использ|использован",
}
_VERSION_QUESTION = re.compile(
    r"which version|what version|is (?:this|it) godot|godot\s*3\s*(?:or|/|vs\.?)\s*(?:godot\s*)?4"
    r"|whether|check"
    r"|버전|판별|확인|인지|版本|是否|哪个|检查|判断|верси|проверь|провер|ли это",
    re.I,
)
_COMPILED = {term: re.compile(rx, re.I) for term, rx in _CUES.items()}
# "Godot: 3 or 4", "Godot 3 или 4", "godot 4/3": a version, then the other one after "or" and alike
_VERSION_PAIR = re.compile(
    r"(?:godot|годо\w*|고도|\bgd)[\s:,\-]*(?:v\.?\s*)?([34])(?:\.x)?[\s,]*"
    r"(?:or|vs\.?|/|или|либо|还是|或者|或|또는|아니면|이야|이냐|인지)\s*"
    r"(?:godot\s*|годо\w*\s*|고도\s*|v\.?\s*)?([34])(?!\d)",
    re.I,
)


@dataclass(frozen=True)
class Intent:
    """The task the prompt asks for, its cue terms, and the prompt's language."""

    task_type: str
    prompt_terms: list[str] = field(default_factory=list)
    language: str = "unknown"


def detect_language(prompt: str) -> str:
    """En | ko | zh | ru | unknown, by script (Hangul before Han: Korean text may contain Hanja)."""
    if re.search(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]", prompt):
        return "ko"
    if re.search(r"[\u4e00-\u9fff\u3400-\u4dbf]", prompt):
        return "zh"
    if re.search(r"[\u0400-\u04ff]", prompt):
        return "ru"
    if re.search(r"[A-Za-z]", prompt):
        return "en"
    return "unknown"


def detect_intent(prompt: str) -> Intent:
    """Classify a prompt. An empty prompt means the product's default: a version check."""
    text = (prompt or "").strip()
    if not text:
        return Intent(task_type="version_check", prompt_terms=[], language="unknown")
    terms = [term for term, rx in _COMPILED.items() if rx.search(text)]
    versions = {f"Godot {v}" for m in _VERSION_PAIR.finditer(text) for v in m.groups()}
    if versions - set(terms):
        terms = [term for term in _CUES if term in terms or term in versions]
    if _VERSION_QUESTION.search(text) and (
        "Godot 3" in terms or "Godot 4" in terms or "migration" not in terms
    ):
        task = "version_check"
    elif {"migration", "deprecated", "renamed"} & set(terms):
        task = "migration"
    elif {"description", "usage"} & set(terms):
        task = "explain"
    elif "Godot 3" in terms or "Godot 4" in terms:
        task = "version_check"
    else:
        task = "general"
    if task == "migration" and "migration" not in terms:
        terms.append("migration")
    return Intent(task_type=task, prompt_terms=terms, language=detect_language(text))
