"""The finding rules, one module each, and the registry that orders them.

`agent.judge.facts.code_facts` runs REGISTRY in order. The order is the precedence: a rule's fields name the
earlier entries whose findings take precedence over its own, so no precedence lives in comments or in the
orchestrator. A new rule is one module with `find(ctx) -> list[Finding]`, one line here and one case in
tests/judge/findings/cases.json.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.judge.findings import (call_form, constructors, godot4_cues, gone_members, inference,
                                  members_by_string, method_strings, overrides, redeclared, renamed_members, signals,
                                  stringname_literal, syntax)
from agent.judge.findings.common import FindContext, Finding


@dataclass(frozen=True)
class Rule:
    """One finding rule and its precedence over earlier entries' findings (compared within one version)."""

    name: str
    find: Callable[[FindContext], list[Finding]]
    scripts_only: bool = True
    """Runs on GDScript only; False: also on a scene, resource or config section (read as raw text)."""
    yields_line_to: tuple[str, ...] = ()
    """A finding on a line where one of these entries found a Godot 3 change is dropped (that change says more)."""
    yields_use_to: tuple[str, ...] = ()
    """A finding on the same member name and line as one of these entries' findings is dropped."""
    yields_start_to: tuple[str, ...] = ()
    """A finding at the same offset as one of these entries' findings is dropped."""


@dataclass(frozen=True)
class Annotation:
    """A pass that adds no finding but annotates the findings one earlier entry made."""

    name: str
    annotate: Callable[[FindContext, list[Finding]], None]
    of: str
    """The entry whose findings it annotates."""
    scripts_only: bool = True


Entry = Rule | Annotation

REGISTRY: tuple[Entry, ...] = (
    Rule("syntax", syntax.find, scripts_only=False),
    Rule("stringname_literal", stringname_literal.find),
    Rule("renamed_members", renamed_members.find, scripts_only=False),
    # a stated rename (`Particles` -> `GPUParticles3D`) says more than "only 3.4 documents it"
    Rule("gone_members", gone_members.find, yields_use_to=("renamed_members",)),
    Rule("members_by_string", members_by_string.find),
    Annotation("signal_gone", signals.annotate, of="syntax"),
    Rule("overrides", overrides.find),
    # a stated syntax change on the line (`yield`, `connect("sig", self, "m")`) says more than an argument count
    Rule("call_form", call_form.find, yields_line_to=("syntax",)),
    Rule("method_strings", method_strings.find, yields_line_to=("syntax",)),
    # `Basis(Vector3(...))` has its own syntax rule
    Rule("constructors", constructors.find, yields_start_to=("syntax",)),
    Rule("inference", inference.find, yields_line_to=("syntax",)),
    Rule("redeclared", redeclared.find),
    Rule("godot4_cues", godot4_cues.find),
)
"""Every rule, in the order code_facts runs them (the order findings appear in within each version)."""


def member_line(f: Finding) -> tuple[str, int]:
    """A use's identity for `yields_use_to`: the member's last name (`Particles`, `empty`) and its line."""
    return f.name.rsplit(".", 1)[-1], f.line


def run(ctx: FindContext, registry: tuple[Entry, ...] | None = None) -> dict[str, list[Finding]]:
    """Each entry's findings after its precedence rules, by entry name, in `registry` order.

    `registry` None means REGISTRY, looked up at each call (so a test may replace it).
    """
    found: dict[str, list[Finding]] = {}
    for entry in REGISTRY if registry is None else registry:
        if entry.scripts_only and not ctx.facts.is_gdscript:
            continue
        if isinstance(entry, Annotation):
            entry.annotate(ctx, found.get(entry.of, []))
            continue
        kept = entry.find(ctx)
        if entry.yields_line_to:
            lines = {f.line for name in entry.yields_line_to for f in found.get(name, ()) if f.version == "godot3"}
            kept = [f for f in kept if f.line not in lines]
        if entry.yields_use_to:
            taken = {(f.version, *member_line(f))
                     for name in entry.yields_use_to for f in found.get(name, ())}
            kept = [f for f in kept if (f.version, *member_line(f)) not in taken]
        if entry.yields_start_to:
            starts = {(f.version, f.start) for name in entry.yields_start_to for f in found.get(name, ())}
            kept = [f for f in kept if (f.version, f.start) not in starts]
        found[entry.name] = kept
    return found
