"""Method names passed as strings: 3.4's (object, "method") call form where every 4.x method takes a Callable.

`nodes.sort_custom(Sorter, "by_y")` on a receiver the code leaves unknown; typed receivers are
`call_form`'s.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4
from agent.judge.findings.arguments import arg_starts, call_shape
from agent.judge.findings.common import MAX_USES_PER_RULE, CodeFacts, FindContext, Finding, line_of
from agent.judge.project import ProjectContext
from agent.judge.receivers import receiver_type
from agent.judge.snippets import call_args, close_paren
from agent.judge.syntax_rules import SyntaxRule


def find(ctx: FindContext) -> list[Finding]:
    """Godot 3 call-form findings (kind "syntax"), up to MAX_USES_PER_RULE."""
    return _method_string_findings(ctx.facts, ctx.project, ctx.chunk_file)


_MEMBER_CALL = re.compile(r"\.\s*([a-z_]\w*)(?=\s*\()")


def _method_string_findings(facts: CodeFacts, project: ProjectContext | None,
                            chunk_file: str) -> list[Finding]:
    """`nodes.sort_custom(Sorter, "by_y")` on a receiver the code leaves unknown: 3.4's (object, method name)
    call form, where every 4.x method of that name takes a Callable instead.

    Only where every 3.4 method of the name that fits the argument count takes the pair at that place,
    the string is a method name, and the script declares no such method; when the object is `self` and
    the project shows the whole script, the script must declare the named function. Typed receivers are
    the call-form check's.
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return []
    masked, text = facts.lexed.masked, facts.lexed.text
    known = project.declared.get(chunk_file)
    strings = {start: content for prefix, content, start in facts.lexed.strings if not prefix}
    out: list[Finding] = []
    for m in _MEMBER_CALL.finditer(masked):
        member = m.group(1)
        if member in facts.declared or member in (known or ()):
            continue
        receiver = receiver_type(text, masked, m.start(), facts.scope)
        if receiver is not None and api.has_class(V3, receiver) and api.has_class(V4, receiver):
            continue
        open_at = masked.index("(", m.end())
        args = call_args(masked, open_at)
        old = [e for e in api.definers(V3, member, ("method",)) if e.accepts(len(args or []))]
        at = {_method_name_at(e, len(args)) for e in old} if args and old else {None}
        if len(at) != 1 or None in at:
            continue
        (k,) = at
        quote = arg_starts(masked, open_at, args)[k]
        name = strings.get(quote)
        if name is None or len(args[k]) != len(name) + 2 or not re.fullmatch(r"[A-Za-z_]\w*", name):
            continue  # the whole argument is one string literal naming a method
        if args[k - 1] == "self" and known is not None and name not in known:
            continue  # `self` and a name the script does not declare: not a method of it
        new = api.definers(V4, member, ("method",))
        if not new or any(e.accepts(len(args)) and len(p := _params(e.signature)) > k
                          and p[k][1] in ("String", "StringName") for e in new):
            continue  # some 4.x method still takes a method name there (`TreeItem.set_custom_draw`)
        shape_3 = f"{old[0].class_name}.{call_shape(old[0], member)}"
        shape_4 = " | ".join(dict.fromkeys(f"{e.class_name}.{call_shape(e, member)}" for e in new[:2]))
        rule = SyntaxRule("call_form", "godot3", re.compile(re.escape(member)), old=shape_3, new=shape_4,
                          change_type="signature_change", cues=(f"{new[0].class_name}.{member}", member),
                          mapping_keys=(f"{old[0].class_name}.{member}",),
                          caveat="Godot 4 takes a Callable: pass the function itself (`obj.method`)")
        start = m.start() + masked[m.start():].index(member)
        out.append(Finding("godot3", "syntax", "call_form", text[start : close_paren(masked, open_at)],
                           line_of(masked, start), rule, start=start))
        if len(out) == MAX_USES_PER_RULE:
            break
    return out


def _params(signature: str) -> list[tuple[str, str]]:
    """`void sort_custom(obj: Object, func: String)` -> [("obj", "Object"), ("func", "String")]."""
    signature = re.sub(r'"[^"]*"', '""', signature)
    open_paren = signature.find("(")
    params = call_args(signature, open_paren) if open_paren >= 0 else None
    return [(p.split(":", 1)[0].strip(), p.split("=", 1)[0].partition(":")[2].strip()) for p in params or []]


def _method_name_at(entry, n: int) -> int | None:
    """Where a call of `n` arguments names a method by a string after its object (3.4's `(obj, "func")`)."""
    params = _params(entry.signature)
    if not entry.accepts(n):
        return None
    return next((i + 1 for i in range(min(n, len(params)) - 1)
                 if params[i][1] == "Object" and params[i + 1][1] == "String"), None)



