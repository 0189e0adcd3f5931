"""The multi-tile metric: sliding several tiles of the blank's row or column is one move.

The positions and their encoding are those of the single-tile board
(board.py): the tile of cell i in bits 4i..4i+3, blank 0; only the moves
differ. A move takes the blank to any other cell of one of its lines (a row
or a column of a rectangle), and every tile between moves one cell towards
the blank's old cell, order kept. A slide of k tiles is k single slides, so
the same positions are reachable (the same parity check holds), but the graph
is no longer bipartite: a two-tile slide and the two single slides it is made
of close a triangle. Moves are reversible (the slide back), so a new level is
checked against the previous level and its own (``Graph.REVERSIBLE``).

Cells of a line are evenly spaced in the numbering (a row: +1, a column:
+cols), so a slide is one masked shift of the state: the moved tiles are
``state & mask`` and land one step over, ``(moved << left) >> right``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pipeline.engine.core import Graph, States
from pipeline.puzzles.tiles.board import TilePuzzle, grid_adjacency, grid_layout

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels

#: One slide: (new blank cell, mask of the tiles that move, left shift, right shift).
Slide = tuple[int, int, int, int]


def slide_table(count: int, lines: Sequence[Sequence[int]]) -> list[list[Slide]]:
    """Every slide with the blank in each cell, sorted by the cell the blank goes to."""
    table: list[list[Slide]] = [[] for _ in range(count)]
    for line in lines:
        steps = {b - a for a, b in itertools.pairwise(line)}
        if len(steps) != 1 or min(steps) <= 0:
            raise ValueError(f"line {list(line)}: cells must be evenly spaced, increasing")
        step = steps.pop()
        for i, b in enumerate(line):
            for j, t in enumerate(line):
                if i == j:
                    continue
                moved = line[i + 1 : j + 1] if j > i else line[j:i]
                mask = sum(15 << (4 * c) for c in moved)
                # Tiles after the blank move down the line (right shift), before it up.
                left, right = (0, 4 * step) if j > i else (4 * step, 0)
                table[b].append((t, mask, left, right))
    for slides in table:
        slides.sort()
    return table


class MultiTilePuzzle(TilePuzzle):
    """Tiles on ``adjacency`` where a move slides every tile between the blank and a cell
    of one of its ``lines``."""

    graph = Graph.REVERSIBLE
    slides_lines = True

    def __init__(
        self,
        name: str,
        title: str,
        adjacency: Sequence[Sequence[int]],
        layout: str,
        lines: Sequence[Sequence[int]],
        *,
        expected_total: int | None = None,
        default: bool = False,
    ) -> None:
        super().__init__(
            name, title, adjacency, layout, expected_total=expected_total, default=default
        )
        self.lines = tuple(tuple(line) for line in lines)
        self.slides = slide_table(len(adjacency), self.lines)

    @functools.cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        """The packed kernels (compiled on first use), when a tag fits beside the state."""
        from pipeline.puzzles.tiles.multi_moves import multi_moves

        return multi_moves(self.slides, self._low)

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for b, idx in self.by_blank(states):
            s = states[idx]
            for _, mask, left, right in self.slides[b]:
                moved = s & np.uint64(mask)
                kids.append((s ^ moved) | ((moved << np.uint64(left)) >> np.uint64(right)))
                srcs.append(idx)
        if not kids:
            return np.empty(0, np.intp), np.empty(0, np.uint64)
        return np.concatenate(srcs), np.concatenate(kids)

    def depth_parity(self, state: int) -> int | None:
        return None  # a slide of two tiles keeps the permutation's parity

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "metric": "multi-tile: sliding any number of tiles of one line is one move",
            "lines": [list(line) for line in self.lines],
        }


def rectangle_lines(rows: int, cols: int) -> list[list[int]]:
    """The rows and the columns of a rows x cols rectangle (cells row-major)."""
    return [[r * cols + c for c in range(cols)] for r in range(rows)] + [
        [r * cols + c for r in range(rows)] for c in range(cols)
    ]


def multi_rectangle(rows: int, cols: int) -> MultiTilePuzzle:
    """The rows x cols sliding puzzle in the multi-tile metric (``3x3-multi``)."""
    n = rows * cols
    return MultiTilePuzzle(
        f"{rows}x{cols}-multi",
        f"{rows}x{cols} sliding puzzle ({n - 1} tiles), multi-tile metric",
        grid_adjacency(rows, cols),
        grid_layout(rows, cols),
        rectangle_lines(rows, cols),
        expected_total=math.factorial(n) // 2,
    )
