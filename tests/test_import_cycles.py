"""No import cycle in the package, counting imports inside functions.

The rule (issue #33): an import of a module, or of a name from a package, is
an edge to that module or to that package's ``__init__``, wherever the import
stands (top level, inside a function, under TYPE_CHECKING). A cycle hidden in
a function still ties the modules into one room: neither can be read, tested
or moved alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pipeline"


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    out = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def edges(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules ``name`` imports, by the rule above."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in known:
                    out.add(sub)
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


class _Tarjan:
    """Tarjan's strongly connected components, one depth-first visit at a time."""

    def __init__(self, graph: dict[str, set[str]]) -> None:
        self.graph = graph
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.stack: list[str] = []
        self.on: set[str] = set()
        self.found: list[list[str]] = []

    def visit(self, v: str) -> None:
        self.index[v] = self.low[v] = len(self.index)
        self.stack.append(v)
        self.on.add(v)
        for w in sorted(self.graph[v]):
            if w not in self.index:
                self.visit(w)
                self.low[v] = min(self.low[v], self.low[w])
            elif w in self.on:
                self.low[v] = min(self.low[v], self.index[w])
        if self.low[v] == self.index[v]:
            self._pop(v)

    def _pop(self, v: str) -> None:
        """The component whose root is ``v`` leaves the stack; kept when a cycle."""
        group = []
        while True:
            w = self.stack.pop()
            self.on.discard(w)
            group.append(w)
            if w == v:
                break
        if len(group) > 1:
            self.found.append(sorted(group))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    search = _Tarjan(graph)
    for v in sorted(graph):
        if v not in search.index:
            search.visit(v)
    return search.found


def test_the_package_has_no_import_cycle() -> None:
    known = modules()
    graph = {name: edges(name, path, known) for name, path in known.items()}
    assert cycles(graph) == []


def test_the_benchmarks_and_tools_have_no_import_cycle() -> None:
    # Top-level folders beside the package (not in the wheel), held to the same rule.
    for folder in ("benchmarks", "tools"):
        known = modules(PACKAGE.parent / folder)
        assert cycles({name: edges(name, path, known) for name, path in known.items()}) == []


def test_the_rule_sees_a_cycle_hidden_in_a_function() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
