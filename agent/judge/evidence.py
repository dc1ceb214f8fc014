"""The evidence judge: offline and deterministic, the default.

Decides from code facts (AST position: comments, strings and declared names never
count) and the retrieved evidence. Precision first: an old name that Godot 4 still
documents is no signal; Godot 3 API names next to Godot 4 syntax are a conflict, not a
verdict; with no signal the answer is neutral, never a guess.
"""

from __future__ import annotations

import re

from agent.apiindex import V3, V4, type_in
from agent.judge.base import JudgeInput, JudgeOutcome
from agent.judge.citing import docs_url_for, docs_url_of, hits_mentioning, labels_for_mapping, mapping_for
from agent.judge.facts import (AST_KINDS, CodeFacts, Finding, derived_from_index, is_gdscript, looks_like_noise,
                               signal_renames, without_derived)
from agent.judge.lexer import lex
from agent.judge.prompts import PROMPT_VERSION
from agent.judge.recommend import drop_godot3_recommendations
from agent.judge.rewrite import (REFUSAL, RESHAPED_CALLS, is_variable_test, mechanical_rewrite, rename_in,
                                 rename_signals, rewrite_fragment)
from agent.judge.snippets import close_paren, expression_at, split_args, statement_at, top_level_commas
from agent.judge.syntax_rules import VELOCITY_DECLARATION
from agent.judge.templates import TemplateUse, moved_signals
from agent.models import Judgment, SuggestedChange
from agent.present import anchor_url


def _dedupe(ids: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in ids if i))


