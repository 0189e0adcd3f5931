"""Pattern databases with the blank's region (tiles/regions.py) and the rank-indexed
IDA* kernel (ida_kernel.c: ranked_ida) that reads them (4x4-pdb-7, 4x4-pdb-8).

On 3x4 with its 6-5 partition (CI-sized): the region tables built by the
engine give every entry of the array the plain 0-1 BFS of tiles and blank
gives; the kernel is checked against the additive one on the same figures.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from pipeline.engine import reference
from pipeline.errors import BadPosition
from pipeline.puzzles import registry as puzzles
from pipeline.puzzles.tiles.patterns import PatternPuzzle
from pipeline.puzzles.tiles.regions import RegionPatternPuzzle, perm_rank
from pipeline.solvers import ida_c, optimal
from pipeline.storage.table import Table
from tests.conftest import build_local

PARTITION_3X4 = [(1, 2, 3, 5, 6, 7), (4, 8, 9, 10, 11)]


def zero_one_array(p: PatternPuzzle) -> np.ndarray:
    """The minimum over the blank of the plain 0-1 BFS, by rank (reference engine)."""
    arr = np.full(math.perm(p.size, len(p.tiles)), 255, np.uint8)
    roots = [p.parse(t) for t in p.root_texts]
    for lv in reference.search(roots, p.expand, p.graph, p.expand_free):
        idx = perm_rank(p._split(lv.states)[0], p.size)
        arr[idx] = np.minimum(arr[idx], lv.depth)
    return arr


@pytest.fixture(scope="module")
def region_3x4(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    """The 3x4 region tables built by the engine (buckets forced), as arrays."""
    data = tmp_path_factory.mktemp("regions")
    out = []
    for tiles in PARTITION_3X4:
        p = RegionPatternPuzzle(3, 4, f"r{len(tiles)}", tiles)
        build_local(p, data, work=3_000_000)
        out.append(optimal.compact_from_table(p, Table(data / p.name)))
    return out


def test_region_array_equals_the_zero_one_bfs_everywhere(region_3x4: list[np.ndarray]) -> None:
    for tiles, got in zip(PARTITION_3X4, region_3x4, strict=True):
        want = zero_one_array(PatternPuzzle(3, 4, "x", tiles))
        assert got.size == math.perm(12, len(tiles)) and (want != 255).all()
        assert np.array_equal(got, want), tiles
    assert [int(a.max()) for a in region_3x4] == [25, 22]


def test_region_tables_count_placements_times_regions() -> None:
    p = RegionPatternPuzzle(3, 4, "r5", PARTITION_3X4[1])
    levels = list(reference.search([p.parse(p.root_texts[0])], p.expand, p.graph))
    # 12!/7! = 95,040 placements, most with one region of free cells, some with more;
    # the deepest region state (23) lies deeper than the array's largest entry (22).
    assert sum(len(lv) for lv in levels) == p.expected_total == 191_520
    assert len(levels) - 1 == 23
    assert p.root_texts == ("3 7 8 9 10 11",)  # goal: blank's region starts at cell 11
    with pytest.raises(BadPosition, match="smallest cell"):
        p.parse("3 7 8 9 10 1")  # cell 1 is in the region of cells 0..2, 4..6


def test_the_4x4_group_names_korfs_partition() -> None:
    assert puzzles.GROUPS["4x4-pdb78"] == ["4x4-pdb-7", "4x4-pdb-8"]
    seven, eight = (puzzles.get(n) for n in puzzles.GROUPS["4x4-pdb78"])
    assert seven.tiles == tuple(range(9, 16)) and eight.tiles == tuple(range(1, 9))
    assert (seven.array_size, eight.array_size) == (57_657_600, 518_918_400)
    # Placements times regions (the build's progress line counts on them).
    assert (seven.expected_total, eight.expected_total) == (139_849_920, 1_425_191_040)
    assert puzzles.GROUPS["4x4-pdb"] == ["4x4-pdb-6a", "4x4-pdb-6b", "4x4-pdb-3"]


def scattered(board: str, arrays: list[np.ndarray], groups: list[tuple[int, ...]]) -> list:
    """The rank-indexed arrays re-indexed as the additive kernel reads them (sum c_i n**i)."""
    n = math.prod(int(x) for x in board.split("x"))
    out = []
    for arr, tiles in zip(arrays, groups, strict=True):
        k = len(tiles)
        cells = np.array(np.unravel_index(np.arange(n**k), (n,) * k)).T[:, ::-1]
        sparse = np.full(n**k, 255, np.uint8)
        ok = (np.diff(np.sort(cells, axis=1), axis=1) != 0).all(axis=1)
        sparse[ok] = arr[perm_rank(cells[ok], n)]
        out.append(sparse)
    return out


def random_position(rows: int, cols: int, moves: int, rng: random.Random) -> list[int]:
    """A position ``moves`` random slides from the goal (cells row-major, 0 the blank)."""
    n = rows * cols
    cells, blank = [*range(1, n), 0], n - 1
    for _ in range(moves):
        r, c = divmod(blank, cols)
        near = [(r + dr) * cols + c + dc for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))]
        ok = [j for j, (dr, dc) in zip(near, ((0, 1), (1, 0), (0, -1), (-1, 0)), strict=True)
              if 0 <= r + dr < rows and 0 <= c + dc < cols]  # fmt: skip
        j = rng.choice(ok)
        cells[blank], cells[j], blank = cells[j], 0, j
    return cells


def slid(cells: list[int], tiles: list[int]) -> list[int]:
    """The position after sliding each tile into the blank (each must be beside it)."""
    board = list(cells)
    for t in tiles:
        z, j = board.index(0), board.index(t)
        assert abs(z - j) in (1, 4) and (z // 4 == j // 4 or abs(z - j) == 4)
        board[z], board[j] = t, 0
    return board


needs_c = pytest.mark.skipif(ida_c.library() is None, reason="no C compiler")


@needs_c
def test_ranked_kernel_searches_as_the_additive_one_on_3x4(region_3x4: list[np.ndarray]) -> None:
    ranked = optimal.RankedSolver("3x4", region_3x4, PARTITION_3X4)
    plain = optimal.Solver("3x4", scattered("3x4", region_3x4, PARTITION_3X4), kernel="c")
    assert ranked.heuristic_name == "6-5"
    rng = random.Random(36)
    for _ in range(12):
        cells = random_position(3, 4, 60, rng)
        a, b = ranked.solve(cells), plain.solve(cells)
        assert (a.tiles, a.nodes) == (b.tiles, b.nodes)
        assert slid(cells, a.tiles) == [*range(1, 12), 0] and len(a.tiles) % 2 == 0


def one_axis(tiles: tuple[int, ...], axis: int) -> np.ndarray:
    """A rank-indexed 4x4 array: the tiles' distances home along one axis (0 rows, 1 columns)."""
    cells = np.array(list(__import__("itertools").permutations(range(16), len(tiles))))
    home = np.array(tiles) - 1
    d = np.abs(cells // 4 - home // 4) if axis == 0 else np.abs(cells % 4 - home % 4)
    arr = np.zeros(math.perm(16, len(tiles)), np.uint8)
    arr[perm_rank(cells, 16)] = d.sum(axis=1)
    return arr


@needs_c
def test_ranked_kernel_reflects_as_the_additive_one_on_4x4() -> None:
    # Rows only: its reflection counts columns, so max(sum, reflected sum) tells a
    # wrong reflected rank from a right one.
    groups = [(1, 2, 3), (4, 5, 6), (7, 8, 9), (10, 11, 12), (13, 14, 15)]
    arrays = [one_axis(t, 0) for t in groups]
    ranked = optimal.RankedSolver("4x4", arrays, groups)
    plain = optimal.Solver("4x4", scattered("4x4", arrays, groups), groups=groups, kernel="c")
    rows_only = optimal.RankedSolver("4x4", arrays, groups, reflect=False)
    rng = random.Random(8)
    bigger = 0
    for _ in range(200):
        cells = random_position(4, 4, 80, rng)
        assert ranked.heuristic(cells) == plain.heuristic(cells)
        bigger += ranked.heuristic(cells) > rows_only.heuristic(cells)
    assert bigger > 20  # the reflection (columns) answers often
    for _ in range(6):
        cells = random_position(4, 4, 30, rng)
        a, b = ranked.solve(cells), plain.solve(cells)
        assert (a.tiles, a.nodes) == (b.tiles, b.nodes) and a.nodes > 0


def test_ranked_solver_refuses_arrays_of_the_wrong_size() -> None:
    with pytest.raises(ValueError, match="entries"):
        optimal.RankedSolver("3x4", [np.zeros(10, np.uint8)] * 2, PARTITION_3X4)


def test_unbuilt_group_is_named_with_its_build_command(tmp_path: Path) -> None:
    import pipeline
    from pipeline.errors import NotBuilt

    with pytest.raises(NotBuilt, match="4x4-pdb78"):
        pipeline.open(tmp_path).pattern_solver("4x4", databases="4x4-pdb78")
