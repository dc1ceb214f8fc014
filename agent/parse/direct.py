"""Direct chunkers for Godot's INI-like text files: project.godot, .tscn, .tres, .import, .cfg.

A block runs from a `[header]` at depth 0 to the line before the next one, so multi-line
values (arrays, dictionaries, strings) always stay whole: a `[` inside an open bracket or
string never starts a block. (Intake never passes `.uid`, `.gitignore` and the like here: they are not judged.)

`Chunk.extra` keys written here: `header` (the block's tag and attributes, e.g.
`{"tag": "node", "name": "Player", "type": "Area2D"}`), `properties` (keys set in the block),
and for project.godot `project` = `{"config_version", "features", "input_actions", "autoloads"}`
on every chunk of the file, so each piece carries the project's version signals.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from agent.parse.text import Lines, is_code_line, sha256_text

_TOKEN = re.compile(r'\\.|"|[\[\]{}()]')
_HEADER = re.compile(r"^\[([A-Za-z_][\w.]*)(.*)\]\s*$")
_HEADER_OPEN = re.compile(r"^\[([A-Za-z_][\w.]*)\s.*\[\s*$")
"""A header whose last attribute opens a list on the next lines (`groups=[`)."""
_HEADER_ROWS = 200
_ATTR = re.compile(r'(\w+)\s*=\s*("(?:\\.|[^"\\])*"|[^\s\]]+)')
_KEY = re.compile(r"^([A-Za-z_][\w/.:-]*)\s*=")
_RES_REF = re.compile(r"(?:res|user|uid)://[^\s\"')\]]*")
_TAG_KIND = {
    "gd_scene": "scene_header",
    "gd_resource": "resource_header",
    "ext_resource": "ext_resource",
    "sub_resource": "sub_resource",
    "node": "node",
    "connection": "connection",
    "resource": "resource_block",
    "editable": "resource_block",
}


def _header_end(rows: list[str], first: int) -> int | None:
    """The row where a header opened at `first` closes (`[node ... groups=[` spans lines), or None."""
    depth, in_string = 0, False
    for i in range(first, min(len(rows), first + _HEADER_ROWS)):
        for tok in _TOKEN.finditer(rows[i]):
            s = tok.group(0)
            if s == '"':
                in_string = not in_string
            elif in_string or s.startswith("\\") or s not in "[]":
                continue
            elif s == "[":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return i if not rows[i][tok.end():].strip() else None
    return None


def _blocks(lines: Lines) -> list[tuple[int, int, str | None, str]]:
    """(first_row, last_row, tag, header_rest) for the preamble (tag None) and each block; rows 0-based."""
    depth, in_string = 0, False
    starts: list[tuple[int, str | None, str]] = [(0, None, "")]
    skip_to = -1
    for i, line in enumerate(lines.lines):
        if i <= skip_to:
            continue
        if depth == 0 and not in_string:
            m = _HEADER.match(line)
            if m:
                starts.append((i, m.group(1), m.group(2)))
                continue
            m = _HEADER_OPEN.match(line)
            end = _header_end(lines.lines, i) if m else None
            if m and end is not None:
                whole = "\n".join(lines.lines[i : end + 1]).rstrip()
                starts.append((i, m.group(1), whole[1 + len(m.group(1)) : -1]))
                skip_to = end
                continue
        for tok in _TOKEN.finditer(line):
            s = tok.group(0)
            if s == '"':
                in_string = not in_string
            elif in_string or s.startswith("\\"):
                continue
            elif s in "[{(":
                depth += 1
            else:
                depth = max(0, depth - 1)
    out: list[tuple[int, int, str | None, str]] = []
    for n, (row, tag, rest) in enumerate(starts):
        end = starts[n + 1][0] - 1 if n + 1 < len(starts) else len(lines) - 1
        first, last = row, end
        while first <= last and not is_code_line(lines.lines[first]):
            first += 1
        while last >= first and not lines.lines[last].strip():
            last -= 1
        if first <= last:
            out.append((first, last, tag, rest))
    return out


def _attrs(rest: str) -> dict[str, str]:
    return {k: v.strip('"') for k, v in _ATTR.findall(rest)}


def _project_summary(lines: Lines) -> dict[str, Any]:
    summary: dict[str, Any] = {"config_version": None, "features": [], "input_actions": [], "autoloads": {}}
    section = ""
    for line in lines.lines:
        m = _HEADER.match(line)
        if m:
            section = m.group(1)
            continue
        key = _KEY.match(line)
        if not key:
            continue
        value = line.split("=", 1)[1].strip()
        name = key.group(1)
        if section == "" and name == "config_version":
            summary["config_version"] = int(value) if value.isdigit() else value
        elif section == "application" and name == "config/features":
            summary["features"] = re.findall(r'"([^"]*)"', value)
        elif section == "input":
            summary["input_actions"].append(name)
        elif section == "autoload":
            summary["autoloads"][name] = value.strip('"').lstrip("*")
    return summary


def chunk_direct(path: str, text: str) -> list[dict[str, Any]]:
    """Path-independent chunk drafts for a direct (non-AST) file."""
    lines = Lines.of(text)
    if not any(line.strip() for line in lines.lines):
        return []
    p = PurePosixPath(path)
    suffix = p.suffix.lower() if p.suffix else p.name.lower()
    blocks = _blocks(lines)
    is_project = p.name == "project.godot" or suffix == ".godot"
    summary = _project_summary(lines) if is_project else None

    drafts: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    counters: dict[str, int] = {}
    for first, last, tag, rest in blocks:
        attrs = _attrs(rest)
        if tag is None:
            kind, name = (
                ("config_preamble", None) if suffix in (".godot", ".cfg", ".import") else ("text_block", None)
            )
        elif suffix == ".import":
            kind, name = "import_section", tag
        elif suffix in (".tscn", ".tres", ".escn") and tag in _TAG_KIND:
            kind = _TAG_KIND[tag]
            name = _block_name(tag, attrs)
        elif suffix in (".tscn", ".tres"):
            kind, name = "resource_block", tag
        else:
            kind, name = "config_section", tag
        counters[kind] = counters.get(kind, 0) + 1
        label = name or str(counters[kind])
        local_id = f"{kind}:{label}"
        seen[local_id] = seen.get(local_id, 0) + 1
        if seen[local_id] > 1:
            local_id = f"{local_id}~{seen[local_id]}"
        code = lines.slice(first + 1, last + 1)
        body_keys = [m.group(1) for ln in lines.lines[first : last + 1] if (m := _KEY.match(ln))]
        symbols = [v for k, v in attrs.items() if k in ("type",) and v]
        symbols += re.findall(r'\btype\s*=\s*"(\w+)"', code)
        refs = list(dict.fromkeys(_RES_REF.findall(code)))
        calls: list[str] = []
        extra: dict[str, Any] = {"header": {"tag": tag, **attrs} if tag is not None else None}
        extra["properties"] = list(dict.fromkeys(body_keys))
        if tag == "connection" and attrs.get("method"):
            calls.append(attrs["method"])
        if summary is not None:
            extra["project"] = summary
            if tag == "input":
                symbols += summary["input_actions"]
            if tag == "autoload":
                refs += [v for v in summary["autoloads"].values() if v not in refs]
            if tag == "application":
                symbols += [f for f in summary["features"]]
        start_byte, end_byte = lines.byte_span(first + 1, last + 1)
        drafts.append(  # Chunk's fields but the file's own (`agent.parse._chunks` adds them)
            {
                "chunk_id": local_id,
                "chunk_kind": kind,
                "node_kind": tag or "preamble",
                "name": name,
                "span": {
                    "start_line": first + 1,
                    "end_line": last + 1,
                    "start_byte": start_byte,
                    "end_byte": end_byte,
                },
                "code_text": code,
                "sha256": sha256_text(code),
                "symbol_candidates": list(dict.fromkeys(symbols)),
                "api_call_candidates": calls,
                "reference_candidates": refs,
                "surrounding_context": "",
                "parse_status": "direct",
                "extra": extra,
            }
        )
    return drafts


def _block_name(tag: str, attrs: dict[str, str]) -> str | None:
    if tag == "node":
        parent = attrs.get("parent")
        name = attrs.get("name")
        return f"{parent}/{name}" if parent and parent != "." else name
    if tag in ("ext_resource", "sub_resource"):
        return attrs.get("id")
    if tag == "connection":
        return f"{attrs.get('signal')}->{attrs.get('method')}"
    return None