class EvidenceJudge:
    """Offline, deterministic judge built on `code_facts` and the evidence bundle."""

    kind = "evidence"

    async def judge(self, inp: JudgeInput) -> JudgeOutcome:
        """Judge one chunk (pure computation; async only to share the Judge protocol)."""
        return JudgeOutcome(judgment=self.decide(inp), judge_kind="evidence", model=None,
                            prompt_version=PROMPT_VERSION)

    def decide(self, inp: JudgeInput) -> Judgment:
        """The synchronous decision, for callers without an event loop."""
        facts = inp.facts
        if facts.unsafe:
            return Judgment(version_signal="neutral", label="unsafe_or_obfuscated_code", migration_required=False,
                            confidence=0.9, rationale="Unsafe or obfuscated content: " + ", ".join(facts.unsafe)
                            + ". Not judged for version; review by hand.")
        if looks_like_noise(facts, inp.chunk):
            return Judgment(version_signal="neutral", label="non_godot_noise", migration_required=False,
                            confidence=0.8, rationale="Not Godot code (cues: " + ", ".join(facts.noise) + ").")
        g3_syntax, g3_api, g4 = facts.godot3_syntax, facts.godot3_strong, facts.godot4
        if g3_syntax or (g3_api and not g4):
            return self._godot3(inp, facts)
        weak = [f for f in facts.godot3_api if f.weak]
        if weak and not g4:
            ids = _dedupe([f.mapping.record_id for f in weak if f.mapping])
            return Judgment(
                version_signal="neutral", label="ambiguous_version_signal", migration_required=False,
                confidence=0.35, evidence_ids=ids,
                rationale="Weak Godot 3 hints only: " + ", ".join(f"`{f.text}` (only the 3.4 reference documents "
                                                                   f"{f.name}) [{f.mapping.record_id}]" for f in weak if f.mapping)
                + "; the receiver's type is unknown, so this is not decided.")
        if g3_api and g4:
            ids = _dedupe([f.mapping.record_id for f in g3_api if f.mapping])
            return Judgment(
                version_signal="neutral", label="ambiguous_version_signal", migration_required=False,
                confidence=0.4, evidence_ids=ids,
                rationale="Conflicting signals: Godot 4 syntax (" + ", ".join(sorted({f.name for f in g4}))
                + ") next to old API names (" + ", ".join(f"{f.name} [{f.mapping.record_id}]" for f in g3_api
                                                         if f.mapping) + "); not decided.")
        if g4:
            return self._godot4(inp, facts)
        return Judgment(version_signal="neutral", label="ambiguous_version_signal", migration_required=False,
                        confidence=0.5, rationale="No Godot 3 or Godot 4 specific syntax or API in code position.")

    def _godot4(self, inp: JudgeInput, facts: CodeFacts) -> Judgment:
        cues = sorted({f.text for f in facts.godot4})
        support = hits_mentioning(inp.evidence, [c for c in cues if len(c) > 2], limit=2,
                                  tables=("docs_chunks", "label_prototypes"))
        used = {h.record_id for h in support}
        for hit in inp.evidence.doc_evidence:  # docs of the APIs the code calls back the verdict too
            if hit.metadata.get("doc_version") == "3.4":
                continue  # a Godot 4 verdict cites 4.x pages
            names = {hit.metadata.get("symbol")} | set(hit.metadata.get("api_symbols") or [])
            if len(used) < 3 and hit.metadata.get("doc_type") != "migration" and names & facts.identifiers:
                used.add(hit.record_id)
        ids = _dedupe([h.record_id for h in inp.evidence.all_hits()
                       if h.record_id in used and h.metadata.get("doc_version") != "3.4"])
        names = ", ".join(sorted({f.name for f in facts.godot4}))
        return Judgment(version_signal="godot4", label="godot4_valid_api", migration_required=False,
                        confidence=0.85 if any(f.name != "godot4_api" for f in facts.godot4) else 0.7,
                        evidence_ids=ids,
                        rationale=f"Godot 4 only syntax/API in code position ({names}): {'; '.join(cues[:4])}."
                        + (f" Backed by {', '.join(ids)}." if ids else ""))

    def _godot3(self, inp: JudgeInput, facts: CodeFacts) -> Judgment:
        ev = inp.evidence
        ids: list[str] = []
        changes: list[SuggestedChange] = []
        reasons: list[str] = []
        renames: dict[str, str] = {}
        placed: dict[int, str] = {}  # offset of one use (or of a by-name use's quote) -> its new member name
        uses: list[TemplateUse] = []  # `get_tree().is_network_server()` -> its Godot 4 expression (calls.json)
        gone: set[str] = set()  # removed members of a typed receiver: the rewrite must leave no use of them
        gone_classes: set[str] = set()  # removed classes: likewise
        at: dict[int, int] = {}  # change index -> offset in the chunk: items are listed in code order
        label = "migration_required"
        signals = signal_renames(facts)
        syntax = [(f, self._syntax_change(f, inp, signals)) for f in facts.godot3_syntax]
        covered = {c.evidence_id for _, (c, _) in syntax if c is not None}
        # one item per call: a syntax rewrite (`yield(t, "timeout")` -> `await t.timeout`) beats an API row that
        # only says the name is gone; an API rename (`str2var(x)` -> `str_to_var(x)`) beats a described rule
        # (or says why there is none: `yield($Tween, "tween_all_completed")` waits on a signal 4.x lacks)
        rewritten = {c.old for f, (c, _) in syntax
                     if c is not None and (c.new and c.new != f.rule.new or f.signal_gone and not c.new)}
        moved = {f.signal_gone.rsplit(".", 1)[-1] for f, (c, _) in syntax if f.signal_gone and c is not None and c.new}
        rewritten_lines = {f.line for f, (c, _) in syntax if c is not None and c.new and f.rule is not None
                           and f.rule.scope == "statement"}
        # `connect("hide", ...)` -> `hidden.connect(...)`: the rewrite already shows (and cites) the signal's rename
        cited_by_syntax = {i for _, (_, cited) in syntax for i in cited}
        moved |= {a.name for a in facts.godot3_api if a.name in signals and a.mapping.record_id in cited_by_syntax}
        for f in facts.godot3_api:
            hit = f.mapping
            assert hit is not None
            md = hit.metadata
            target = md.get("target_api")
            old, new = self._api_old_new(f, inp, target)
            if (new is None and old in rewritten) or f.name in moved:
                continue  # the `connect` item says where the signal moved, or its new name
            if f.line in rewritten_lines and (target or "").rsplit(".", 1)[-1] == f.name.rsplit(".", 1)[-1]:
                continue  # same member, its line rewritten whole by a syntax change (`move_and_slide(v, up)`)
            use = TemplateUse.at(f.name, inp.chunk.code_text, f.start) if f.named_at < 0 else None
            if use is not None and not any(u.overlaps(use) for u in uses):
                uses.append(use)
                old, new = use.old, use.new
            elif f.named_at >= 0:
                placed[f.named_at] = _member_rename(f, target, inp) or ""
            elif not target and (virtual := _virtual_successor(f, inp)):
                placed[f.start] = virtual
                old, new = f.text, virtual
            elif f.weak and _a_script_member(f, inp):
                pass  # `$Move.speed` where a script of the project declares `speed`: a guess, listed, never rewritten
            elif derived_from_index(md):  # `items.remove(0)` on an Array
                renamed = not f.weak and (md.get("change_type") == "rename" or md.get("change_type") == "signature_change"
                                          and (same_call(f, inp, target) or f.name.rsplit(".", 1)[-1] in RESHAPED_CALLS))
                member = _member_rename(f, target, inp) if renamed else None
                owner = re.escape(f.name.rpartition(".")[0])
                if member:
                    placed[f.start] = member
                elif renamed and target and re.search(rf"\b{owner}\s*\.\s*$", inp.chunk.code_text[: f.start]):
                    renames[f.name] = target  # moved, used by its class's name: OS.get_ticks_msec -> Time
                elif md.get("change_type") == "removed" and not target and "." in f.name:
                    gone.add(f.name.rsplit(".", 1)[-1])  # `$Tween.start()`: only if a rewrite removes every use
                elif md.get("change_type") == "removed" and not target and "." not in f.name and not f.weak:
                    gone_classes.add(f.name)  # `x is GDScriptFunctionState`: only if a rewrite removes every use
                else:
                    placed[f.start] = ""  # not a rename, receiver unknown, or moved off an instance: a person
            elif f.name in signals:
                pass  # renamed where the code uses it as a signal (`mechanical_rewrite(..., signals)`)
            elif f.weak:
                pass  # a receiver nobody resolved (`colors.green`): listed as a hint, never rewritten
            else:
                renames[f.name] = target or ""
            if hit.record_id in covered:
                continue  # a syntax finding already shows this change, with the whole call
            doc_id, url = docs_url_for(hit, ev)
            labels = labels_for_mapping(hit, ev)
            ids += [hit.record_id, doc_id or "", *(h.record_id for h in labels[:1])]
            change_type = str(md.get("change_type") or "rename")
            url = _url_4x(hit, ev) or (url if url and "/en/3.4/" not in url else None)  # docs_url: what replaces it
            at[len(changes)] = f.start
            changes.append(SuggestedChange(old=old, new=new, change_type=change_type,
                                           evidence_id=hit.record_id, docs_url=url,
                                           note=f"line {self._line(inp, f)}: {f.text}"
                                           + (" (receiver type unknown)" if f.weak else ""),
                                           old_docs_url=_url_34(f, inp)))
            ids += [i for i in hit.metadata.get("evidence_chunk_ids") or [] if i in ev.ids()]
            reason = (f"`{f.name}` is Godot 3 API -> `{target or 'removed'}` [{hit.record_id}]"
                      + (f" on {f.receiver}" if f.receiver else ""))
            if reason not in reasons:  # one reason per API, one item per use
                reasons.append(reason)
            label = "deprecated_or_removed_api" if not target else "godot3_api_in_godot4"
            for proto in labels[:1]:
                if proto.metadata.get("label") in ("godot3_api_in_godot4", "deprecated_or_removed_api",
                                                   "migration_required"):
                    label = proto.metadata["label"]
        api_olds, reasons_api = {c.old for c in changes}, len(reasons)
        shadow = self._velocity_shadow(inp)
        for f, (change, cited) in syntax:
            if change is not None and change.old in api_olds:
                continue  # the API item shows this call already
            if shadow is not None and f.name == "redeclared_property" and _VELOCITY_NAME.match(f.text):
                continue  # the velocity item below says it, with the property's own page
            if change is not None:
                at[len(changes)] = f.start
                changes.append(change)
                ids += cited
            reasons.append(f"Godot 3 syntax `{change.old if change else f.text}` (line {self._line(inp, f)})"
                           + (f" -> `{change.new}`" if change and change.new else "")
                           + (f" [{', '.join(i for i in cited if i)}]" if cited else ""))
        if facts.godot3_syntax and not reasons_api:
            label = "migration_required"
        changes = [c for _, c in sorted(enumerate(changes), key=lambda kc: (at.get(kc[0], -1), kc[0]))]
        # a moved signal, or a call whose arguments change with no Godot 4 form (no `edit`), needs a person
        # a yield on a signal renamed in place (`idle_frame` -> `process_frame`) is renamed like any signal use
        in_place = {f.signal_gone: r for f in facts.godot3_syntax if f.signal_gone and f.rule is not None
                    and f.rule.name == "yield" and (r := _renamed_in_place(f.signal_gone, inp.evidence)[0])}
        signals = {**signals, **{g.rsplit(".", 1)[-1]: r for g, r in in_place.items()}}
        # the Tween node's end (`yield($Tween, "tween_all_completed")`): the created Tween's `finished`, when the
        # function's interpolations become one create_tween() (else the signal stays and the rewrite is refused)
        tween_ends = {f.signal_gone for f in facts.godot3_syntax if f.signal_gone and f.rule is not None
                      and f.rule.name == "yield" and f.signal_gone.rsplit(".", 1)[0] == "Tween"}
        gone |= {t.rsplit(".", 1)[-1] for t in tween_ends}
        by_hand = [f for f in facts.godot3_syntax
                   if f.signal_gone and f.signal_gone not in moved_signals() and f.signal_gone not in in_place
                   and f.signal_gone not in tween_ends or f.name == "call_form" and f.edit is None]
        edits = [f.edit for f in facts.godot3_syntax if f.edit is not None]  # `var s := max(a, b)` typed
        edits += _yield_constants(inp, facts)  # `yield(yield_for(1), YIELD)`: the constant's signal name
        if by_hand:
            REFUSAL.set("by hand: " + ", ".join(f.signal_gone or f.text[:40] for f in by_hand))
        taken = facts.declared | (inp.project.declared.get(inp.chunk.source_file, frozenset()) if inp.project else set())
        code = mechanical_rewrite(inp.chunk.code_text, renames, facts.declared, placed, signals, edits, uses, gone,
                                  gone_classes, taken) \
            if facts.is_gdscript and not by_hand else None
        if shadow is not None:
            change, cited, default = shadow
            changes.append(change)
            ids += cited
            reasons.append(f"`{change.old}` shadows the inherited CharacterBody velocity property"
                           + (f" [{', '.join(cited)}]" if cited else ""))
            if code is not None:
                code = "\n".join(line for line in code.split("\n") if line.strip() != change.old) if default else None
        ids = _dedupe(ids)
        strong = bool(facts.godot3_syntax) or any(
            f.mapping and (f.mapping.metadata.get("confidence") == "verified_from_docs" or f.receiver)
            for f in facts.godot3_strong)
        judgment = Judgment(version_signal="godot3", label=label, migration_required=True,
                            confidence=0.9 if strong else 0.75, evidence_ids=ids,
                            rationale="; ".join(reasons) + ".", suggested_changes=changes, suggested_code=code)
        return drop_godot3_recommendations(judgment, inp, facts)

    @staticmethod
    def _velocity_shadow(inp: JudgeInput) -> tuple[SuggestedChange, list[str], bool] | None:
        """`var velocity` in a KinematicBody script: CharacterBody2D/3D already has that property.

        Godot 4 refuses a member that redeclares an inherited one, so the migrated script would not
        load. Returns (change, cited ids, whether the line can simply go: a zero initial value).
        """
        body = _KINEMATIC_EXTENDS.search(f"{inp.chunk.surrounding_context}\n{inp.chunk.code_text}")
        m = VELOCITY_DECLARATION.search(lex(inp.chunk.code_text).masked)
        if not body or not m:
            return None
        old = statement_at(inp.chunk.code_text, m.start("name"))
        default = _ZERO_INIT.search(old) is not None
        ev = inp.evidence
        mapping = next((h for h in ev.api_mapping_evidence if h.metadata.get("source_api") in
                        ("KinematicBody2D.move_and_slide", "move_and_slide(velocity)")), None)
        doc = next((h for h in ev.doc_evidence if "property-velocity" in h.record_id), None)
        cited = [h.record_id for h in (mapping, doc) if h is not None]
        url = (anchor_url(doc.record_id, doc.metadata.get("source_url")) if doc else None) or (docs_url_for(mapping, ev)[1] if mapping else None)
        note = f"line {inp.chunk.span.start_line + inp.chunk.code_text.count(chr(10), 0, m.start('name'))}: " + (
            "CharacterBody2D/3D already has velocity; remove this declaration" if default else
            "CharacterBody2D/3D already has velocity; remove this declaration and set velocity in _ready()")
        return (SuggestedChange(old=old, new=None, change_type="removed", evidence_id=cited[0] if cited else "",
                                docs_url=url, note=note), cited, default)

    @staticmethod
    def _line(inp: JudgeInput, f: Finding) -> int:
        """The finding's line in the file (findings count lines from the chunk's start)."""
        return inp.chunk.span.start_line + f.line - 1

    @staticmethod
    def _api_old_new(f: Finding, inp: JudgeInput, target: str | None) -> tuple[str, str | None]:
        """A member or call rename shows the whole call as written (`preload(...).instance()`)."""
        if f.start < 0 or (f.name[:1].isupper() and "." not in f.name):
            return f.name, target
        old = expression_at(inp.chunk.code_text, f.start) or f.name
        member = f.name.rsplit(".", 1)[-1]
        if f.named_at >= 0:  # `call_deferred("change_scene", p)`: the string names the member
            named = _member_rename(f, target, inp)
            return old, old.replace(f.text, f.text[0] + named + f.text[-1], 1) if named else target
        new_member = (target or "").rsplit(".", 1)[-1]
        # a read-only property's getter renames too: `col.collider.name` -> `col.get_collider().name`
        if not target or not new_member.removesuffix("()").isidentifier():
            return old, target
        return old, rename_in(old, member, new_member) or target

    def _syntax_change(self, f: Finding, inp: JudgeInput,
                       signals: dict[str, str]) -> tuple[SuggestedChange | None, list[str]]:
        """The change for one syntax finding and the ids that back it (mapping, its docs, a label prototype)."""
        rule = f.rule
        if rule is None:
            return None, []
        ev = inp.evidence
        text = inp.chunk.code_text
        old = (statement_at(text, f.start) if rule.scope == "statement" else expression_at(text, f.start)) \
            if f.start >= 0 and inp.chunk.chunk_kind in AST_KINDS else ""
        old = old or f.text
        fragment = old
        if rule.name == "file_class":  # `var f = File.new()` goes with its `f.open(...)`: one change
            m = re.match(r"var\s+([A-Za-z_]\w*)", old)
            opener = re.search(rf"^[ \t]*{re.escape(m.group(1))}\s*\.\s*open\w*\s*\(", text[f.start:], re.M) if m else None
            if opener:
                companion = statement_at(text, f.start + opener.end() - 1)
                fragment, old = f"{old}\n{companion}", f"{old}; {companion}"
        new = rewrite_fragment(fragment, inp.facts.declared) if is_gdscript(inp.chunk) else None
        if rule.name == "is_variable_type" and f.start >= 0:  # `p_obj is p_type` -> is_instance_of(p_obj, p_type)
            old, new = is_variable_test(text, f.start) or (old, new)
        if rule.name == "nodepath_literal":  # `@"A/B"` -> `^"A/B"`: the literal is the change
            old, new = f.text, f"^{f.text[1:]}"
        if rule.name == "super_dot_call" and f.start >= 0:  # `return .f(x)`: the call is the change
            call = expression_at(text, f.start + 1)  # the finding starts at the parent call's dot
            old, new = f".{call}", f"super.{call}"
        new = new or rule.new or None
        signal_ids: list[str] = []
        if new and signals and rule.name in _SIGNAL_RULES:  # `connect("hide", self, "f")` -> `hidden.connect(f)`
            before, new = new, rename_signals(new, signals)
            signal_ids = [a.mapping.record_id for a in inp.facts.godot3_api if new != before and a.mapping is not None
                          and a.name in signals and re.search(rf"\b{re.escape(a.name)}\b", old)][:1]
        moved, moved_note = _moved_signal(f.signal_gone, ev) if f.signal_gone else (None, "")
        if f.signal_gone and rule.name == "yield":  # `await get_tree().idle_frame` names a signal 4.x lacks
            renamed, renamed_id = _renamed_in_place(f.signal_gone, ev)
            gone = re.escape(f.signal_gone.rsplit(".", 1)[-1])
            new = re.sub(rf"\.\s*{gone}\s*$", f".{renamed}", new) if renamed and new else None
            moved_note = f"{f.signal_gone} is {renamed} in Godot 4 [{renamed_id}]" if renamed else moved_note
        elif f.signal_gone:  # `get_tree().connect("network_peer_connected", ...)`: no such signal on 4.x's SceneTree
            new = moved
        cues = tuple(c for c in (*rule.cues, rule.old.split("(")[0].strip()) if len(c) > 2)
        # the curated/converter row documents a syntax change; a row derived from the API index only says
        # what 3.4 defined, so it never stands in for the change itself
        mapping = mapping_for(finding_keys(f), without_derived(ev))
        labels: list = []
        if mapping is not None:
            doc_id, url = docs_url_for(mapping, ev)
            labels = labels_for_mapping(mapping, ev)
            evidence_id, cited = mapping.record_id, [mapping.record_id, doc_id or ""]
        else:
            # the page of the member itself (`Image.create`) before a page that mentions it: the 4.x page
            # first, then the 3.4 page of what the code uses
            support = [h for h in ev.doc_evidence if h.record_id in rule.docs]  # the page documenting the change
            support = support or next((pages for c in cues if (pages := sorted(
                (h for h in ev.doc_evidence if h.metadata.get("symbol") == c),
                key=lambda h: h.metadata.get("doc_version") == "3.4"))), [])
            support = support or hits_mentioning(ev, cues, limit=1)
            if not support:  # the upgrading guide is the evidence for GDScript 2 syntax changes
                support = [h for h in ev.doc_evidence if h.metadata.get("doc_type") == "migration"][:1]
            hit = support[0] if support else None
            evidence_id = hit.record_id if hit else ""
            url = docs_url_of(hit, ev) if hit else None
            cited = [evidence_id] + [h.record_id for h in support[1:]
                                     if h.metadata.get("doc_version") != hit.metadata.get("doc_version")][:1]
        if mapping is not None:  # a prototype backs the change only if it files it under a Godot 3 label
            labels = [h for h in labels if h.metadata.get("label") in _GODOT3_LABELS]
        else:
            labels = [h for h in hits_mentioning(ev, cues, limit=2, tables=("label_prototypes",))
                      if h.metadata.get("label") in _GODOT3_LABELS]  # a neutral pattern never backs a change
        cited += [h.record_id for h in labels[:1] if h.record_id != evidence_id] + signal_ids
        if url is None:
            url = next((u for u in (docs_url_of(h, ev) for h in labels) if u), None)
        return SuggestedChange(old=old, new=new, change_type=rule.change_type, evidence_id=evidence_id,
                               docs_url=url, note=f"line {self._line(inp, f)}: {rule.name}"
                               + (f"; {rule.caveat}" if rule.caveat else "")
                               + (f"; {moved_note}" if moved_note else "")
                               + "".join(f"; the signal is renamed [{i}]" for i in signal_ids)), cited


