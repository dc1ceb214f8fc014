"""One GDScript file in its Godot 4 form: every chunk's rewrite composed in one pass, validated, or a TODO.

A chunk's trip: the evidence judge decides it on the script's model with every mapping row its code names
(`with_exact_rows`; no top-k search), and writes its Godot 4 form when every change is mechanical. The file
is the chunks' spans replaced in order (they never overlap), with `# TODO(godot-rag): ...` lines above a
chunk the judge could not rewrite, naming each change and its docs. Validation (`validate_script`) parses
the result (no new tree-sitter error) and judges every chunk of it again on the same model: a rewrite that
parses badly or still holds Godot 3 code goes back to its original lines plus a TODO saying why. A chunk's
suggested code is this same engine on the chunk's span, so a chunk and its file never disagree.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field

from agent.apiindex import V4
from agent.judge.base import JudgeInput
from agent.judge.evidence import EvidenceJudge, same_call
from agent.judge.exact_rows import with_exact_rows
from agent.judge.facts import CodeFacts
from agent.judge.project import ProjectContext
from agent.judge.recommend import recommendation_failures
from agent.gdscript.checker import Checker
from agent.gdscript.diagnostics import Diagnostic
from agent.gdscript.grammar import godot4_grammar_error, line_start
from agent.judge.rewrite import REFUSAL, syntax_edits
from agent.migrate.safe_edits import grammar_edits
from agent.migrate.model import TODO_TAG, FileMigration, MigrationHunk, MigrationTodo
from agent.models import Chunk, EvidenceBundle, Judgment, SourceFile, SuggestedChange
from agent.parse import chunk_file
from agent.parse.lexer import lex
from agent.retrieve.query import split_trace

MAX_TODOS_PER_CHUNK = 6
_JUDGE = EvidenceJudge()


def script_chunks(path: str, text: str) -> list[Chunk]:
    """The chunker's non-empty chunks of one script, in file order."""
    data = text.encode()
    f = SourceFile(path=path, kind="gdscript", included=True, reason="migrate", size=len(data),
                   sha256=hashlib.sha256(data).hexdigest(), text=text)
    return [c for c in chunk_file(f) if c.code_text.strip()]


def _input(chunk: Chunk, ctx: ProjectContext | None) -> JudgeInput:
    return with_exact_rows(JudgeInput(prompt="", trace=split_trace(chunk, "migrate"), chunk=chunk,
                                      evidence=EvidenceBundle(query_id="migrate", task_type="migration"),
                                      project=ctx))


def judge_chunk(chunk: Chunk, ctx: ProjectContext | None) -> tuple[Judgment, CodeFacts]:
    """The evidence judge's decision on one chunk with every mapping row its code names (no search)."""
    inp = _input(chunk, ctx)
    return _JUDGE.decide(inp), inp.facts


def needs_migration(facts: CodeFacts) -> bool:
    """Godot 3 code a Godot 4 project cannot keep: a syntax change or an API the judge is sure of."""
    return bool(facts.godot3_syntax or facts.godot3_strong)


@dataclass
class ChunkPlan:
    """What the migration does with one chunk: its new text (None: unchanged) and its TODOs."""

    chunk: Chunk
    new: str | None = None
    todos: list[tuple[str, str | None]] = field(default_factory=list)
    items: list[SuggestedChange] = field(default_factory=list)
    evidence_ids: list[str] = field(default_factory=list)
    flagged: bool = False
    failure: str = ""
    why: str = ""
    """Why no complete Godot 4 form was written (the rewrite's refusal, or the validation's failure)."""
    body: str | None = None
    """A TODO chunk's text as written: the original with every safe edit (`todo_body`), so the file parses."""
    marked: bool = False
    """Left to a person by an earlier migration (a TODO line above it): judged for the counts, never changed."""

    @property
    def migrated(self) -> bool:
        """Rewritten whole, with no TODO."""
        return self.new is not None and not self.todos

    @property
    def text(self) -> str:
        """What the migrated file holds for this chunk."""
        if self.new is not None:
            return self.new
        return self.body if self.todos and self.body is not None else self.chunk.code_text

    def give_up(self, why: str) -> None:
        """Back to the original lines (with their safe edits), and a TODO that says why (and the items)."""
        self.failure = self.why = why
        self.new = None
        self.todos = [(f"the Godot 4 rewrite was not kept: {why}", None)] + (self.todos or _item_todos(self.items))
        self.body = todo_body(self.chunk.code_text)

    def leave_to_person(self, why: str) -> None:
        """A chunk the judge let pass that Godot 4 still refuses: a TODO with the checker's reason."""
        self.flagged = True
        self.why = self.why or why
        if (why, None) not in self.todos:
            self.todos = [*self.todos, (why, None)]
        if self.new is not None:
            self.body, self.new = self.new, None
        elif self.body is None:
            self.body = todo_body(self.chunk.code_text)


