"""Parse the crawled docs Markdown into typed blocks.

The corpus is html2text-style Markdown: `#` headings, paragraphs hard-wrapped at ~78
columns, `  * ` bullets (one item per line), `a | b` tables with a `---|---` separator,
and code regions indented by four spaces that open with two whitespace-only lines; a
region holding several snippets (GDScript, then C#) separates them with three. Nothing
carries a language tag, so `detect_language` guesses it from the code itself.

Output of `godot-rag crawl` is also read: fenced code (```` ```gdscript ````) keeps its tag,
and the crawler's member-anchor lines (`<a id="..."></a>`) are markup, not text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TABLE_SEP = re.compile(r"^\s*-{3,}(\s*\|\s*-{3,})+\s*$")
_BULLET = re.compile(r"^(\s*)[*-] (.*)$")
_FOOTER_MARKERS = ("Built with Sphinx", "Please read the User-contributed notes policy")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w#+.-]*)\s*$")
_ANCHOR_LINE = re.compile(r'^\s*<a id="[^"]+"></a>\s*$')
_LANGUAGE_TAGS = {
    "gd": "gdscript", "gdscript": "gdscript", "cs": "csharp", "c#": "csharp", "csharp": "csharp",
    "cpp": "cpp", "c++": "cpp", "glsl": "glsl", "gdshader": "glsl", "shader": "glsl",
    "bash": "shell", "sh": "shell", "shell": "shell", "console": "shell", "ini": "ini", "python": "python",
}
_TAB_LABELS = re.compile(r"^(GDScript|C#|C\+\+|GLSL|Shader|Python|Bash|Windows|Linux|macOS)+$")
"""Code-tab captions ("GDScriptC#") left over from the HTML: UI text, not documentation."""


@dataclass
class CodeBlock:
    """One snippet with its guessed language."""

    language: str
    code: str

    def as_json(self) -> dict[str, str]:
        return {"language": self.language, "code": self.code}


@dataclass
class Block:
    """A structural unit of a page.

    kind is heading | paragraph | bullets | table | code. `text` is the unwrapped
    paragraph or heading text; `items` are bullet items or table rows (cells joined by ` | `);
    `header` is a table's header row; `code` holds the snippets of a code region.
    """

    kind: str
    text: str = ""
    level: int = 0
    items: list[str] = field(default_factory=list)
    header: str = ""
    code: list[CodeBlock] = field(default_factory=list)


def _is_ws_indented(line: str) -> bool:
    return len(line) >= 4 and line.strip() == ""


def strip_footer(text: str) -> str:
    """Drop the user-notes section and the Sphinx footer, which are not documentation."""
    cut = text.find("\n## User-contributed notes")
    if cut >= 0:
        text = text[:cut]
    out = []
    for line in text.split("\n"):
        if any(m in line for m in _FOOTER_MARKERS) or re.match(r"^\s*\*\[[^\]]+\]:", line):
            continue
        out.append(line)
    return "\n".join(out)


def parse_blocks(text: str) -> list[Block]:
    """Split page text into blocks in document order."""
    lines = strip_footer(text.replace("\r\n", "\n")).split("\n")
    blocks: list[Block] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.strip() == "" and not _opens_code(lines, i):
            i += 1
            continue
        if _ANCHOR_LINE.match(line):
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            block, i = _take_fenced(lines, i, fence.group(1), fence.group(2))
            if block:
                blocks.append(block)
            continue
        m = _HEADING.match(line)
        if m:
            blocks.append(Block("heading", text=_clean_inline(m.group(2)), level=len(m.group(1))))
            i += 1
            continue
        if _is_ws_indented(line):
            j = i
            while j < n and (lines[j].startswith("    ") or _is_ws_indented(lines[j])):
                j += 1
            code = _split_code_region(lines[i:j])
            if code:
                blocks.append(Block("code", code=code))
            i = j
            continue
        if i + 1 < n and "|" in line and _TABLE_SEP.match(lines[i + 1]):
            header = _row(line)
            rows = []
            j = i + 2
            while j < n and lines[j].strip() and "|" in lines[j]:
                rows.append(_row(lines[j]))
                j += 1
            blocks.append(Block("table", header=header, items=rows))
            i = j
            continue
        if _BULLET.match(line):
            items, i = _take_bullets(lines, i)
            if items:
                blocks.append(Block("bullets", items=items))
            continue
        j = i
        para: list[str] = []
        while j < n and lines[j].strip() != "" and not _HEADING.match(lines[j]):
            if _FENCE.match(lines[j]) or _ANCHOR_LINE.match(lines[j]):
                break
            if j > i and (_BULLET.match(lines[j]) or (j + 1 < n and "|" in lines[j] and _TABLE_SEP.match(lines[j + 1]))):
                break
            para.append(lines[j].strip())
            j += 1
        if not para:  # defensive: never loop forever on an unexpected line
            para, j = [line.strip()], i + 1
        text_ = _clean_inline(" ".join(para))
        if not _TAB_LABELS.match(text_):
            blocks.append(Block("paragraph", text=text_))
        i = j
    return blocks


def _opens_code(lines: list[str], j: int) -> bool:
    return _is_ws_indented(lines[j]) and j + 1 < len(lines) and _is_ws_indented(lines[j + 1])


def _take_bullets(lines: list[str], i: int) -> tuple[list[str], int]:
    """Gather a bullet list (items may be separated by blank lines); return items and next index."""
    items: list[str] = []
    j, n = i, len(lines)
    while j < n:
        ln = lines[j]
        if ln.strip() == "":
            if _opens_code(lines, j):
                break
            k = j
            while k < n and lines[k].strip() == "" and not _opens_code(lines, k):
                k += 1
            if k < n and _BULLET.match(lines[k]):
                j = k
                continue
            break
        bm = _BULLET.match(ln)
        if bm:
            depth = len(bm.group(1)) // 4
            items.append(("  " * depth) + _clean_inline(bm.group(2)))
        elif items and not _HEADING.match(ln):
            items[-1] += " " + _clean_inline(ln)
        else:
            break
        j += 1
    return [it for it in items if it.strip()], j


def _take_fenced(lines: list[str], i: int, fence: str, tag: str) -> tuple[Block | None, int]:
    """A ``` / ~~~ fenced block up to its closing fence (or the page end); the tag names the language."""
    j = i + 1
    body: list[str] = []
    while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                  and lines[j].strip().strip(fence[0]) == ""):
        body.append(lines[j].rstrip())
        j += 1
    code = "\n".join(body).strip("\n")
    if not code.strip():
        return None, j + 1
    language = _LANGUAGE_TAGS.get(tag.lower()) or detect_language(code)
    return Block("code", code=[CodeBlock(language, code)]), j + 1


def _row(line: str) -> str:
    """Table cells joined by ` | `; an escaped `\\|` stays inside its cell."""
    cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())]
    return " | ".join(cells)


def _clean_inline(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _split_code_region(lines: list[str]) -> list[CodeBlock]:
    """Dedent a code region and split it on runs of three or more blank lines."""
    body = [ln[4:] if ln.startswith("    ") else "" for ln in lines]
    snippets: list[list[str]] = [[]]
    blank = 0
    for ln in body:
        if ln.strip() == "":
            blank += 1
            snippets[-1].append(ln)
            continue
        if blank >= 3 and any(s.strip() for s in snippets[-1]):
            snippets.append([])
        blank = 0
        snippets[-1].append(ln)
    out = []
    for s in snippets:
        code = "\n".join(x.rstrip() for x in s).strip("\n")
        if code.strip():
            out.append(CodeBlock(detect_language(code), code))
    return out


_CSHARP = re.compile(
    r"(^\s*using [A-Z][\w.]*;|\bpublic\s+(partial\s+)?(class|override|void|static)|\bprivate\s+\w|"
    r"\bnew [A-Z]\w*\(|\bvar \w+ = .*;\s*$|\bGD\.Print|\[Export\]|;\s*$)",
    re.M,
)
_GDSCRIPT = re.compile(
    r"(^\s*(func|extends|var|const|signal|class_name|onready|export|@\w+|enum|static func|await|yield)\b|:\s*$)",
    re.M,
)
_SHADER = re.compile(r"^\s*(shader_type|render_mode|uniform|varying)\b|void (fragment|vertex|light)\(\)", re.M)
_SHELL = re.compile(r"^\s*(\$ |godot(\.\w+)? --|scons |git |pip |sudo |cd |export \w+=)", re.M)
_INI = re.compile(r"^\s*\[[\w/ .\"]+\]\s*$", re.M)


def detect_language(code: str) -> str:
    """Best-effort language of a snippet: gdscript, csharp, shader, shell, ini, cpp or text."""
    if _SHADER.search(code):
        return "shader"
    cs = len(_CSHARP.findall(code))
    gd = len(_GDSCRIPT.findall(code))
    if "#include" in code or re.search(r"\b(void|int)\s+\w+::\w+\(", code):
        return "cpp"
    if cs > gd and cs > 0:
        return "csharp"
    if gd > 0:
        return "gdscript"
    if _SHELL.search(code):
        return "shell"
    if _INI.search(code):
        return "ini"
    if re.search(r"\w+\(.*\)", code):
        return "gdscript"
    return "text"
