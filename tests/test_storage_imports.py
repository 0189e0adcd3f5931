"""The storage layer imports without a cycle (imports inside functions count).

An import of a module, or of a name from a package, is an edge to that module
or that package's ``__init__``, wherever the import stands. The rest of the
package still has cycles (issue 33 removes them); storage, the public
contract, must not gain one.
"""

from __future__ import annotations

import ast
from pathlib import Path

STORAGE = Path(__file__).resolve().parent.parent / "pipeline" / "storage"


def _edges() -> dict[str, set[str]]:
    mods = {f"pipeline.storage.{p.stem}": p for p in STORAGE.glob("*.py") if p.stem != "__init__"}
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            edges[m] |= {n for n in names if n in mods and n != m}
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle, as its modules, or None (depth-first search)."""
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> list[str] | None:
        state[m] = 1
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                return [*path[path.index(n) :], n]
            if n not in state and (found := visit(n, [*path, n])):
                return found
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (found := visit(m, [m])):
            return found
    return None


def test_storage_has_no_import_cycle() -> None:
    edges = _edges()
    assert "pipeline.storage.integrity" in edges["pipeline.storage.reader"]  # the walk sees edges
    assert _cycle(edges) is None, " -> ".join(_cycle(edges) or [])


def test_the_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