_SIGNAL_RULES = ("connect_string_method", "disconnect_string_method", "yield")
"""Syntax rules whose rewrite names a signal (`hide.connect(f)`, `await obj.hide`)."""


def _moved_signal(gone: str, ev) -> tuple[str | None, str]:
    """`SceneTree.network_peer_connected` -> (where Godot 4 has it, a note), when a retrieved signal rename says so."""
    name = gone.rsplit(".", 1)[-1]
    for hit in ev.api_mapping_evidence:
        md = hit.metadata
        classes = (md.get("provenance") or {}).get("classes") or []
        if md.get("source_api") == name and md.get("target_api") and classes and md.get("status") != "rejected":
            moved = f"{classes[0]}.{md['target_api']}"
            return moved, f"Godot 4 has no signal {gone}: it is {moved} [{hit.record_id}]"
    return None, f"Godot 4 has no signal {gone}"


def _renamed_in_place(gone: str, ev) -> tuple[str | None, str]:
    """`SceneTree.idle_frame` -> ("process_frame", its row id), when a retrieved row renames the signal on its class."""
    owner = gone.rsplit(".", 1)[0]
    for hit in ev.api_mapping_evidence:
        md = hit.metadata
        target_owner, _, target = str(md.get("target_api") or "").rpartition(".")
        if md.get("source_api") == gone and (md.get("provenance") or {}).get("kind") == "signal" \
                and md.get("status") != "rejected" \
                and target.isidentifier() and target_owner in (owner, ""):
            return target, hit.record_id
    return None, ""


