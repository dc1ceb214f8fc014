"""Godot 4 inference errors: `var s := max(a, b)` types in 3.4 (a float) and not in 4.x (a Variant).

GDScript 2 refuses `:=` on a value it can only type as Variant, so the script does not load in Godot 4.
The script model types the initializer per version (`Typer.inference_errors`); the change names the
3.4 type explicitly: `var s: float = max(a, b)`.
"""

from __future__ import annotations

import re

from agent.judge.findings.common import FindContext, Finding, line_of
from agent.judge.syntax_rules import SyntaxRule

_INFERRED = r"(\bvar[ \t]+{name})[ \t]*:=[ \t]*"


def find(ctx: FindContext) -> list[Finding]:
    project, chunk, masked = ctx.project, ctx.chunk, ctx.facts.lexed.masked
    typer = project.typer if project is not None else None
    if typer is None:
        return []
    out: list[Finding] = []
    for decl, t in typer.inference_errors(ctx.chunk_file, chunk.span.start_line, chunk.span.end_line):
        row = decl.line - chunk.span.start_line
        line_start = 0
        for _ in range(row):
            line_start = masked.find("\n", line_start) + 1
        m = re.compile(_INFERRED.format(name=re.escape(decl.name))).search(masked, line_start)
        if m is None or line_of(masked, m.start()) != row + 1:
            continue
        callee = decl.value.children[0].text.decode() if decl.value.type == "call" and decl.value.children else ""
        line_end = masked.find("\n", m.end())
        line_end = len(masked) if line_end < 0 else line_end
        statement = chunk.code_text[m.start() : line_end].strip()
        typed = f"{m.group(1).rstrip()}: {t.v3} = {chunk.code_text[m.end() : line_end].strip()}"
        rule = SyntaxRule("inferred_variant", "godot3", re.compile(re.escape(decl.name)), old=statement, new=typed,
                          change_type="syntax_change", cues=(f"@GlobalScope.{callee}",) if callee else (),
                          scope="statement",
                          caveat=f"Godot 4 types `{callee or 'the value'}` as Variant: `:=` cannot infer it")
        colon = masked.index(":=", m.end(1))
        out.append(Finding("godot3", "syntax", "inferred_variant", statement, row + 1, rule, start=m.start(),
                           edit=(m.end(1), colon + 2, f": {t.v3} =")))
    return out
