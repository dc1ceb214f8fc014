"""No import circles inside `agent` (issue 46, "typed seams").

The import graph is built statically from the source, so a circle is found even when one side of
it hides in a function (a lazy import only postpones the circle to the first call). Every
`import agent...` and `from agent... import ...` counts, relative ones too, at module level, in
functions and under `if TYPE_CHECKING:`; `from agent.x import y` is an edge to `agent.x.y` when
that is a module, else to `agent.x`. Importing a submodule also runs its package's `__init__`,
but that is no edge here: a package that re-exports its submodules would otherwise always be in
a circle with them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "agent"

ALLOWED: dict[frozenset[str], str] = {
    # Circles still present, each with the reason it is not broken yet. Empty: there are none.
}
"""Strongly connected components the test tolerates (module names -> why)."""


def module_name(path: Path, root: Path) -> str:
    """`agent/x/y.py` -> `agent.x.y`; `agent/x/__init__.py` -> `agent.x`."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package under `root`, by name."""
    found = {module_name(p, root): p for p in sorted((root / PACKAGE).rglob("*.py"))}
    assert found, f"no modules under {root / PACKAGE}"
    return found


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module `name` is, or the nearest package or module that holds it (an attribute)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module a (possibly relative) `from ... import` names."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(module: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """(imported agent module, line) for every import statement anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, path.name == "__init__.py")
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            if target == PACKAGE or target.startswith(PACKAGE + "."):
                resolved = _resolve(target, known)
                if resolved is not None and resolved != module:
                    yield resolved, node.lineno


def import_graph(root: Path = ROOT) -> tuple[dict[str, set[str]], dict[tuple[str, str], list[int]]]:
    """Module -> the agent modules it imports, and the lines of each edge."""
    known = modules(root)
    graph: dict[str, set[str]] = {name: set() for name in known}
    lines: dict[tuple[str, str], list[int]] = {}
    for name, path in known.items():
        for target, line in imports(name, path, known):
            graph[name].add(target)
            lines.setdefault((name, target), []).append(line)
    return graph, lines


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def a_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One shortest circle through the component's first module (breadth-first), start repeated at the end."""
    members, start = set(component), component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no circle through {start}")


def describe(graph: dict[str, set[str]], lines: dict[tuple[str, str], list[int]],
             component: list[str]) -> str:
    """The component's modules and one circle in it, each step with the lines of its imports."""
    steps = []
    for a, b in pairwise(a_cycle(graph, component)):
        steps.append(f"    {a} -> {b} (line {', '.join(map(str, sorted(set(lines[a, b]))))})")
    return f"  {{{', '.join(component)}}}:\n" + "\n".join(steps)


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    """The parser itself: imports inside functions, `from x import module` and relative imports count."""
    pkg = tmp_path / "agent"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import b\n")
    (pkg / "sub" / "a.py").write_text("def f():\n    from agent.sub import b\n    import agent.c\n")
    (pkg / "sub" / "b.py").write_text("from .a import f\nfrom ..c import thing\n")
    (pkg / "c.py").write_text("if TYPE_CHECKING:\n    import agent.d.e\nthing = 1\n")
    (pkg / "d.py").write_text("from agent import c\n")
    graph, lines = import_graph(tmp_path)
    assert graph["agent.sub"] == {"agent.sub.b"}
    assert graph["agent.sub.a"] == {"agent.sub.b", "agent.c"}
    assert graph["agent.sub.b"] == {"agent.sub.a", "agent.c"}
    assert graph["agent.c"] == {"agent.d"}  # agent.d.e is an attribute of agent.d, not a module
    assert graph["agent.d"] == {"agent.c"}
    assert sorted(strongly_connected(graph)) == [["agent.c", "agent.d"], ["agent.sub.a", "agent.sub.b"]]
    assert lines["agent.sub.a", "agent.sub.b"] == [2]
    assert "agent.sub.a -> agent.sub.b (line 2)" in describe(graph, lines, ["agent.sub.a", "agent.sub.b"])


def test_agent_has_no_import_circles():
    """Every strongly connected component of the import graph is a circle to break (or allowed, with why)."""
    graph, lines = import_graph()
    components = strongly_connected(graph)
    circles = [c for c in components if frozenset(c) not in ALLOWED]
    stale = [sorted(c) for c in ALLOWED if list(sorted(c)) not in components]
    assert not circles, "import circles in agent/ (move the shared piece to a module both can import):\n" + (
        "\n".join(describe(graph, lines, c) for c in circles)
    )
    assert not stale, f"allowed circles that no longer exist (remove them from ALLOWED): {stale}"