def _member_rename(f: Finding, target: str | None, inp: JudgeInput) -> str | None:
    """The new name of the member one use names, when only its name changes; None when it moves.

    The class may change only where the use's own class is renamed (`PoolStringArray.remove` ->
    `PackedStringArray.remove_at`: the receiver's type changes with it), not where the member moves
    to another class that 4.x still has beside it (`OS.get_ticks_msec` -> `Time.get_ticks_msec`).
    """
    if not target:
        return None
    owner, _, member = target.rpartition(".")
    old_owner = f.name.rpartition(".")[0]
    api = inp.project.api if inp.project else None
    renamed_class = bool(old_owner) and api is not None and api.has_class(V3, old_owner) \
        and not api.has_class(V4, old_owner)
    moved = owner and owner != old_owner and not renamed_class and {owner, old_owner} != {"@GDScript", "@GlobalScope"}
    if moved and not (old_owner == "" and owner == (f.receiver or owner)):
        return None
    # a read-only property's getter: `col.collider` -> `col.get_collider()`
    return member if member.removesuffix("()").isidentifier() else None


_YIELD_CALL = re.compile(r"(?<![\w.$%])yield\s*\(")


def _yield_constants(inp: JudgeInput, facts: CodeFacts) -> list[tuple[int, int, str]]:
    """`yield(x, NAME)` where NAME is a string constant of the script or its project bases: the name written
    out (`"timeout"`), a typed edit, so the yield becomes `await x.timeout` like any other."""
    consts = inp.project.string_constants.get(inp.chunk.source_file, {}) if inp.project else {}
    if not consts:
        return []
    code, masked = inp.chunk.code_text, facts.lexed.masked
    out = []
    for m in _YIELD_CALL.finditer(masked):
        commas = top_level_commas(masked, m.end() - 1)
        close = close_paren(masked, m.end() - 1)
        if len(commas) != 1 or close < 0:
            continue
        arg = code[commas[0] + 1:close - 1]
        name = arg.strip()
        if name in consts and name not in facts.declared:
            start = commas[0] + 1 + (len(arg) - len(arg.lstrip()))
            out.append((start, start + len(name), f'"{consts[name]}"'))
    return out


