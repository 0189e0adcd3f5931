"""The import rule of the puzzles (pipeline/puzzles/__init__.py), checked on the source.

Imports inside functions and under TYPE_CHECKING count, as for the import cycles
(tests/test_import_cycles.py): a family that reads storage in a function still
depends on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PUZZLES = Path(__file__).resolve().parent.parent / "pipeline" / "puzzles"

#: What any puzzle module may import from the rest of the package.
ANYWHERE = {
    "pipeline.errors",
    "pipeline.words",
    "pipeline.hints",
    "pipeline.answers",
    "pipeline.engine.core",
    "pipeline.engine.packed",
    "pipeline.draw.art",
    "pipeline.draw.geometry",
    "pipeline.draw.svg",
    "pipeline.engine.space",
    "pipeline.engine.marks",
    "pipeline.engine.bitmaps",
}
#: Storage types, named only for type checkers (check_table is handed a Table).
TYPES_ONLY = {"pipeline.storage.table", "pipeline.storage.manifest"}
#: The few readers of a data folder, each with what it reads it through.
READERS = {
    "pipeline.puzzles.pegs.board": {"pipeline.storage.table"},  # WinnablePuzzle.bind's source
    "pipeline.puzzles.names": {"pipeline.storage.files", "pipeline.storage.manifest"},
    "pipeline.puzzles.spec.parse": {"pipeline.storage.files", "pipeline.storage.manifest"},
    "pipeline.puzzles.registry": {"pipeline.storage.format"},
    # a spec's `file =` beside it, read as untrusted input (regular, bounded, no wait)
    "pipeline.puzzles.twisty.spec": {"pipeline.storage.files"},
    "pipeline.puzzles.trusted": {
        "pipeline.storage.files",
        "pipeline.storage.format",
        "pipeline.storage.integrity",
        "pipeline.storage.manifest",
        "pipeline.hints",
    },
}
#: The layers, bottom up: a module imports none of a layer above its own.
LAYERS = [
    {"base", "reserved", "spec.base", "family", "trusted"},
    set(),  # the families: every module not named here
    {"builtin"},
    {"spec.parse", "spec"},
    {"names"},
    {"registry"},
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PUZZLES.rglob("*.py"):
        parts = path.relative_to(PUZZLES.parent.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(path: Path) -> list[tuple[str, bool, str | None]]:
    """(module imported, under TYPE_CHECKING, the function it stands in) of each import."""
    out: list[tuple[str, bool, str | None]] = []

    def visit(node: ast.AST, typing: bool, function: str | None) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing = True
        if isinstance(node, ast.FunctionDef):
            function = node.name
        if isinstance(node, ast.Import):
            out.extend((a.name, typing, function) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.extend((f"{node.module}.{a.name}", typing, function) for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child, typing, function)

    visit(ast.parse(path.read_text()), False, None)
    return out


def _target(name: str, known: set[str]) -> str | None:
    """The module of the package an imported name stands for (None: outside pipeline)."""
    if not name.startswith("pipeline."):
        return None
    return name if name in known else name.rpartition(".")[0]


def _layer(module: str) -> int:
    short = module.removeprefix("pipeline.puzzles").lstrip(".")
    return next((i for i, names in enumerate(LAYERS) if short in names), 1)


def _storage_known() -> set[str]:
    storage = PUZZLES.parent / "storage"
    return {f"pipeline.storage.{p.stem}" for p in storage.glob("*.py")}


def test_puzzles_import_only_what_the_rule_allows() -> None:
    mods = _modules()
    known = set(mods) | _storage_known() | {"pipeline.errors", "pipeline.hints"}
    known |= {"pipeline.engine.core", "pipeline.engine.packed", "pipeline.answers"}
    known |= {"pipeline.engine.space", "pipeline.engine.marks", "pipeline.engine.bitmaps"}
    known |= {f"pipeline.draw.{m}" for m in ("art", "geometry", "svg")}
    wrong = []
    for module, path in mods.items():
        for name, typing, _ in _imports(path):
            target = _target(name, known)
            if target is None or target.startswith("pipeline.puzzles") or target in ANYWHERE:
                continue
            if typing and target in TYPES_ONLY:
                continue
            if target in READERS.get(module, set()):
                continue
            wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_no_puzzle_module_imports_a_layer_above_its_own() -> None:
    mods = _modules()
    wrong = []
    for module, path in mods.items():
        for name, _, _ in _imports(path):
            target = _target(name, set(mods))
            if target in mods and _layer(target) > _layer(module):
                wrong.append(f"{module} imports {target}")
    assert wrong == []
    assert _layer("pipeline.puzzles.tiles.board") == 1 and _layer("pipeline.puzzles.names") == 4


def test_the_walk_sees_imports_in_functions_and_for_type_checkers() -> None:
    found = _imports(PUZZLES / "pegs" / "board.py")
    assert ("pipeline.puzzles.pegs.moves.peg_moves", False, "kernels") in found
    assert ("pipeline.storage.table.Table", True, None) in _imports(PUZZLES / "base.py")
