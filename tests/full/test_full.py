"""The full 3x4 and 2x6 boards (239,500,800 positions each): `make test-full`.

Not in `make test`: the tables take minutes to build and over a gigabyte of
disk each. These tests read the tables `make build-db-full` built in
the folder given by --full-data (default data/).
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pipeline
from pipeline.puzzles import registry as puzzles

pytestmark = pytest.mark.full

FULL = {"3x4": (239_500_800, 53, 18), "2x6": (239_500_800, 80, 2)}


@pytest.fixture(scope="module")
def db(full_data: Path) -> pipeline.Database:
    return pipeline.open(full_data)


@pytest.mark.parametrize("name", FULL)
def test_counts_and_deepest_level(db: pipeline.Database, name: str) -> None:
    total, depth, deepest = FULL[name]
    table = db.table(name)
    assert table.manifest.total == total
    assert table.max_depth == depth
    assert table.manifest.max_depth_positions == deepest
    # The same figures from the Parquet rows themselves, not the manifest.
    n, top = db.connection().execute(f'SELECT count(*), max(depth) FROM "{name}"').fetchone()
    assert (n, top) == (total, depth)
    assert len(db.longest(name)["position"].to_list()) == deepest
    assert db.histogram(name).rows()[-1] == (depth, deepest)
    assert sum(c for _, c in db.histogram(name).rows()) == total


@pytest.mark.parametrize("name", FULL)
def test_verify_passes_streamed(db: pipeline.Database, name: str) -> None:
    # In a child process, so that its peak memory can be read and bounded:
    # a level at a time and the duplicate check range by range, never the table.
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    r = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "verify", name, "--data", str(db.data)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{name}: ok (239,500,800 positions" in r.stdout
    assert "each state once in the whole table" in r.stdout
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    if peak > before * 1024:
        print(f"verify {name}: peak {peak / 2**30:.2f} GiB")
    table_bytes = 16 * 239_500_800
    assert peak < table_bytes  # far less than the rows of the table


def test_every_deepest_3x4_position_has_a_path_of_53_legal_moves(db: pipeline.Database) -> None:
    p = puzzles.get("3x4")
    deepest = db.longest("3x4")["position"].to_list()
    assert len(deepest) == 18
    goal = p.roots()[0]
    for text in deepest:
        sol = db.solve("3x4", text)
        assert sol.moves == 53
        assert sol.states[-1] == goal
        for a, b in zip(sol.states, sol.states[1:], strict=False):
            _, children = p.expand(np.array([a], dtype=np.uint64))
            assert b in set(children.tolist())


@pytest.mark.parametrize("name", FULL)
def test_path_macro_from_every_deepest_position(db: pipeline.Database, name: str) -> None:
    # Plain SQL, no session setting, in DuckDB 2.x and in the 1.x CLI: solve's rows.
    from tests.test_walk_sql import cli_rows

    queries, solutions = [], []
    for text in db.longest(name)["position"].to_list():
        state = puzzles.get(name).parse(text)
        query = f"SELECT step, state, depth FROM path('{name}', {state})"
        rows = db.connection().execute(query).fetchall()
        solutions.append(db.solve(name, text).states)
        assert [r[1] for r in rows] == solutions[-1]
        assert [r[2] for r in rows] == list(range(FULL[name][1], -1, -1))
        queries.append(query)
    for lines, states in zip(cli_rows(db.data / "puzzles.duckdb", queries), solutions, strict=True):
        assert [int(line.split(",")[1]) for line in lines] == states


@pytest.mark.parametrize("name", ["english33", "english33-winnable", "4x4-pdb-6a", "4x4-pdb-6b"])
def test_path_macro_on_the_other_big_tables(db: pipeline.Database, name: str) -> None:
    if name not in db.built():
        pytest.skip(f"{name} is not built in {db.data}")
    table = db.table(name)
    deepest = db.connection().execute(
        f'SELECT state FROM "{name}" WHERE depth = {table.max_depth} LIMIT 3'
    )
    for (state,) in deepest.fetchall():
        rows = (
            db.connection().execute(f"SELECT state, depth FROM path('{name}', {state})").fetchall()
        )
        assert rows == [(h.state, h.depth) for h in table.walk(state)]
        assert rows[0][1] == table.max_depth and rows[-1][1] == 0