def _a_script_member(f: Finding, inp: JudgeInput) -> bool:
    """Whether a script of the project declares the member a receiver nobody resolved names (a member, an enum
    value: `Editor.Notification.error`): then the receiver is most likely the project's, not the engine class a
    name table guessed."""
    return inp.project is not None and f.name.rsplit(".", 1)[-1] in inp.project.own_names


def _virtual_successor(f: Finding, inp: JudgeInput) -> str | None:
    """An override of a 3.4 virtual that 4.x names with an underscore (`func handles(object)` in an
    EditorPlugin -> `_handles`): its new name, when the 4.x class has that virtual method."""
    api = inp.project.api if inp.project else None
    owner, _, member = f.name.rpartition(".")
    if api is None or not owner or member.startswith("_") or f.start < 0 \
            or not re.search(r"\bfunc\s+$", inp.chunk.code_text[max(0, f.start - 40):f.start]):
        return None
    owner4 = type_in(V4, owner)
    found = api.all_lookup(V4, owner4, f"_{member}", ("method",))
    return f"_{member}" if found and "virtual" in found[0].signature else None


_PARAM = re.compile(r"(\w+)\s*:\s*(\w+)")
_TEXT_TYPES = {"String", "StringName", "NodePath"}


def same_call(f: Finding, inp: JudgeInput, target: str | None) -> bool:
    """A signature change this call does not reach: the same member name, and its arguments mean the same in
    4.x (each one's parameter has the same name, or the first has the same type): `play("run")` on an
    AnimatedSprite2D, `move_and_collide(v)`; never `move_and_collide(v, false)` (infinite_inertia vs test_only)."""
    api = inp.project.api if inp.project else None
    owner, _, member = f.name.rpartition(".")
    new_owner, _, new_member = (target or "").rpartition(".")
    if api is None or not owner or member != new_member:
        return False
    old, new = api.lookup(V3, owner, member, ("method",)), api.lookup(V4, new_owner or owner, member, ("method",))
    code = inp.chunk.code_text
    at = f.start + len(member)
    m = re.match(r"\s*\(", code[at:])
    if old is None or new is None or m is None:
        return False
    masked = lex(code).masked
    close = close_paren(masked, at + m.end() - 1)
    if close < 0:
        return False
    n = len(split_args(code[at + m.end():close - 1], masked[at + m.end():close - 1]))
    p3, p4 = _PARAM.findall(old.signature.split("(", 1)[-1]), _PARAM.findall(new.signature.split("(", 1)[-1])
    if not new.accepts(n) or n > len(p3) or n > len(p4):
        return False
    for i in range(n):
        same_type = p3[i][1] == p4[i][1] or {p3[i][1], p4[i][1]} <= _TEXT_TYPES
        if p3[i][0] != p4[i][0] and not (i == 0 and same_type):
            return False
    return True


