"""The Godot 3.4 class reference (engine XML) as pages and API entries.

Each `classes/<Name>.xml` becomes one `Page` whose text is Markdown in the layout of the
crawled 4.x class pages (title, `Inherits:`, summary tables, member descriptions), so the
same chunker cuts it into one chunk per member with the same anchor scheme
(`#class-node-method-add-child`). BBCode becomes Markdown and `[codeblock]` becomes a
fenced `gdscript` block. `class_entries` gives the structured members (signatures,
setters/getters, inheritance) for the API index, straight from the XML.
"""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from agent.ingest.chunks import Page
from agent.ingest.corpus import CorpusError, Issue

DOC_VERSION = "3.4"
URL_PATTERN = "https://docs.godotengine.org/en/3.4/classes/class_{lowercase_name}.html"
SOURCE_PREFIX = "godot-class-ref-3.4/"
"""Prefix of a 3.4 page's `source_file` (unique next to the 4.x corpus's `pages/...`)."""


@dataclass(frozen=True)
class Argument:
    """One method/signal argument as the XML states it."""

    name: str
    type: str
    default: str | None = None


@dataclass
class Member:
    """One documented member of a class (method, property, signal, constant, enum, theme item)."""

    kind: str
    name: str
    type: str = ""
    """Return type (methods), value type (properties), enum (constants)."""
    args: list[Argument] = field(default_factory=list)
    qualifiers: str = ""
    setter: str = ""
    getter: str = ""
    default: str | None = None
    value: str | None = None
    enum: str = ""
    description: str = ""


@dataclass
class ClassDoc:
    """One XML file, parsed."""

    name: str
    inherits: str
    brief: str
    description: str
    members: list[Member]


@dataclass
class ClassRef:
    """The whole reference: pages for the chunker and parsed classes for the API index."""

    root: Path
    doc_version: str
    godot_version: str
    pages: list[Page]
    classes: list[ClassDoc]
    issues: list[Issue] = field(default_factory=list)
    failed_files: set[str] = field(default_factory=set)


# ---------------------------------------------------------------- BBCode -> Markdown

_CODEBLOCK = re.compile(r"\[codeblock\](.*?)\[/codeblock\]", re.S)
_REF = re.compile(r"\[(method|member|signal|constant|enum|theme_item|param) ([^\]]+)\]")
_URL = re.compile(r"\[url=([^\]]+)\](.*?)\[/url\]", re.S)
_CLASS_REF = re.compile(r"\[([A-Z@][A-Za-z0-9_]*)\]")
_SIMPLE = {"[b]": "**", "[/b]": "**", "[i]": "*", "[/i]": "*", "[code]": "`", "[/code]": "`",
           "[kbd]": "`", "[/kbd]": "`", "[br]": "\n", "[center]": "", "[/center]": "", "[u]": "", "[/u]": "",
           "[codeblocks]": "", "[/codeblocks]": "", "[gdscript]": "", "[/gdscript]": ""}
_DROP_BLOCK = re.compile(r"\[csharp\].*?\[/csharp\]", re.S)


def _dedent(text: str) -> str:
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return textwrap.dedent("\n".join(lines))


def codeblocks(text: str) -> list[str]:
    """The `[codeblock]` examples of a description, dedented (GDScript written for Godot 3)."""
    return [_dedent(m.group(1)).replace("\t", "    ") for m in _CODEBLOCK.finditer(text or "")]


def _inline(text: str) -> str:
    text = _URL.sub(lambda m: f"[{m.group(2)}]({m.group(1)})", text)

    def ref(m: re.Match[str]) -> str:
        kind, name = m.group(1), m.group(2).strip()
        return f"`{name}()`" if kind == "method" else f"`{name}`"

    text = _REF.sub(ref, text)
    for k, v in _SIMPLE.items():
        text = text.replace(k, v)
    return _CLASS_REF.sub(lambda m: m.group(1), text)


def bbcode_to_markdown(text: str) -> str:
    """Description BBCode as Markdown paragraphs; code blocks fenced as gdscript."""
    text = _DROP_BLOCK.sub("", _dedent(text or ""))
    out: list[str] = []
    pos = 0
    for m in _CODEBLOCK.finditer(text):
        out.append(_paragraphs(text[pos : m.start()]))
        code = _dedent(m.group(1)).replace("\t", "    ")
        out.append(f"```gdscript\n{code}\n```")
        pos = m.end()
    out.append(_paragraphs(text[pos:]))
    return "\n\n".join(p for p in out if p.strip())


def _paragraphs(text: str) -> str:
    lines = [_inline(ln.strip()) for ln in text.split("\n")]
    return "\n\n".join(ln for ln in lines if ln.strip())


# ---------------------------------------------------------------- XML -> ClassDoc


