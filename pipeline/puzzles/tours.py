"""Knight's tours: a knight visits every cell of a board once.

Board A of article 004 (14 cells, numbered row by row; `#` is not a cell):

      0 1
    2 3 4 5
    6 # # 7
    8 9 10 11
     12 13

Encoding (public contract): cell i in bits 2i..2i+1 of the state: 0 not yet
visited, 1 visited, 2 the knight (visited, where it stands now). Enumerated
from the knight on cell 0; depth = cells visited minus one, fixed by the state,
so the graph is layered. A closed tour is a depth-13 state whose knight can
jump back to cell 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Cells, Puzzle

KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def knight_adjacency(rows: Sequence[str]) -> list[list[int]]:
    """Knight moves between the cells of a board drawn as rows ('.' a cell, '#' none)."""
    where = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."]
    index = {rc: i for i, rc in enumerate(where)}
    return [
        sorted(index[(r + dr, c + dc)] for dr, dc in KNIGHT_JUMPS if (r + dr, c + dc) in index)
        for r, c in where
    ]


class KnightTour(Puzzle):
    """Open and closed knight's tours from a start cell, one layer per cell visited."""

    graph = Graph.LAYERED
    origin = "start"
    encoding = "cell i in bits 2i..2i+1: 0 unvisited, 1 visited, 2 the knight (cells row by row)"

    def __init__(
        self,
        name: str,
        title: str,
        rows: Sequence[str],
        layout: str,
        start: int = 0,
        default: bool = False,
    ) -> None:
        self.name = name
        self.default = default
        self.title = title
        self.adjacency = tuple(tuple(a) for a in knight_adjacency(rows))
        n = len(self.adjacency)
        self.cells = Cells(n, 2, (".", "o", "N"), layout)
        self.start = start
        self.root_texts = (self.cells.text(2 << (2 * start)),)

    def knight_cells(self, states: States) -> np.ndarray:
        """The cell of the knight in each state."""
        n = self.cells.count
        at = np.stack([(states >> np.uint64(2 * i)) & np.uint64(3) for i in range(n)], axis=1)
        return np.argmax(at == 2, axis=1)

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        knight = self.knight_cells(states)
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for k, nbrs in enumerate(self.adjacency):
            idx = np.flatnonzero(knight == k)
            s = states[idx]
            for j in nbrs:
                free = ((s >> np.uint64(2 * j)) & np.uint64(3)) == 0
                moved = s[free] - np.uint64(1 << (2 * k)) + np.uint64(2 << (2 * j))
                kids.append(moved)
                srcs.append(idx[free])
        if not kids:
            return np.empty(0, np.intp), np.empty(0, np.uint64)
        return np.concatenate(srcs), np.concatenate(kids)

    def check(self, values: list[int]) -> None:
        if values.count(2) != 1:
            raise BadPosition("a tour position has exactly one knight ('N')")


KNIGHT14 = KnightTour(
    "knight14",
    "knight's tour on board A (14 cells, article 004)",
    ["#..#", "....", ".##.", "....", "#..#"],
    "  {0} {1}\n{2} {3} {4} {5}\n{6} # # {7}\n{8} {9} {10} {11}\n  {12} {13}",
    default=True,
)