def _url_4x(hit, ev) -> str | None:
    """The 4.x page a mapping derived from the API index cites (what replaces the old API)."""
    urls = hit.metadata.get("evidence_urls") or {}
    for cid in hit.metadata.get("evidence_chunk_ids") or []:
        if not cid.startswith("godot-3.4:") and urls.get(cid):
            return anchor_url(cid, urls[cid])
    return None


def _url_34(f: Finding, inp: JudgeInput) -> str | None:
    """The 3.4 reference page of what the code uses: the mapping's 3.4 evidence, else the API index."""
    hit = f.mapping
    if hit is not None:
        urls = hit.metadata.get("evidence_urls") or {}
        for cid in hit.metadata.get("evidence_chunk_ids") or []:
            if cid.startswith("godot-3.4:") and urls.get(cid):
                return anchor_url(cid, urls[cid])
    api = inp.project.api if inp.project else None
    if api is None:
        return None
    name = f.name
    if "." in name:
        owner, member = name.rsplit(".", 1)
    elif name[:1].isupper() and not name.isupper():
        entry = api.class_entry("3.4", name)
        return anchor_url(entry.chunk_id, entry.source_url) if entry else None
    else:
        owner, member = f.receiver or "", name
    classes = [owner] if owner else list((hit.metadata.get("provenance") or {}).get("classes") or []) if hit else []
    for cls in classes or ["@GlobalScope"]:
        e = api.lookup("3.4", cls, member)
        if e:
            return anchor_url(e.chunk_id, e.source_url)
    return None


_GODOT3_LABELS = ("godot3_api_in_godot4", "deprecated_or_removed_api", "migration_required")
_VELOCITY_NAME = re.compile(r"^\s*var\s+velocity\b", re.M)
_KINEMATIC_EXTENDS = re.compile(r"^\s*extends\s+KinematicBody(2D)?\b", re.M)
_ZERO_INIT = re.compile(r"=\s*Vector[23]\s*(\.\s*ZERO\b|\(\s*\))\s*$|^[^=]*$")

_SKIP_KEYS = {"self", "new", "var", "func", "start", "connect"}


def finding_keys(f: Finding) -> list[str]:
    """Names to look the finding's api_mapping up by: dotted names in the match, the rule's keys, other names."""
    dotted = re.findall(r"[A-Za-z_]\w*\s*\.\s*[A-Za-z_]\w*", f.text)
    words = [w for w in re.findall(r"[A-Za-z_]\w*", f.text) if w not in _SKIP_KEYS]
    keys = [re.sub(r"\s+", "", d) for d in dotted] + list(f.rule.mapping_keys if f.rule else ()) + words
    return list(dict.fromkeys(keys))
