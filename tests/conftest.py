"""Shared fixtures: the default tables, built once per test session into a temp folder;
and the options the outside-CI tests read (the Makefile passes them)."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pipeline
from pipeline.puzzles import registry as puzzles

#: pytest option: (default, what it says), for the tests selected by `-m full`,
#: `-m browser` and `-m "full and spark"`; each is also a session fixture of its name.
OPTIONS: dict[str, tuple[str, str]] = {
    "full-data": ("data", "the data folder `make build-db-full` built (test-full)"),
    "french-data": (
        "bench-results/french37-data",
        "the data folder `make bench-french37` built french37 in (test-full)",
    ),
    "french-sym-data": ("", "a data folder to build french37-sym in and keep (test-full)"),
    "english33-depth": ("12", "how deep the engine's english33 levels are checked (test-full)"),
    "chromium": ("/usr/bin/chromium", "the chromium that playwright drives (test-browser)"),
    "shots": ("build/screenshots", "where test-browser's screenshots go"),
    "spark-master": ("local-cluster[2,1,4096]", "the Spark master of test-spark-full"),
    "twsearch-samples": ("", "twsearch's samples/main folder (test-twisty-samples)"),
}


def pytest_configure(config: pytest.Config) -> None:
    """Children see the shell's COLUMNS and LINES only: GNU readline (imported with pdb)
    sets both in the C environment, outside os.environ, and `list` then wraps."""
    for name in ("COLUMNS", "LINES"):
        if name not in os.environ:
            os.unsetenv(name)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("puzzledb", "puzzledb's outside-CI tests")
    for name, (default, doc) in OPTIONS.items():
        group.addoption(f"--{name}", default=default, help=f"{doc} (default: {default or 'none'})")


#: Markers of the tests outside `make test`: they run only when the -m expression
#: names them, so a quick `-m "not slow and not spark"` (which replaces the -m of
#: pyproject's addopts) still leaves them out.
OUTSIDE = ("full", "browser", "hostile")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    named = set(re.findall(r"\w+", config.getoption("markexpr") or ""))
    left_out = [m for m in OUTSIDE if m not in named]
    drop = [i for i in items if any(i.get_closest_marker(m) for m in left_out)]
    if drop:
        config.hook.pytest_deselected(items=drop)
        dropped = set(drop)
        items[:] = [i for i in items if i not in dropped]
    # The long ones first (Spark's, those marked slow), so the two workers of `make
    # test` finish together: last in file order, they left a core idle at the end.
    items.sort(key=lambda i: not any(i.get_closest_marker(m) for m in LONG))


#: Markers of the tests `make test` starts first.
LONG = ("spark", "slow")


def _option(config: pytest.Config, name: str) -> str:
    return str(config.getoption(name.replace("-", "_")))


@pytest.fixture(scope="session")
def full_data(pytestconfig: pytest.Config) -> Path:
    return Path(_option(pytestconfig, "full-data"))


@pytest.fixture(scope="session")
def french_data(pytestconfig: pytest.Config) -> Path:
    return Path(_option(pytestconfig, "french-data"))


@pytest.fixture(scope="session")
def french_sym_data(pytestconfig: pytest.Config) -> Path | None:
    value = _option(pytestconfig, "french-sym-data")
    return Path(value) if value else None


@pytest.fixture(scope="session")
def english33_depth(pytestconfig: pytest.Config) -> int:
    return int(_option(pytestconfig, "english33-depth"))


@pytest.fixture(scope="session")
def chromium(pytestconfig: pytest.Config) -> str:
    return _option(pytestconfig, "chromium")


@pytest.fixture(scope="session")
def shots(pytestconfig: pytest.Config) -> Path:
    return Path(_option(pytestconfig, "shots"))


@pytest.fixture(scope="session")
def spark_master(pytestconfig: pytest.Config) -> str:
    return _option(pytestconfig, "spark-master")


def distances_from(start: Any, neighbours: Callable[[Any], Any]) -> dict[Any, int]:
    """Our own breadth-first search, to check a table's answers by: every position's
    distance from ``start`` (moves that can be undone: also its distance to it)."""
    seen, frontier = {start: 0}, [start]
    while frontier:
        nxt = []
        for c in frontier:
            for n in neighbours(c):
                if n not in seen:
                    seen[n] = seen[c] + 1
                    nxt.append(n)
        frontier = nxt
    return seen


def examples(n: int) -> int:
    """How many examples a long property test draws: a third of ``n`` in ``make test``
    (which must fit 8 minutes on two cores), all ``n`` under ``PUZZLEDB_EXAMPLES=all``
    (``make test-hostile`` runs them so)."""
    return n if os.environ.get("PUZZLEDB_EXAMPLES") == "all" else max(10, n // 3)


def build_local(puzzle: Any, data: Path, **options: Any) -> Any:
    """``build/loop.build`` with the local executor (build/ takes one; it knows no kind)."""
    from pipeline.build import loop
    from pipeline.executors.local.executor import LocalExecutor

    return loop.build(puzzle, data, executor=LocalExecutor(), **options)


def shared(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder made once for the whole run and shared by every pytest-xdist worker:
    the first worker that asks makes it under a lock, the others wait and read it.
    Tests read it; a test that changes tables copies them first (``copy_of``)."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # one folder a run, above the workers' own
    folder, done = base / name, base / f"{name}.done"
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            make(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with every default table and the catalog, built for real (once a run)."""
    names = [p.name for p in puzzles.defaults()]
    return shared(tmp_path_factory, "data", lambda f: pipeline.open(f).build(names) and None)


