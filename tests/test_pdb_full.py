"""The pattern-database solver against the full 3x4 and 2x6 databases (``make test-full``).

Skipped unless PUZZLEDB_TEST_FULL=1: the full tables have 239,500,800 positions
each. They are built (or reused) in $PUZZLEDB_DATA (default ``data/``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import pipeline
from pipeline.puzzles import registry as puzzles

pytestmark = pytest.mark.skipif(
    os.environ.get("PUZZLEDB_TEST_FULL") != "1", reason="full databases: make test-full"
)


@pytest.mark.parametrize("board", ["3x4", "2x6"])
def test_pdb_lengths_equal_the_full_database(board: str) -> None:
    data = Path(os.environ.get("PUZZLEDB_DATA") or "data")
    db = pipeline.open(data)
    db.build([board])
    solver = db.pattern_solver(board)
    p = puzzles.get(board)
    rows = (
        db.connection()
        .execute(f'SELECT state, depth FROM "{board}" USING SAMPLE 200 ROWS (reservoir, 42)')
        .fetchall()
    )
    assert len(rows) == 200
    for state, depth in rows:
        assert solver.solve(p.cells.values(state)).moves == depth, p.text(state)
    # and the longest positions
    for text in db.longest(board)["position"].to_list():
        r = solver.solve(p.cells.values(p.parse(text)))
        assert r.moves == db.table(board).max_depth, text
