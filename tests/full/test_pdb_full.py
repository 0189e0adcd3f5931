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
    """The 7-8 solver of 4x4 (``puzzledb build 4x4-pdb78``: about 13 minutes, quiet)."""
    db = pipeline.open(full_data)
    db.build(["4x4-pdb-7", "4x4-pdb-8"])
    return db.pattern_solver("4x4", databases="4x4-pdb78")


def test_78_heuristic_is_zero_at_the_goal_and_its_tables_consistent(
    pdb78: object, full_data: Path
) -> None:
    """h(goal) = 0, and over every move from 3,000 random states h is the larger of
    the direct and the reflected sums of the arrays' entries (read here apart).

    The issue asked for |h(a) - h(b)| <= 1 too; that cannot hold for arrays that
    keep the minimum over the blank (294 of these 8,903 moves change h by 2 or
    3): a pattern tile's move can split the free cells into regions, and the
    array then keeps the nearest region's depth, not the blank's. What holds,
    and is checked on the tables' own rows for those moves and for 40 others:
    each array entry is the minimum of its placement's depths, and the depth
    of the blank's own region changes by at most 1 over a move."""
    import random

    solver = pdb78
    assert solver.heuristic_name == "7-8"  # type: ignore[attr-defined]
    assert solver.heuristic([*range(1, 16), 0]) == 0  # type: ignore[attr-defined]
    view = _Tables(pipeline.open(full_data))
    rng = random.Random(78)
    moves, jumps, checked = 0, 0, 0
    for _ in range(3000):
        cells = list(range(16))
        rng.shuffle(cells)
        z = cells.index(0)
        for j in (z - 4, z + 4) + ((z - 1,) if z % 4 else ()) + ((z + 1,) if z % 4 < 3 else ()):
            if not 0 <= j < 16:
                continue
            moved = list(cells)
            moved[z], moved[j] = moved[j], 0
            for board in (cells, moved):
                assert solver.heuristic(board) == view.h(board)  # type: ignore[attr-defined]
            jump = abs(view.h(moved) - view.h(cells)) > 1
            moves, jumps = moves + 1, jumps + jump
            if (jump and jumps <= 12) or (not jump and moves % 200 == 0):
                view.check_move(cells, moved)
                checked += 1
    assert moves == 8903 and jumps == 294 and checked >= 50


class _Tables:
    """The 7-8 arrays read apart from the solver, and the tables' rows behind them."""

    def __init__(self, db: pipeline.Database) -> None:
        import numpy as np

        from pipeline.puzzles.tiles.regions import region_puzzles

        self.pats = region_puzzles("4x4-pdb78")
        joined = np.load(Path(db.data) / ".cache" / "4x4-pdb78.npy", mmap_mode="r")
        ends = np.cumsum([p.array_size for p in self.pats])
        self.arrays = [joined[e - p.array_size : e] for e, p in zip(ends, self.pats, strict=True)]
        self.tables = [db.table(p.name) for p in self.pats]

    @staticmethod
    def reflect(cells: list[int]) -> list[int]:
        """The board reflected about its main diagonal, tiles renamed to match."""
        flip = [(i % 4) * 4 + i // 4 for i in range(16)]
        out = [0] * 16
        for i, t in enumerate(cells):
            out[flip[i]] = flip[t - 1] + 1 if t else 0
        return out

    def entries(self, cells: list[int]) -> list[int]:
        import numpy as np

        from pipeline.puzzles.tiles.regions import perm_rank

        out = []
        for p, a in zip(self.pats, self.arrays, strict=True):
            where = np.array([[cells.index(t) for t in p.tiles]])
            out.append(int(a[perm_rank(where, 16)[0]]))
        return out

    def h(self, cells: list[int]) -> int:
        return max(sum(self.entries(cells)), sum(self.entries(self.reflect(cells))))

    def depths(self, g: int, cells: list[int]) -> tuple[dict[int, int], int]:
        """Pattern ``g``'s depth for each region of the placement in ``cells``, and
        the region of the blank."""
        p, table = self.pats[g], self.tables[g]
        where = [cells.index(t) for t in p.tiles]
        free = [c for c in range(16) if c not in where]
        depths = {}
        for rep in {p.region_of(where, c) for c in free}:
            state = sum(w << (4 * i) for i, w in enumerate(where)) | rep << (4 * len(where))
            hit = table.find(state, None)
            assert hit is not None, (p.name, where, rep)
            depths[rep] = hit.depth
        return depths, p.region_of(where, cells.index(0))

    def check_move(self, a: list[int], b: list[int]) -> None:
        for before, after in ((a, b), (self.reflect(a), self.reflect(b))):
            for g in range(len(self.pats)):
                da, ra = self.depths(g, before)
                db, rb = self.depths(g, after)
                assert self.entries(before)[g] == min(da.values())
                assert self.entries(after)[g] == min(db.values())
                assert abs(da[ra] - db[rb]) <= 1, (before, after, g)


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
