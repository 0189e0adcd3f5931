"""The pattern-database solver against the full 3x4 and 2x6 databases, and the 7-8
databases of 4x4 (``make test-full``).

Marked full: the full tables have 239,500,800 positions each, 4x4-pdb-8 has
1,425,191,040. They are built (or reused) in --full-data (default ``data/``).
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


@pytest.fixture(scope="module")
def pdb78(full_data: Path) -> object:
    """The 7-8 solver of 4x4 (``puzzledb build 4x4-pdb78``: about 20 minutes)."""
    db = pipeline.open(full_data)
    db.build(["4x4-pdb-7", "4x4-pdb-8"])
    return db.pattern_solver("4x4", databases="4x4-pdb78")


def test_78_heuristic_is_zero_at_the_goal_and_consistent(pdb78: object) -> None:
    import random

    solver = pdb78
    assert solver.heuristic_name == "7-8"  # type: ignore[attr-defined]
    assert solver.heuristic([*range(1, 16), 0]) == 0  # type: ignore[attr-defined]
    rng = random.Random(78)
    steps = 0
    for _ in range(3000):
        cells = list(range(16))
        rng.shuffle(cells)
        h = solver.heuristic(cells)  # type: ignore[attr-defined]
        z = cells.index(0)
        for j in (z - 4, z + 4) + ((z - 1,) if z % 4 else ()) + ((z + 1,) if z % 4 < 3 else ()):
            if 0 <= j < 16:
                moved = list(cells)
                moved[z], moved[j] = moved[j], 0
                assert abs(solver.heuristic(moved) - h) <= 1, (cells, j)  # type: ignore[attr-defined]
                steps += 1
    assert steps > 8000


def test_78_and_663_agree_on_korfs_100(pdb78: object, full_data: Path) -> None:
    from benchmarks.korf import DEFAULT_FILE, from_korf, read_instances

    s663 = pipeline.open(full_data).pattern_solver("4x4", databases="4x4-pdb")
    nodes = [0, 0]
    for _, korf in read_instances(DEFAULT_FILE):
        cells = from_korf(korf)
        a, b = pdb78.solve(cells), s663.solve(cells)  # type: ignore[attr-defined]
        assert a.moves == b.moves
        nodes[0] += a.nodes
        nodes[1] += b.nodes
    assert nodes[0] < nodes[1] / 5  # published: 7-8 needs about a tenth of 6-6-3's nodes
