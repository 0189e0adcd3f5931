"""The promises of docs/ARCHITECTURE.md that a test can hold, on the source.

Each "one X" the page makes (one reader of level files, one namer of scratch
files, one walk along parents, one place that reads a walk in playing order,
one name a class) and each thing a room does not know (build/ no executor's
kind, a library module no terminal).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tests.test_import_cycles import edges, modules

PACKAGE = Path(__file__).resolve().parent.parent / "pipeline"


def sources() -> dict[str, str]:
    """Every module of the package by its path under pipeline/."""
    return {str(p.relative_to(PACKAGE)): p.read_text() for p in PACKAGE.rglob("*.py")}


def where(pattern: str) -> list[str]:
    """The modules whose code (comments and docstrings aside) matches ``pattern``."""
    out = []
    for name, text in sources().items():
        code = "\n".join(_code_lines(text))
        if re.search(pattern, code):
            out.append(name)
    return sorted(out)


def _code_lines(text: str) -> list[str]:
    """The lines of code, without comments and docstrings."""
    tree = ast.parse(text)
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            docs.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines = text.splitlines()
    return [ln.split("#")[0] for i, ln in enumerate(lines, 1) if i not in docs]


def test_one_reader_of_level_files() -> None:
    """Only storage/reader.py opens Parquet files to read them (integrity.py reads a
    footer's figures to hold them against the manifest)."""
    found = where(r"pq\.(ParquetFile|read_table|read_metadata|read_schema)\(|pyarrow\.dataset")
    assert found == ["storage/integrity.py", "storage/reader.py"]


def test_one_namer_of_scratch_files() -> None:
    """The scratch folders' names are storage/scratch.py's (Spark's parts folder too)."""
    assert where(r"""["']\.spark["']|["']spill["']|["']-rounds["']""") == ["storage/scratch.py"]


def test_build_knows_no_executor_kind() -> None:
    """build/ takes the executor it is given: it imports executors/base.py alone."""
    known = modules()
    taken = {
        b
        for a, path in known.items()
        if a.startswith("pipeline.build")
        for b in edges(a, path, known)
        if b.startswith("pipeline.executors")
    }
    assert taken == {"pipeline.executors.base"}


def test_one_walk_along_parents() -> None:
    """A table's walk is followed in service/walks.py alone (the API, the CLI, the
    explorer and the report ask it); storage/table.py is where it is read."""
    assert where(r"(?<!\bdb)(?<!\bwalks)\.walk\(") == ["service/walks.py"]


def test_one_place_reads_a_walk_in_playing_order() -> None:
    """Solution.line turns a walk round by its origin; nobody else does."""
    assert where(r"(states|path)\[::-1\]") == ["answers.py"]
    assert where(r"""origin\s*[!=]=\s*["'](goal|start|root)["']""") == []


def test_no_library_module_prints() -> None:
    """Only the command line writes to the terminal; the library logs its notes
    (pipeline's loggers: the CLI prints them) or returns them."""
    found = where(r"\bprint\(|sys\.stderr\.write")
    assert [f for f in found if not f.startswith("cli/")] == [
        "solvers/ida_c.py",  # its `python -m` entry point: `make build-db` builds the kernel
    ]


def test_one_name_a_class() -> None:
    """No two classes of the package share a name."""
    names = Counter(
        node.name
        for text in sources().values()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.ClassDef)
    )
    assert [n for n, k in names.items() if k > 1] == []


def _profiled(tmp_path: Path, *args: str) -> dict[str, Any]:
    """What one command calls (tests/profile_cli.py: a process of its own)."""
    out = tmp_path / "profile.json"
    run = [sys.executable, "-m", "tests.profile_cli", str(out), *args]
    subprocess.run(run, cwd=PACKAGE.parent, capture_output=True, text=True, check=True)
    return dict(json.loads(out.read_text()))


def test_a_solve_asks_across_few_folders(data: Path, tmp_path: Path) -> None:
    """The CLI asks the API once, the API the service once, the service the puzzle and
    the table a few times: a solve of 31 moves is not a call into another folder a
    state (it was 253 calls, 93 of them solvers/ computing tiles for a text walk)."""
    doc = _profiled(tmp_path, "solve", "3x3", "8 6 7 2 5 4 3 0 1", "--data", str(data))
    assert doc["across"] <= 75, doc["pairs"]


def test_a_definition_is_parsed_once_and_made_one_puzzle(tmp_path: Path) -> None:
    """`build --spec FILE.tws NAME` reads the definition once, makes one puzzle object
    and never reads back the TOML it keeps (one resolver, puzzles passed down)."""
    spec = PACKAGE.parent / "examples" / "specs" / "floppy.tws"
    doc = _profiled(tmp_path, "build", "--spec", str(spec), "floppy", "--data", str(tmp_path))
    calls = doc["calls"]
    assert calls["pipeline.puzzles.twisty.tws._Reader.definition"] == 1
    assert calls["pipeline.puzzles.twisty.board.TwistyPuzzle.__init__"] == 1
    assert "tomllib._parser.loads" not in calls


def test_a_name_becomes_a_puzzle_in_the_registry_alone() -> None:
    """Below the API, functions take puzzle objects: the name grammar's resolver is
    called by the registry alone, and a data folder's Registry is made by its Folder
    (and by a Spark worker, which has none)."""
    resolving = where(r"\bresolve\((name|base)|names\.resolve\(|import resolve\b")
    assert resolving == ["puzzles/names.py", "puzzles/registry.py"]
    assert where(r"\bRegistry\(") == [
        "executors/spark/tasks.py",
        "puzzles/registry.py",
        "service/folder.py",
    ]
