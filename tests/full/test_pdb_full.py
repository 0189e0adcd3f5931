"""The pattern-database solver against the full 3x4 and 2x6 databases (``make test-full``).

Marked full: the full tables have 239,500,800 positions each. They are built
(or reused) in --full-data (default ``data/``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import pipeline
from pipeline.puzzles import registry as puzzles

pytestmark = pytest.mark.full


@pytest.mark.parametrize("board", ["3x4", "2x6"])
def test_pdb_lengths_equal_the_full_database(board: str, full_data: Path) -> None:
    db = pipeline.open(full_data)
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