def _args(el: ET.Element) -> list[Argument]:
    rows = sorted(el.findall("argument"), key=lambda a: int(a.get("index", "0") or 0))
    return [Argument(a.get("name", ""), a.get("type", "Variant"), a.get("default")) for a in rows]


def parse_class(xml_text: str) -> ClassDoc:
    """One class file; raises ValueError when it is not a `<class name=...>` document."""
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise ValueError(f"not well-formed XML: {exc}") from exc
    if root.tag != "class" or not root.get("name"):
        raise ValueError("root element is not <class name=...>")
    members: list[Member] = []
    for m in root.findall("methods/method"):
        ret = m.find("return")
        members.append(Member("method", m.get("name", ""), ret.get("type", "void") if ret is not None else "void",
                              _args(m), m.get("qualifiers", "") or "", description=m.findtext("description") or ""))
    for m in root.findall("members/member"):
        if m.get("override") == "true":
            continue  # a new default for an inherited property, documented on the base class
        members.append(Member("property", m.get("name", ""), m.get("type", "Variant"), setter=m.get("setter", "") or "",
                              getter=m.get("getter", "") or "", default=m.get("default"), enum=m.get("enum", "") or "",
                              description=m.text or ""))
    for m in root.findall("signals/signal"):
        members.append(Member("signal", m.get("name", ""), args=_args(m), description=m.findtext("description") or ""))
    for m in root.findall("constants/constant"):
        members.append(Member("constant", m.get("name", ""), value=m.get("value"), enum=m.get("enum", "") or "",
                              description=m.text or ""))
    for m in root.findall("theme_items/theme_item"):
        members.append(Member("theme-property", m.get("name", ""), m.get("type", ""), default=m.get("default"),
                              description=m.text or ""))
    return ClassDoc(root.get("name", ""), root.get("inherits", "") or "", root.findtext("brief_description") or "",
                    root.findtext("description") or "", [m for m in members if m.name])


# ---------------------------------------------------------------- ClassDoc -> Markdown page


def _sig_args(args: list[Argument]) -> str:
    return ", ".join(f"{a.name}: {a.type}" + (f" = {a.default}" if a.default is not None else "") for a in args)


def _valued_head(m: Member) -> str:
    """`type name = `default`` of a property or theme item, as the 4.x pages write it."""
    return f"{m.type} {m.name}" + (f" = `{m.default}`" if m.default is not None else "")


def _quals(q: str) -> str:
    return "".join(f" {w}" for w in q.split() if w in ("const", "virtual", "vararg", "static"))


def _value_table(title: str, members: list[Member]) -> list[str]:
    """A summary table of typed values with defaults (properties, theme items), as the 4.x pages have."""
    if not members:
        return []
    rows = [f"{m.type} | {m.name} | `{m.default}`" if m.default is not None else f"{m.type} | {m.name} |" for m in members]
    return [f"## {title}", "", "type | name | default", "---|---|---", *rows, ""]


def render_markdown(cls: ClassDoc, chain: list[str]) -> str:
    """The class as a Markdown page in the 4.x crawl's layout (what `class_drafts` reads)."""
    out = [f"# {cls.name}", ""]
    if chain:
        out += ["Inherits: " + " < ".join(chain), ""]
    if cls.brief.strip():
        out += [_paragraphs(_dedent(cls.brief)), ""]
    if cls.description.strip():
        out += ["## Description", "", bbcode_to_markdown(cls.description), ""]
    by_kind: dict[str, list[Member]] = {}
    for m in cls.members:
        by_kind.setdefault(m.kind, []).append(m)
    props = by_kind.get("property", [])
    out += _value_table("Properties", props)
    methods = by_kind.get("method", [])
    if methods:
        out += ["## Methods", "", f"{methods[0].type} | {methods[0].name}({_sig_args(methods[0].args)}){_quals(methods[0].qualifiers)}",
                "---|---"]
        out += [f"{m.type} | {m.name}({_sig_args(m.args)}){_quals(m.qualifiers)}" for m in methods[1:]]
        out.append("")
    themes = by_kind.get("theme-property", [])
    out += _value_table("Theme Properties", themes)
    signals = by_kind.get("signal", [])
    if signals:
        out += ["## Signals", ""]
        for m in signals:
            out += [f"{m.name}({_sig_args(m.args)})", "", bbcode_to_markdown(m.description), ""]
    consts = by_kind.get("constant", [])
    enums: dict[str, list[Member]] = {}
    for c in consts:
        if c.enum:
            enums.setdefault(c.enum, []).append(c)
    if enums:
        out += ["## Enumerations", ""]
        for name, values in enums.items():
            out += [f"enum {name}:", ""]
            for c in values:
                out += [f"{name} {c.name} = `{c.value}`", "", bbcode_to_markdown(c.description), ""]
    plain = [c for c in consts if not c.enum]
    if plain:
        out += ["## Constants", ""]
        for c in plain:
            out += [f"{c.name} = `{c.value}`", "", bbcode_to_markdown(c.description), ""]
    if props:
        out += ["## Property Descriptions", ""]
        for m in props:
            out += [_valued_head(m), ""]
            if m.setter:
                out.append(f"  * void {m.setter}(value: {m.type})")
            if m.getter:
                out.append(f"  * {m.type} {m.getter}()")
            out += ["", bbcode_to_markdown(m.description), ""]
    if methods:
        out += ["## Method Descriptions", ""]
        for m in methods:
            out += [f"{m.type} {m.name}({_sig_args(m.args)}){_quals(m.qualifiers)}", "", bbcode_to_markdown(m.description), ""]
    if themes:
        out += ["## Theme Property Descriptions", ""]
        for m in themes:
            out += [_valued_head(m), "", bbcode_to_markdown(m.description), ""]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def class_url(name: str, pattern: str = URL_PATTERN) -> str:
    return pattern.replace("{lowercase_name}", name.lower())


