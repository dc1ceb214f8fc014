"""Page -> sections ("drafts"), one strategy per doc type.

A draft is what becomes one or more chunks: a section path, a heading, an anchor for
the chunk id, the API symbol it documents (class pages) and its text units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.ingest.markdown import Block, parse_blocks
from agent.ingest.windows import Unit, code_unit

_ADMONITIONS = {
    "note", "tip", "warning", "important", "caution", "danger", "attention", "hint", "see also",
    "deprecated", "experimental", "seealso", "error",
}


@dataclass
class Draft:
    """A section ready to be windowed into chunks."""

    anchor: str
    heading: str
    section_path: list[str]
    units: list[Unit]
    symbol: str | None = None
    seed_symbols: list[str] = field(default_factory=list)
    member_kind: str | None = None


def slug(text: str) -> str:
    """Sphinx-like anchor: lower case, words joined by dashes."""
    s = re.sub(r"[`'\"]", "", text.lower())
    s = re.sub(r"[^a-z0-9@]+", "-", s).strip("-")
    return s or "section"


def block_units(block: Block) -> list[Unit]:
    """Units for one block; tables remember their header so each window repeats it."""
    if block.kind == "paragraph":
        return [Unit(block.text)]
    if block.kind == "bullets":
        return [Unit(f"{'  ' * ((len(it) - len(it.lstrip())) // 2)}- {it.strip()}") for it in block.items]
    if block.kind == "table":
        header = block.header
        return [Unit(header, table_header=header)] + [Unit(r, table_header=header) for r in block.items]
    if block.kind == "code":
        return [code_unit(c) for c in block.code]
    return []


def page_title(blocks: list[Block], fallback: str) -> str:
    for b in blocks:
        if b.kind == "heading" and b.level == 1:
            return b.text
    return fallback


# ---------------------------------------------------------------- class reference

_METHOD = re.compile(
    r"^(?:(?P<ret>[\w@.]+(?:\[[\w@., ]+\])?) )?(?P<name>@?[A-Za-z_]\w*)\((?P<args>.*)\)"
    r"(?P<q>(?: (?:const|virtual|vararg|static|required|abstract))*)$"
)
_OPERATOR = re.compile(r"^(?P<ret>[\w.]+(?:\[[\w., ]+\])?) operator (?P<op>\S+) \((?P<args>.*)\)$")
_PROPERTY = re.compile(r"^(?P<type>[\w.]+(?:\[[\w., ]+\])?) (?P<name>[A-Za-z_][\w/]*)(?: = `.*`)?$")
_CONSTANT = re.compile(r"^(?P<name>[A-Z_][A-Z0-9_]*) = `.*`$")
_ENUM = re.compile(r"^(?P<kw>enum|flags) (?P<name>\w+):$")
_ENUM_VALUE = re.compile(r"^(?P<type>[\w.]+) (?P<name>[A-Z_][A-Z0-9_]*) = `.*`$")

_MEMBER_SECTIONS = {
    "Property Descriptions": "property",
    "Theme Property Descriptions": "theme-property",
    "Method Descriptions": "method",
    "Signals": "signal",
    "Constants": "constant",
    "Annotations": "annotation",
    "Constructor Descriptions": "constructor",
    "Operator Descriptions": "operator",
    "Enumerations": "enum",
}
_SUMMARY_SECTIONS = {"Properties": "property", "Methods": "method", "Theme Properties": "theme-property"}
_SKIP_SECTIONS = {"Tutorials"}


def _summary_names(block: Block, kind: str) -> set[str]:
    names: set[str] = set()
    for row in [block.header, *block.items]:
        cells = [c.strip() for c in row.split("|")]
        if kind == "method" and len(cells) >= 2:
            m = re.match(r"([A-Za-z_@]\w*)\(", cells[1])
            if m:
                names.add(m.group(1))
        elif len(cells) >= 2 and re.fullmatch(r"[A-Za-z_][\w/]*", cells[1]):
            names.add(cells[1])
        if kind == "theme-property" and len(cells) >= 3 and re.fullmatch(r"[A-Za-z_]\w*", cells[2]):
            names.add(cells[2])
    return names


def _member_header(kind: str, text: str, known: set[str]) -> tuple[str, str] | None:
    """(name, signature) if this paragraph opens a member description."""
    if kind in ("method", "signal", "annotation", "constructor"):
        m = _METHOD.match(text)
        if m and (kind != "method" or not known or m.group("name") in known):
            return m.group("name"), text
        return None
    if kind == "operator":
        m = _OPERATOR.match(text)
        return (f"operator {m.group('op')}", text) if m else None
    if kind in ("property", "theme-property"):
        m = _PROPERTY.match(text)
        if m and (not known or m.group("name") in known):
            return m.group("name"), text
        return None
    if kind == "constant":
        m = _CONSTANT.match(text)
        return (m.group("name"), text) if m else None
    if kind == "enum":
        m = _ENUM.match(text)
        return (m.group("name"), text) if m else None
    return None


def class_drafts(text: str, fallback_title: str) -> tuple[str, list[Draft]]:
    """Class page: overview, description, member tables, and one draft per API member."""
    blocks = parse_blocks(text)
    cls = page_title(blocks, fallback_title)
    sections: list[tuple[str, list[Block]]] = [("", [])]
    for b in blocks:
        if b.kind == "heading" and b.level == 1:
            continue
        if b.kind == "heading" and b.level == 2:
            sections.append((b.text, []))
        elif b.kind == "heading":
            sections[-1][1].append(Block("paragraph", text=b.text))
        else:
            sections[-1][1].append(b)
    known: dict[str, set[str]] = {}
    for name, bl in sections:
        kind = _SUMMARY_SECTIONS.get(name)
        if kind:
            for b in bl:
                if b.kind == "table":
                    known.setdefault(kind, set()).update(_summary_names(b, kind))
    cslug = slug(cls).replace("@", "")
    drafts: list[Draft] = []
    for name, bl in sections:
        if not bl or name in _SKIP_SECTIONS:
            continue
        if name == "":
            units = [u for b in bl for u in block_units(b)]
            drafts.append(Draft(f"class-{cslug}", cls, [cls], units, symbol=cls, seed_symbols=[cls]))
        elif name in _MEMBER_SECTIONS:
            drafts.extend(_member_drafts(cls, cslug, name, _MEMBER_SECTIONS[name], bl, known))
        elif name not in _SUMMARY_SECTIONS:  # member tables repeat what the member chunks say
            units = [u for b in bl for u in block_units(b)]
            drafts.append(Draft(slug(name), name, [cls, name], units, symbol=cls, seed_symbols=[cls]))
    return cls, drafts


def _member_drafts(
    cls: str, cslug: str, section: str, kind: str, blocks: list[Block], known: dict[str, set[str]]
) -> list[Draft]:
    out: list[Draft] = []
    cur: Draft | None = None
    intro: list[Unit] = []
    names = known.get(kind, set())
    for b in blocks:
        head = _member_header(kind, b.text, names) if b.kind == "paragraph" else None
        if head is None and kind == "enum" and cur is not None and b.kind == "paragraph":
            ev = _ENUM_VALUE.match(b.text)
            if ev:
                cur.seed_symbols.append(ev.group("name"))
                cur.seed_symbols.append(f"{cls}.{ev.group('name')}")
        if head:
            name, sig = head
            member = f"{cls}.{name}"
            cur = Draft(
                anchor=f"class-{cslug}-{kind}-{slug(name.replace('/', '-')).replace('@', '')}",
                heading=name,
                section_path=[cls, section, name],
                units=[Unit(sig)],
                symbol=member,
                seed_symbols=[member, name.lstrip("@") if kind != "annotation" else name, cls],
                member_kind=kind,
            )
            out.append(cur)
            continue
        units = block_units(b)
        if cur is None:
            intro.extend(units)
        else:
            cur.units.extend(units)
    if intro:
        out.insert(0, Draft(slug(section), section, [cls, section], intro, symbol=cls, seed_symbols=[cls]))
    return out


# ---------------------------------------------------------------- tutorials, migration, other


def _is_pseudo_heading(b: Block, nxt: Block | None) -> bool:
    """Migration pages use bare one-line labels ("Methods", "Threading changes") as sub-headings."""
    if b.kind != "paragraph" or nxt is None or nxt.kind == "heading":
        return False
    t = b.text.strip()
    if t.lower() in _ADMONITIONS or len(t.split()) > 6 or t[-1:] in ".:!?,;)`" or not t[:1].isupper():
        return False
    return True


def text_drafts(text: str, fallback_title: str, *, migration: bool = False) -> tuple[str, list[Draft]]:
    """Tutorials and others split by heading; migration pages also by their bare labels."""
    blocks = parse_blocks(text)
    title = page_title(blocks, fallback_title)
    drafts: list[Draft] = []
    path: list[tuple[int, str]] = [(1, title)]
    cur = Draft(slug(title), title, [title], [])
    drafts.append(cur)
    for idx, b in enumerate(blocks):
        if b.kind == "heading":
            if b.level == 1:
                continue
            while path and path[-1][0] >= b.level:
                path.pop()
            path.append((b.level, b.text))
            cur = Draft(slug(b.text), b.text, [p[1] for p in path], [])
            drafts.append(cur)
            continue
        nxt = blocks[idx + 1] if idx + 1 < len(blocks) else None
        if migration and _is_pseudo_heading(b, nxt):
            level = 7
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, b.text))
            cur = Draft(slug(b.text), b.text, [p[1] for p in path], [])
            drafts.append(cur)
            continue
        cur.units.extend(block_units(b))
    return title, [d for d in drafts if d.units]
