"""The ``path`` macro (pipeline/query/walk_sql.py) against ``solve``, with no session setting.

Random positions of every default table (hypothesis) walk to the same rows in
SQL as ``db.solve`` gives, in DuckDB from Python; a batch of them, and
positions that are not in a table, give the same rows in the DuckDB 1.x CLI.
Pattern databases (parents at the same depth) are built here, small.
"""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.errors import PositionLost
from pipeline.puzzles import registry as puzzles
from tests.conftest import examples

SAMPLE = 40  # states drawn from each default table


def sample_states(db: pipeline.Database, name: str, n: int, seed: int) -> list[int]:
    """``n`` states of a table drawn at random (deepest ones included), sorted."""
    rows = (
        db.connection()
        .execute(f'SELECT state FROM "{name}" USING SAMPLE reservoir({n} ROWS) REPEATABLE ({seed})')
        .fetchall()
    )
    deepest = db.connection().execute(
        f'SELECT min(state) FROM "{name}" WHERE depth = (SELECT max(depth) FROM "{name}")'
    )
    return sorted({r[0] for r in rows} | {deepest.fetchall()[0][0]})


@pytest.fixture(scope="module")
def cases(db: pipeline.Database) -> list[tuple[str, int]]:
    return [
        (p.name, s)
        for i, p in enumerate(puzzles.defaults())
        for s in sample_states(db, p.name, SAMPLE, i)
    ]


def walk(db: pipeline.Database, name: str, start: str) -> list[tuple[Any, ...]]:
    return (
        db.connection()
        .execute(f"SELECT state, depth, position FROM path('{name}', {start})")
        .fetchall()
    )


def expected(db: pipeline.Database, name: str, text: str) -> tuple[str, list[int], list[str]]:
    """The table ``solve`` walks for a typed position, its states and their texts."""
    p = puzzles.get(name)
    try:
        sol = db.solve(name, text)
    except PositionLost:
        return p.solved_by or name, [], []
    return p.solved_by or name, sol.states, sol.path


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_path_macro_walks_as_solve_does(
    db: pipeline.Database, cases: list[tuple[str, int]], data: st.DataObject
) -> None:
    name, state = data.draw(st.sampled_from(cases))
    p = puzzles.get(name)
    text = p.text(state)
    table, states, texts = expected(db, name, text)
    # The typed position, as a user writes it: the rows solve walks (a moves
    # table takes the pegs alone for every last-jump hole, as solve does).
    rows = walk(db, table, f"state_of('{table}', '{text}')")
    assert [r[0] for r in rows] == states
    assert [r[2] for r in rows] == texts
    depths = [r[1] for r in rows]
    assert depths == sorted(depths, reverse=True) and (not rows or depths[-1] == 0)
    # The exact state: the table's own walk from it (Table.walk, one row group a depth).
    if table == name:
        exact = walk(db, name, f"{state}::UBIGINT")
        hits = db.table(name).walk(state)
        assert [(r[0], r[1]) for r in exact] == [(h.state, h.depth) for h in hits]


def test_position_not_in_the_table_walks_nowhere(db: pipeline.Database) -> None:
    odd = "2 1 3 4 5 6 7 8 0"  # well formed, the other parity: not reachable
    assert walk(db, "3x3", f"state_of('3x3', '{odd}')") == []
    state = db.connection().execute(f"SELECT state_of('3x3', '{odd}')").fetchall()[0][0]
    assert walk(db, "3x3", str(state)) == []
    assert walk(db, "3x3", "NULL") == []
    assert walk(db, "hex6", "0") == []


def test_bad_arguments_are_one_clear_error(db: pipeline.Database) -> None:
    with pytest.raises(Exception, match="no table named nope in the catalog"):
        walk(db, "nope", "1")
    with pytest.raises(Exception, match="not a position of this board"):
        walk(db, "3x3", "state_of('3x3', '1 2 3')")


def test_path_columns_and_order(db: pipeline.Database) -> None:
    rows = (
        db.connection()
        .execute(
            "SELECT step, state, depth, parent, position FROM path('3x3', "
            "state_of('3x3', '8 6 7 2 5 4 3 0 1'))"
        )
        .fetchall()
    )
    assert [r[0] for r in rows] == list(range(32))
    assert [r[2] for r in rows] == list(range(31, -1, -1))
    assert all(a[3] == b[1] for a, b in itertools.pairwise(rows))
    assert rows[-1][3] is None and rows[-1][4] == "1 2 3 4 5 6 7 8 0"


@pytest.fixture(scope="module")
def pdb_db(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Database:
    """Small pattern databases: zero-cost moves, so parents can sit at the same depth."""
    db = pipeline.open(tmp_path_factory.mktemp("pdb-walk"))
    db.build(["2x4-pdb", "3x3-pdb"])
    return db


def test_path_macro_with_parents_at_the_same_depth(pdb_db: pipeline.Database) -> None:
    rng = random.Random(17)
    for name in pdb_db.built():
        same = (
            pdb_db.connection()
            .execute(
                f'SELECT count(*) FROM "{name}" a JOIN "{name}" b ON a.parent = b.state '
                "WHERE a.depth = b.depth"
            )
            .fetchall()[0][0]
        )
        assert same > 0  # the table has runs of zero-cost moves
        for state in sample_states(pdb_db, name, 15, rng.randrange(1000)):
            rows = walk(pdb_db, name, str(state))
            assert [(r[0], r[1]) for r in rows] == [
                (h.state, h.depth) for h in pdb_db.table(name).walk(state)
            ]


def cli_rows(catalog: Path, queries: list[str]) -> list[list[str]]:
    """Each query's result rows as CSV lines, from one DuckDB 1.x CLI process."""
    duck = Path(sys.executable).parent / "duckdb"
    if not duck.exists():
        pytest.skip("no DuckDB CLI in this environment (it comes with the dev extras)")
    marker = "SELECT '--next--';"
    script = ".mode csv\n.headers off\n.nullvalue NULL\n" + "".join(
        f"{q};\n{marker}\n" for q in queries
    )
    out = subprocess.run(
        [str(duck), "-readonly", str(catalog)], input=script, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return [chunk.strip().splitlines() for chunk in out.stdout.split("--next--")[:-1]]


def test_duckdb_1x_cli_walks_the_same_rows(
    db: pipeline.Database, data: Path, cases: list[tuple[str, int]]
) -> None:
    chosen = random.Random(1).sample(cases, 30)
    queries = [
        f"SELECT step, state, depth, parent, position FROM path('{n}', {s})" for n, s in chosen
    ]
    queries += [  # not in the table: no rows in either version
        "SELECT * FROM path('3x3', state_of('3x3', '2 1 3 4 5 6 7 8 0'))",
        "SELECT * FROM path('2x5', 1)",
        "SELECT * FROM path('triangle15-moves', 0)",
    ]
    got = cli_rows(data / "puzzles.duckdb", queries)
    for q, lines in zip(queries, got, strict=True):
        rows = db.connection().execute(q).fetchall()
        want = [",".join("NULL" if v is None else str(v) for v in r) for r in rows]
        assert lines == want, q