@pytest.fixture(scope="session")
def db(data: Path) -> pipeline.Database:
    return pipeline.open(data)


#: A twisty definition past 64 bits (two rings of 22 beads) solved by search over three
#: pattern tables of four beads (175,560 positions each: seconds to build).
CROSSED = Path(__file__).parent / "data" / "twisty" / "crossed.toml"


def add_crossed_tables(folder: Path) -> None:
    """crossed's spec kept in ``folder`` and its pattern tables built."""
    db = pipeline.open(folder)
    db.add_spec(CROSSED)
    db.build(db.puzzle("crossed").search_tables())


@pytest.fixture(scope="session")
def crossed_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with crossed's spec and its pattern tables (built once a run)."""
    return shared(tmp_path_factory, "crossed", add_crossed_tables)


def one(db: pipeline.Database, sql: str) -> object:
    """The single value a query returns."""
    return db.connection().execute(sql).fetchone()[0]


def column(db: pipeline.Database, sql: str) -> list[object]:
    return [r[0] for r in db.connection().execute(sql).fetchall()]


def run_cli(*args: str, data: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI as a user does: a real subprocess, its exit code and output."""
    extra = ["--data", str(data)] if data is not None else []
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args, *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line_error(r: subprocess.CompletedProcess[str], *words: str) -> None:
    """A CLI run that failed as a user error should: exit 1, one line naming ``words``."""
    assert r.returncode == 1, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


@pytest.fixture
def copy_of(data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Makes ``tmp_path/data`` with copies of the named default tables, and gives the
    test a checked-file cache of its own (a damaged copy is never taken as checked)."""

    def make(*names: str) -> Path:
        monkeypatch.setenv("PUZZLEDB_CACHE", str(tmp_path / "cache"))
        folder = tmp_path / "data"
        for name in names:
            shutil.copytree(data / name, folder / name)
        return folder

    return make


def signed(data: bytes) -> dict[str, Any]:
    """The manifest entry's figures of a level file of bytes ``data`` (size, sha256, footer
    and column chunk hashes): a writer with access to the files and the manifest signs a
    file it rewrote so, and only ``verify`` then sees what the rows hold."""
    import hashlib

    from pipeline.storage.integrity import chunk_sha256, footer_sha256

    return {
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "footer_sha256": footer_sha256(data),
        "chunk_sha256": chunk_sha256(data),
    }


def told(name: str) -> dict[str, Any]:
    """What a build of ``name`` tells its progress about the table (build/loop.py)."""
    from pipeline.build.loop import expected_total
    from pipeline.engine.core import Graph
    from pipeline.puzzles import registry

    p = registry.get(name)
    total, estimated = expected_total(p)
    return {"total_expected": total, "estimated": estimated, "layered": p.graph is Graph.LAYERED}
