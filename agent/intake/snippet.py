"""Pasted text: fences, kind inference, binary refusal, and pasted expanded projects.

A paste whose first line is a `# <relative/path>` header (as produced by the expansion view)
is split back into files, so a project can be shared as one text block.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from agent.intake.errors import IntakeError
from agent.intake.expand import Entry, safe_relative
from agent.models import SourceKind
from agent.settings import Settings

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
_HEADER = re.compile(
    r"^# ((?:[\w.@+-]+/)*(?:project\.godot"
    r"|[\w.@+-]+\.(?:gd|tscn|tres|godot|import|uid|cfg|md|txt|json|gdshader|cs)"
    r"|\.gitignore|\.gdignore|README|LICENSE))[ \t]*$"
)
_HINTS: dict[str, SourceKind] = {
    "gdscript": "gdscript",
    "gd": "gdscript",
    "godot": "gdscript",
    "python": "gdscript",
    "py": "gdscript",
    "tscn": "scene",
    "scene": "scene",
    "tres": "resource",
    "resource": "resource",
    "project": "project_config",
    "project.godot": "project_config",
    "ini": "project_config",
    "cfg": "project_config",
    "import": "import",
    "toml": "project_config",
}
_SUFFIX: dict[str, str] = {
    "gdscript": ".gd",
    "scene": ".tscn",
    "resource": ".tres",
    "project_config": ".godot",
    "import": ".import",
    "markdown": ".md",
    "unknown": ".gd",
}


def snippet_id(text: str) -> str:
    """12 hex of the paste's sha256: the `<id>` in `pasted://snippet-<id>.gd`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def check_paste(text: str, settings: Settings) -> None:
    """Refuse empty, binary, NUL-containing and oversized pastes with a clear message."""
    if not text or not text.strip():
        raise IntakeError(
            "The pasted text is empty: paste GDScript, a scene or project file, or give a file."
        )
    if "\0" in text:
        raise IntakeError(
            "The pasted text contains NUL bytes, so it looks like binary data; paste source code."
        )
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > settings.max_file_bytes:
        raise IntakeError(
            f"The pasted text is {size:,} bytes, over the file size limit of {settings.max_file_bytes:,}."
        )
    sample = text[:20000]
    odd = sum(
        1
        for ch in sample
        if (unicodedata.category(ch) in ("Cc", "Cs", "Co") and ch not in "\t\n\r\f") or ch == "\ufffd"
    )
    if odd > max(4, len(sample) // 100):
        raise IntakeError(
            "The pasted text looks like binary data (control characters); paste source code as text."
        )


def infer_kind(text: str, *, extension_hint: str | None, stated: str | None) -> SourceKind:
    """Extension hint first, then the content, then the language the user stated."""
    if extension_hint and extension_hint.lower().lstrip(".") in _HINTS:
        return _HINTS[extension_hint.lower().lstrip(".")]
    head = text.lstrip("\ufeff \t\r\n")[:4000]
    if head.startswith("[gd_scene"):
        return "scene"
    if head.startswith("[gd_resource"):
        return "resource"
    if re.search(r"^config_version\s*=", head, re.M) or head.startswith("[application]"):
        return "project_config"
    if head.startswith(("[remap]", "[deps]")):
        return "import"
    if stated and stated.lower().lstrip(".") in _HINTS:
        return _HINTS[stated.lower().lstrip(".")]
    return "gdscript"


def unfence(text: str) -> list[tuple[str | None, str]]:
    """(fence tag, body) for each fenced block, or [(None, text)] when there are no fences."""
    blocks = [(m.group(1) or None, m.group(2)) for m in _FENCE.finditer(text)]
    return blocks or [(None, text)]


def split_expanded(text: str) -> list[tuple[str, str]] | None:
    """Split a pasted `# path` expansion back into (path, content); None if it is not one."""
    lines = text.replace("\r\n", "\n").split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not _HEADER.match(lines[first]):
        return None
    files: list[tuple[str, list[str]]] = []
    for line in lines[first:]:
        m = _HEADER.match(line)
        if m:
            files.append((m.group(1), []))
        else:
            files[-1][1].append(line)
    out = []
    for path, body in files:
        while body and not body[-1].strip():
            body.pop()  # the blank separator before the next header is not content
        out.append((path, "\n".join(body) + "\n" if body else ""))
    return out


def snippet_entries(text: str, *, language_hint: str | None) -> tuple[list[Entry], SourceKind, str]:
    """Entries for a paste, its kind, and its `pasted://snippet-<id>.<ext>` name."""
    sid = snippet_id(text)
    blocks = unfence(text)
    if len(blocks) == 1 and blocks[0][0] is None:
        project = split_expanded(text)
        if project is not None:
            entries = [_entry(safe_relative(path, where="the pasted text"), body) for path, body in project]
            return entries, "unknown", f"pasted://snippet-{sid}.gd"
    entries = []
    kinds: list[SourceKind] = []
    for n, (tag, body) in enumerate(blocks, start=1):
        kind = infer_kind(body, extension_hint=tag, stated=language_hint)
        kinds.append(kind)
        suffix = "" if len(blocks) == 1 else f"-{n}"
        entries.append(_entry(f"pasted://snippet-{sid}{suffix}{_SUFFIX[kind]}", body))
    kind = kinds[0] if len(set(kinds)) == 1 else "unknown"
    return entries, kind, f"pasted://snippet-{sid}{_SUFFIX[kinds[0]]}"


def _entry(path: str, body: str) -> Entry:
    data = body.encode("utf-8", "surrogatepass")
    return Entry(path=path, size=len(data), read=lambda: data)
