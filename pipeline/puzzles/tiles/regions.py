"""Pattern databases with the blank's region instead of its cell: a plain BFS.

In the abstract puzzle of patterns.py the blank wanders for free over the cells
no pattern tile holds, so every blank cell of one connected region of those
cells has the same depth. Naming the region (by its smallest cell) instead of
the blank's cell gives the same minimum over the blank for each placement of
the pattern tiles, with every move costing 1: a pattern tile next to the
region slides into any region cell beside it, and the new region is the one
holding the tile's old cell. The 0-1 BFS becomes a plain BFS of reversible
moves, and the 8-tile table of 4x4 has 1,425,191,040 states (16!/8! =
518,918,400 placements times their regions) instead of 16!/7! =
4,151,347,200 (tests/test_pdb_regions.py checks every entry against the 0-1
BFS on 3x4).

Encoding (public contract): as patterns.py, the last nibble holding the
smallest cell of the blank's region. The compact array is indexed by the rank
of the tiles' cells as a k-permutation of the n cells (:func:`perm_rank`):
n!/(n-k)! entries, 519 MB at a byte an entry for 8 tiles of 4x4.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.tiles.patterns import PatternPuzzle

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels


def perm_rank(cells: np.ndarray, n: int) -> np.ndarray:
    """Rank of each row of ``cells`` (N, k) as a k-permutation of 0..n-1, in
    lexicographic order: the index of the compact array (the C kernel's rank)."""
    k = cells.shape[1]
    rank = np.zeros(len(cells), np.int64)
    for i in range(k):
        c = cells[:, i].astype(np.int64)
        smaller = (cells[:, :i] < cells[:, i : i + 1]).sum(axis=1)
        rank = rank * (n - i) + (c - smaller)
    return rank


class RegionPatternPuzzle(PatternPuzzle):
    """The pattern database of ``tiles`` as (placement, blank's region) states."""

    graph = Graph.REVERSIBLE
    has_kernels = True

    def __init__(self, rows: int, cols: int, label: str, tiles: Sequence[int]) -> None:
        super().__init__(rows, cols, label, tiles)
        k, n = len(self.tiles), self.size
        self.expand_free = None
        del self.expected_total  # counted on first use (the cached property below)
        self.title = (
            f"pattern database of tiles {' '.join(map(str, self.tiles))} on the "
            f"{self.board} puzzle (cells of the tiles, then the blank's region)"
        )
        self.encoding = (
            f"cell of pattern tile i (tiles {' '.join(map(str, self.tiles))}) in bits "
            f"4i..4i+3, smallest cell of the blank's region in bits {4 * k}..{4 * k + 3}"
        )
        self._nbrs = np.array([sum(1 << j for j in a) for a in self.adjacency], np.int64)
        goal = [t - 1 for t in self.tiles]
        self.root_texts = (" ".join(map(str, [*goal, self.region_of(goal, n - 1)])),)

    @functools.cached_property
    def expected_total(self) -> int:  # type: ignore[override]
        """Every (placement, region) state: k! placements of each set of k cells, times
        the regions of the cells left (all reachable; counted once, when first asked)."""
        k = len(self.tiles)
        regions = 0
        for cells in itertools.combinations(range(self.size), k):
            free = set(range(self.size)) - set(cells)
            while free:
                free -= self._region(cells, free.pop())
                regions += 1
        return regions * math.factorial(k)

    def _region(self, cells: Sequence[int], blank: int) -> set[int]:
        """The cells of the blank's region when the tiles stand on ``cells``."""
        taken = set(cells)
        region, todo = {blank}, [blank]
        while todo:
            for j in self.adjacency[todo.pop()]:
                if j not in taken and j not in region:
                    region.add(j)
                    todo.append(j)
        return region

    def region_of(self, cells: Sequence[int], blank: int) -> int:
        """The smallest cell of the blank's region when the tiles stand on ``cells``."""
        return min(self._region(cells, blank))

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Moves of a pattern tile into the blank's region (cost 1)."""
        from pipeline.puzzles.tiles.region_moves import region_expand

        src, kids = region_expand(states.view(np.int64), len(self.tiles), self.size, self._nbrs)
        return src, kids.view(np.uint64)

    @functools.cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        """The packed kernels (tiles/region_moves.py, compiled on first use)."""
        from pipeline.puzzles.tiles.region_moves import region_moves

        return region_moves(len(self.tiles), self.size, self._nbrs)

    def check(self, values: list[int]) -> None:
        super().check(values)
        *cells, rep = values
        if self.region_of(cells, rep) != rep:
            raise BadPosition("the last cell must be the smallest cell of the blank's region")

    def index(self, states: States) -> np.ndarray:
        """Index of the pattern tiles' cells in the compact array (:func:`perm_rank`)."""
        from pipeline.puzzles.tiles.region_moves import rank_states

        return rank_states(states, len(self.tiles), self.size)

    @property
    def array_size(self) -> int:
        return math.perm(self.size, len(self.tiles))


#: Partitions built as region tables, by group name: (board, label -> tiles).
#: 4x4-pdb78: Korf's 7-8 partition (his tiles 1-7 and 8-15, blank first) in
#: this project's numbering (tile t -> 16 - t, blank last: benchmarks/korf.py).
REGION_GROUPS: dict[str, tuple[str, dict[str, tuple[int, ...]]]] = {
    "4x4-pdb78": ("4x4", {"7": tuple(range(9, 16)), "8": tuple(range(1, 9))}),
}


def region_puzzles(group: str) -> list[RegionPatternPuzzle]:
    """The region tables of one group, in a fixed order."""
    board, parts = REGION_GROUPS[group]
    rows, cols = (int(x) for x in board.split("x"))
    return [RegionPatternPuzzle(rows, cols, label, tiles) for label, tiles in parts.items()]


def all_region_puzzles() -> list[RegionPatternPuzzle]:
    """Every region table of every group."""
    return [p for g in REGION_GROUPS for p in region_puzzles(g)]


def region_group_names() -> dict[str, list[str]]:
    """``4x4-pdb78`` -> the table names it builds."""
    return {g: [p.name for p in region_puzzles(g)] for g in REGION_GROUPS}