# ---------------------------------------------------------------- the reference


def _chain(name: str, parents: dict[str, str]) -> list[str]:
    out: list[str] = []
    cur = parents.get(name, "")
    while cur and cur not in out and len(out) < 32:
        out.append(cur)
        cur = parents.get(cur, "")
    return out


def load_classref(root: Path) -> ClassRef:
    """Read `summary.json` and `classes/*.xml`; a bad file is an issue naming it, the rest go in.

    Raises `CorpusError` when the directory has no `classes/`.
    """
    root = Path(root)
    classes_dir = root / "classes"
    if not classes_dir.is_dir():
        raise CorpusError(f"3.4 class reference not found: {classes_dir} (expected classes/*.xml)")
    issues: list[Issue] = []
    summary: dict = {}
    summary_path = root / "summary.json"
    if summary_path.is_file():
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            issues.append(Issue("error", "classref", "summary.json is not valid JSON", detail=str(exc)))
    else:
        issues.append(Issue("warning", "classref", "summary.json missing", detail=str(summary_path)))
    pattern = str(summary.get("docs_url_pattern") or URL_PATTERN)
    parsed: list[tuple[Path, bytes, ClassDoc]] = []
    failed: set[str] = set()
    for path in sorted(classes_dir.glob("*.xml")):
        rel = SOURCE_PREFIX + path.relative_to(root).as_posix()
        raw = path.read_bytes()
        try:
            cls = parse_class(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            issues.append(Issue("error", "classref", "class file unreadable", page=rel, detail=str(exc)))
            failed.add(rel)
            continue
        parsed.append((path, raw, cls))
    parents = {c.name: c.inherits for _, _, c in parsed}
    pages: list[Page] = []
    for path, raw, cls in parsed:
        text = render_markdown(cls, _chain(cls.name, parents))
        rel = SOURCE_PREFIX + path.relative_to(root).as_posix()
        # the page's sha covers the XML and the rendering, so a renderer change re-chunks it
        sha = hashlib.sha256(raw + b"\0" + text.encode()).hexdigest()
        pages.append(Page(url=class_url(cls.name, pattern), source_file=rel, sha256=sha, bytes=len(raw), text=text))
    ref = ClassRef(root=root, doc_version=str(summary.get("doc_version") or DOC_VERSION),
                   godot_version=str(summary.get("godot_version") or "3.4"), pages=pages,
                   classes=[c for _, _, c in parsed], issues=issues, failed_files=failed)
    issues.extend(count_check(ref, summary))
    return ref


def count_check(ref: ClassRef, summary: dict) -> list[Issue]:
    """Quality gate: class and member counts must equal what `summary.json` states (a full reference)."""
    expected = summary.get("counts") or {}
    if not expected:
        return []
    got = {"classes": len(ref.classes), "methods": 0, "members": 0, "signals": 0, "constants": 0}
    key = {"method": "methods", "property": "members", "signal": "signals", "constant": "constants"}
    for c in ref.classes:
        for m in c.members:
            if m.kind in key:
                got[key[m.kind]] += 1
    # overridden properties are not members of their own (see parse_class): count them back from the XML
    got["members"] += sum(_overrides(ref.root, c.name) for c in ref.classes) if got["members"] != expected.get("members") else 0
    out = []
    for name, want in expected.items():
        if name in got and int(want) != got[name]:
            out.append(Issue("warning", "classref", f"{name}: summary.json says {want}, the files hold {got[name]}",
                             detail="a partial or changed class reference"))
    return out


def _overrides(root: Path, name: str) -> int:
    path = root / "classes" / f"{name}.xml"
    try:
        return path.read_text(encoding="utf-8").count('override="true"')
    except OSError:
        return 0
