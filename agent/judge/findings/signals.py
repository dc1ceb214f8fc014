"""Signals a string `connect` or a `yield` names, which the receiver's 4.x class no longer has.

No findings of its own: it marks the syntax rules' `connect("sig", ...)` and `yield(obj, "sig")` findings
with the gone signal (`Finding.signal_gone`), so the rewrite does not turn them into `obj.sig.connect(...)`
or `await obj.sig` on a signal that lives elsewhere in Godot 4.
"""

from __future__ import annotations

from agent.apiindex import V3, V4, type_in
from agent.judge.findings.common import CodeFacts, FindContext, Finding
from agent.judge.project import ProjectContext
from agent.retrieve.mapping_table import MappingRow
from agent.judge.receivers import receiver_type
from agent.judge.snippets import top_level_commas

SIGNAL_RULES = ("connect_string_method", "disconnect_string_method", "yield")
"""The syntax rules whose findings name a signal by a string."""


def annotate(ctx: FindContext, findings: list[Finding]) -> None:
    """Set `signal_gone` on each Godot 3 syntax finding of a SIGNAL_RULES rule."""
    for f in findings:
        if f.version == "godot3" and f.kind == "syntax" and f.rule is not None and f.rule.name in SIGNAL_RULES:
            f.signal_gone = _signal_gone(ctx.facts, f, ctx.mapping_rows, ctx.project)


def _signal_gone(facts: CodeFacts, finding: Finding, rows: list[MappingRow],
                 project: ProjectContext | None) -> str | None:
    """`get_tree().connect("network_peer_connected", ...)`: the named signal, when the receiver's 4.x class lacks it.

    Then `obj.sig.connect(callable)` is no rewrite: in Godot 4 the signal lives elsewhere (MultiplayerAPI).
    The same holds for what `yield(obj, "sig")` waits on: `yield($Tween, "tween_all_completed")` is no
    `await $Tween.tween_all_completed`, since no 4.x Tween has that signal (nor is one a node).
    """
    api = project.api if project else None
    if api is None or facts.scope is None or not api.complete_v4:
        return None
    masked = facts.lexed.masked
    waits = finding.rule is not None and finding.rule.name == "yield"
    if waits:  # `yield(obj, "sig")`: the object is the first argument, the signal the string after its comma
        m = finding.rule.pattern.match(masked, finding.start)
        commas = top_level_commas(masked, m.end() - 1) if m else []
        if len(commas) != 1:
            return None
        name = next((content for prefix, content, quote in facts.lexed.strings if quote > commas[0] and not prefix), "")
        receiver = receiver_type(facts.lexed.text, masked, commas[0], facts.scope)
    else:
        name = next((content for _, content, quote in facts.lexed.strings if finding.start <= quote < finding.start + 80), "")
        b = finding.start - 1
        while b >= 0 and masked[b] in " \t":
            b -= 1
        if b >= 0 and masked[b] == ".":
            receiver = receiver_type(facts.lexed.text, masked, b, facts.scope)
        else:
            receiver = facts.scope.own_class
    if not name or receiver is None or not api.has_class(V3, receiver):
        return None
    old = api.lookup(V3, receiver, name, ("signal",))
    if old is None or not api.has_class(V4, receiver) and type_in(V4, receiver):
        return None  # a class 4.x renamed without saying to what: nothing to compare with
    if api.lookup(V4, receiver, name, ("signal",)) or api.defined_below(V4, receiver, name, ("signal",)):
        return None
    for row in rows if not waits else ():  # renamed on the same class (`hide` -> `hidden`): rewritten in place
        new = str(row.target_api or "").rsplit(".", 1)[-1]
        if row.source_api == name and row.roles == ("signal",) and new.isidentifier() \
                and api.lookup(V4, receiver, new, ("signal",)):
            return None
    return f"{old.class_name}.{name}"