def todo_body(code: str) -> str:
    """A chunk kept for a person, with its safe edits: Godot 4 grammar for Godot 3 grammar (`safe_edits`)."""
    try:
        code = syntax_edits(code)
    except Exception:  # noqa: BLE001 - a line rule that needs judgement leaves the grammar to the next step
        pass
    return grammar_edits(code)


def _one_line(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _item_todos(items: list[SuggestedChange]) -> list[tuple[str, str | None]]:
    """One TODO per item, without line numbers (the TODO lines above would shift them)."""
    out: list[tuple[str, str | None]] = []
    for c in items:
        what = f"`{_one_line(c.old)}` -> " + (f"`{_one_line(c.new)}`" if c.new else "no direct Godot 4 form")
        if (what, c.docs_url or c.old_docs_url) not in out:
            out.append((what, c.docs_url or c.old_docs_url))
    return out


def _finding_todos(facts: CodeFacts) -> list[tuple[str, str | None]]:
    out = []
    for f in (*facts.godot3_syntax, *facts.godot3_strong):
        target = f.mapping.metadata.get("target_api") if f.mapping is not None else None
        new = f.rule.new if f.rule is not None else target
        out.append((f"`{_one_line(f.text)}` is Godot 3"
                    + (f"; Godot 4: `{_one_line(new)}`" if new else ""), None))
    return out


def plan_chunk(chunk: Chunk, ctx: ProjectContext | None) -> ChunkPlan:
    """Judge one chunk and plan its migration: the rewrite when it is mechanical, else TODOs."""
    inp = _input(chunk, ctx)
    REFUSAL.set("")
    judgment, facts = _JUDGE.decide(inp), inp.facts
    if not needs_migration(facts):
        grammar = grammar_edits(chunk.code_text)  # Godot 3 grammar no judge rule names (enum commas, `var` params)
        if grammar == chunk.code_text:
            return ChunkPlan(chunk)
        return ChunkPlan(chunk, new=grammar, flagged=True, items=[SuggestedChange(
            old="Godot 3 grammar", new="Godot 4 grammar", change_type="syntax", evidence_id="gdscript_grammar",
            note="enum entries need commas; `var` before a parameter and mixed dictionary styles are gone")])
    plan = ChunkPlan(chunk, items=list(judgment.suggested_changes), evidence_ids=list(judgment.evidence_ids),
                     flagged=True)
    code = judgment.suggested_code if judgment.version_signal == "godot3" else None
    refused = recommendation_failures(judgment, inp, facts) if code is not None else []
    if code is not None and code != chunk.code_text and not refused:
        plan.new = grammar_edits(code)  # Godot 3 grammar the line rules do not know (`func f(var x)`)
    elif refused:  # the run's validator refuses it too: Godot 3 API in what it would write
        plan.give_up(refused[0].split(": ", 1)[-1])
    elif _valid_as_written(facts, inp):
        plan.new = chunk.code_text  # validated like a rewrite: on the migrated project, the receivers' new classes
    else:
        plan.why = REFUSAL.get() or "not every change has a mechanical Godot 4 form"
        plan.body, written = certain_names(todo_body(chunk.code_text), plan.items, ctx)
        left = [c for c in plan.items if (c.old, c.new) not in written]
        plan.todos = _item_todos(left) or ([] if written else _finding_todos(facts)) or [(plan.why, None)]
    return plan


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")


def certain_names(code: str, items: list[SuggestedChange], ctx: ProjectContext | None
                  ) -> tuple[str, set[tuple[str, str | None]]]:
    """A TODO chunk's names whose change is certain, written anyway: an item `old -> new` of two names (a global,
    a class, a constant, `Label.ALIGN_CENTER`) where no 4.x class or global defines the old name, the project
    does not declare it, and 4.x defines the new one as a class or global. A member after a `.` is the checker's
    (its safe fixes reach TODO chunks too); the rest of the chunk waits for a person. Returns the code and the
    (old, new) pairs written."""
    api = ctx.api if ctx is not None else None
    written: set[tuple[str, str | None]] = set()
    if api is None or not api.complete_v4:
        return code, written
    for c in items:
        if not c.new or not _DOTTED.fullmatch(c.old) or not _DOTTED.fullmatch(c.new) or "." in c.new:
            continue
        last = c.old.rsplit(".", 1)[-1]
        if api.defined_anywhere(V4, last) or api.has_class(V4, last) or last in ctx.own_names:
            continue
        if not (api.has_class(V4, c.new) or api.lookup(V4, "@GlobalScope", c.new) is not None):
            continue
        masked = lex(code).masked
        for m in reversed(list(re.finditer(rf"(?<![\w.$%]){re.escape(c.old)}(?!\w)", masked))):
            code = code[:m.start()] + c.new + code[m.end():]
            written.add((c.old, c.new))
    return code, written


def _valid_as_written(facts: CodeFacts, inp: JudgeInput) -> bool:
    """Only members whose class was renamed around them (`$AnimatedSprite.play()` once the scene's node is an
    AnimatedSprite2D, `is_on_floor()` in a CharacterBody2D), a signature change included when the call does
    not reach it: the text stays, the migrated project decides."""
    if facts.godot3_syntax or not facts.godot3_strong:
        return False
    for f in facts.godot3_strong:
        target = f.mapping.metadata.get("target_api") if f.mapping is not None else None
        md = f.mapping.metadata if f.mapping is not None else {}
        if not target or "." not in f.name or target.rsplit(".", 1)[-1] != f.name.rsplit(".", 1)[-1] \
                or f.named_at >= 0:
            return False
        if md.get("change_type") not in ("rename", None) and not (
                md.get("change_type") == "signature_change" and same_call(f, inp, target)):
            return False
    return True


def marked(text: str, chunk: Chunk) -> bool:
    """Whether a `# TODO(godot-rag):` line sits right above the chunk or in it: left to a person by an earlier
    migration, so a second one leaves it as it is."""
    if f"# {TODO_TAG}:" in chunk.code_text:
        return True
    data = text.encode()
    line_start = data.rfind(b"\n", 0, chunk.span.start_byte) + 1
    for line in reversed(data[max(0, line_start - 4000):line_start].decode(errors="replace").split("\n")[:-1]):
        if not line.strip().startswith("#"):
            return False
        if TODO_TAG in line:
            return True
    return False


def _todo_lines(plan: ChunkPlan, indent: str) -> list[tuple[str, str, str | None]]:
    """The TODO comments to put above the chunk (`plan_script` leaves a chunk marked already unchanged)."""
    todos = plan.todos[:MAX_TODOS_PER_CHUNK]
    if len(plan.todos) > MAX_TODOS_PER_CHUNK:
        todos.append((f"and {len(plan.todos) - MAX_TODOS_PER_CHUNK} more change(s): see the report", None))
    return [(f"{indent}# {TODO_TAG}: " + (f"{reason} ({url})" if url else reason), reason, url) for reason, url in todos]


@dataclass
class Composed:
    text: str
    spans: list[tuple[ChunkPlan, int, int]]
    """Each changed or marked plan and its span in the new text (bytes, TODO lines included)."""
    todos: list[MigrationTodo]
    places: list[tuple[ChunkPlan, int, int]] = field(default_factory=list)
    """Every plan and where its text (`ChunkPlan.text`, TODO lines not included) stands in the new text."""

    def plan_at(self, byte: int) -> tuple[ChunkPlan, int] | None:
        """The plan whose text holds `byte` of the new text, and the byte's offset in that text."""
        for plan, a, b in self.places:
            if a <= byte < b or byte == a == b:
                return plan, byte - a
        return None


def compose(text: str, plans: list[ChunkPlan]) -> Composed:
    """The file with every plan applied: chunk spans replaced in order, TODO lines above their chunks."""
    data = text.encode()
    out = bytearray()
    spans: list[tuple[ChunkPlan, int, int]] = []
    places: list[tuple[ChunkPlan, int, int]] = []
    todos: list[MigrationTodo] = []
    last = 0
    for plan in sorted(plans, key=lambda p: p.chunk.span.start_byte):
        c = plan.chunk
        if plan.new is None and not plan.todos:
            at = len(out) + (c.span.start_byte - last)
            places.append((plan, at, at + len(c.code_text.encode())))
            continue
        line_start = data.rfind(b"\n", 0, c.span.start_byte) + 1
        lead = data[line_start:c.span.start_byte].decode()
        body = plan.text
        if body.strip():  # a removed last line (`var velocity`) must not leave its newline behind
            body = body.rstrip("\n") + "\n" * (len(c.code_text) - len(c.code_text.rstrip("\n")))
        first = (lead + c.code_text).split("\n", 1)[0]
        indent = first[: len(first) - len(first.lstrip())]
        marks = _todo_lines(plan, indent) if plan.todos else []
        start_at = line_start if lead.strip() == "" else c.span.start_byte
        out += data[last:start_at]
        begin = len(out)
        for mark, reason, url in marks:
            out += (mark + "\n").encode()
            todos.append(MigrationTodo(line=out.count(b"\n"), reason=reason, docs_url=url))
        if start_at == line_start:
            out += lead.encode()
        body_at = len(out)
        out += body.encode()
        spans.append((plan, begin, len(out)))
        places.append((plan, body_at, len(out)))
        last = c.span.end_byte
        if not body.strip() and not marks:  # a chunk rewritten away (`var velocity = Vector2.ZERO`): its line too
            last += data[last:last + 1] == b"\n"
            if data[last:last + 1] == b"\n" and out.endswith(b"\n\n"):
                last += 1
    out += data[last:]
    return Composed(out.decode(), spans, todos, places)


def parse_errors(text: str) -> list[tuple[int, int]]:
    """Byte spans of tree-sitter ERROR and MISSING nodes."""
    from agent.parse.gdscript import _parser

    tree = _parser().parse(text.encode())
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            out.append((node.start_byte, node.end_byte))
            continue
        if node.has_error:
            stack.extend(node.children)
    return out


def _owner(spans: list[tuple[ChunkPlan, int, int]], start: int, end: int) -> list[ChunkPlan]:
    return [p for p, a, b in spans if p.new is not None and a <= max(start, end - 1) and start < b]


def validate_script(path: str, original: str, composed: Composed, ctx: ProjectContext | None,
                    checker: Checker | None = None, *, gate_unflagged: bool = True) -> list[ChunkPlan]:
    """The plans whose rewrite fails, each given up with its reason (`ChunkPlan.give_up`): a new tree-sitter
    error inside it, a line gdtoolkit's Godot 4 grammar stops at, Godot 3 code left in it (judged again on the
    migrated file's model), or an error of the Godot 4 checker. A checker error with a safe fix (a rename the
    converter's tables and the API index vouch for) is fixed in place instead, in any chunk; an error in a chunk
    the judge let pass makes it a TODO (`gate_unflagged`; off for a Godot 4 project's own code)."""
    bad: dict[int, ChunkPlan] = {}
    before = len(parse_errors(original))
    errors = parse_errors(composed.text)
    if len(errors) > before:
        for a, b in errors:
            for p in _owner(composed.spans, a, b) or [p for p, _, _ in composed.spans if p.new is not None]:
                bad.setdefault(id(p), p).failure = p.failure or "the rewrite does not parse"
    if not bad:
        grammar = godot4_grammar_error(composed.text)
        if grammar is not None:
            at = line_start(composed.text, grammar.line)
            for p in _owner(composed.spans, at, at + 1):
                bad.setdefault(id(p), p).failure = f"Godot 4's grammar stops at its line {grammar.line}: {grammar.message}"
    if not bad:
        for chunk in script_chunks(path, composed.text):
            _, facts = judge_chunk(chunk, ctx)
            if not needs_migration(facts):
                continue
            left = ", ".join(sorted({_one_line(f.text, 40) for f in (*facts.godot3_syntax, *facts.godot3_strong)}))
            for p in _owner(composed.spans, chunk.span.start_byte, chunk.span.end_byte):
                bad.setdefault(id(p), p).failure = p.failure or f"Godot 3 code left in it ({left})"
    if not bad and checker is not None:
        fixed = _apply_checker(path, composed, checker, bad, gate_unflagged)
        if fixed:
            return fixed
    for p in bad.values():
        p.give_up(p.failure)
    return list(bad.values())


def _apply_checker(path: str, composed: Composed, checker: Checker, bad: dict[int, ChunkPlan],
                   gate_unflagged: bool) -> list[ChunkPlan]:
    """The checker's verdict on the composed file: safe fixes written into their plans' text, other errors in
    a rewritten chunk marked in `bad` (given up by the caller), in a chunk left as it was made TODOs. Returns the
    plans changed here (fixed or made TODOs), which the caller composes and validates again."""
    diags = [d for d in checker.check_text(path, composed.text) if d.severity == "error"]
    edits: dict[int, tuple[ChunkPlan, dict[tuple[int, int, str], Diagnostic]]] = {}
    touched: dict[int, ChunkPlan] = {}
    for d in diags:
        found = composed.plan_at(d.start)
        if found is None or found[0].marked:
            continue  # a chunk an earlier migration left to a person stays as it is
        plan, _ = found
        if d.fix is not None and d.fix.applicability == "safe":
            for e in d.fix.edits:  # an edit goes to the chunk that holds it (a backing field spans functions)
                hit = composed.plan_at(e.start)
                if hit is not None and not hit[0].marked:  # one edit once, whichever of the diagnostics that share it brought it
                    edits.setdefault(id(hit[0]), (hit[0], {}))[1].setdefault((hit[1], hit[1] + e.end - e.start, e.text), d)
            continue
        if plan.migrated and plan.new != plan.chunk.code_text:
            bad.setdefault(id(plan), plan).failure = plan.failure or f"Godot 4 refuses it: {d.message}"
        elif not plan.todos and (gate_unflagged or plan.flagged):
            plan.leave_to_person(f"Godot 4 refuses this: {d.message}")
            touched[id(plan)] = plan
    for plan, changes in edits.values():
        text = plan.text.encode()
        last = len(text) + 1
        for (a, b, new), d in sorted(changes.items(), key=lambda c: (c[0][0], c[0][1]), reverse=True):
            if b > last:
                continue  # overlaps an edit already made: the next round's check sees what is left
            last = a
            old = text[a:b].decode()
            text = text[:a] + new.encode() + text[b:]
            if not any(i.old == old and i.new == new for i in plan.items):
                plan.items.append(SuggestedChange(old=old, new=new, change_type="rename", evidence_id="renames_3_to_4",
                                                  note=d.fix.why if d.fix else ""))
        if plan.new is not None:
            plan.new = text.decode()
        elif plan.todos:
            plan.body = text.decode()
        else:
            plan.new, plan.flagged = text.decode(), True
        touched[id(plan)] = plan
    return list(touched.values()) if not bad else []


def _flat(text: str) -> str:
    return " ".join(text.split())


def items_as_written(plan: ChunkPlan) -> list[SuggestedChange]:
    """The plan's items with each `new` as the migrated code holds it. The judge's item says what to change;
    the code may say it better (`await tween.tween_all_completed` became `await created_tween.finished`), and
    what the user reads beside the code must be the code: an item whose `old` and `new` the code both lacks
    takes the line, of those that replaced its `old`, most like the two."""
    new_text = plan.text
    flat = _flat(new_text)
    old_lines, new_lines = plan.chunk.code_text.split("\n"), new_text.split("\n")
    blocks = [op for op in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes()
              if op[0] != "equal"]
    out = []
    for c in plan.items:
        if not c.new or _flat(c.new) in flat or not c.old.strip() or _flat(c.old) in flat:
            out.append(c)  # said as written, or not a change of text (the old code is still there)
            continue
        first = c.old.strip().split("\n")[0].strip()
        at = next((k for k, line in enumerate(old_lines) if first in line), None)
        block = next((b for b in blocks if at is not None and b[1] <= at < b[2]), None)
        if block is None:
            out.append(c)
            continue
        lines = [x.strip() for x in new_lines[block[3]:block[4]] if x.strip()]
        if "." in c.old and re.fullmatch(r"[A-Za-z_$][\w.]*", c.old.strip()):  # a member: the same receiver's new one
            head = re.escape(c.old.strip().rsplit(".", 1)[0] + ".")
            renamed = [m.group(0) for x in lines for m in re.finditer(rf"(?<![\w.$]){head}\w+", x)]
            if renamed:
                out.append(c.model_copy(update={"new": renamed[0]}))
                continue
        # the line of the replacing block most like the old code and the judge's form together
        # (`yield(tween, "tween_all_completed")` -> `await created_tween.finished`)
        best = max(lines, key=lambda x: difflib.SequenceMatcher(None, _flat(c.new), x).ratio()
                   + difflib.SequenceMatcher(None, _flat(c.old), x).ratio(), default="")
        out.append(c.model_copy(update={"new": best or None}))
    return out


def _line_of(text: str, byte: int) -> int:
    return text.encode()[:byte].count(b"\n") + 1


def file_migration(path: str, original: str, plans: list[ChunkPlan], composed: Composed,
                   failures: list[str]) -> FileMigration:
    """The record of one migrated script: its hunks traced to items and evidence, its TODOs, its counts."""
    hunks = []
    for plan, a, b in composed.spans:
        c = plan.chunk
        hunks.append(MigrationHunk(start_line=c.span.start_line, end_line=c.span.end_line,
                                   new_start_line=_line_of(composed.text, a),
                                   new_end_line=_line_of(composed.text, max(a, b - 1)), name=c.name,
                                   status="migrated" if plan.migrated else "todo",
                                   items=items_as_written(plan) if plan.migrated else plan.items,
                                   evidence_ids=plan.evidence_ids, why=plan.why or None))
    flagged = [p for p in plans if p.flagged]
    changed = composed.text != original
    return FileMigration(
        path=path, kind="gdscript",
        status="todo" if composed.todos else "migrated" if changed else "unchanged",
        migrated=composed.text if changed else None,
        edits=sum(1 for p in plans if p.new is not None and p.new != p.chunk.code_text), hunks=hunks, todos=composed.todos, failures=failures,
        flagged=len(flagged), complete=sum(1 for p in flagged if p.migrated))


def plan_script(path: str, text: str, ctx: ProjectContext | None) -> tuple[list[ChunkPlan], Composed]:
    """Every chunk planned, then composed (before validation)."""
    plans = []
    for c in script_chunks(path, text):
        if marked(text, c):  # a person's already: judged for the counts, never rewritten again
            plan = plan_chunk(c, ctx)
            plan.new, plan.todos, plan.body, plan.marked = None, [], None, True
            plans.append(plan)
        else:
            plans.append(plan_chunk(c, ctx))
    return plans, compose(text, plans)
