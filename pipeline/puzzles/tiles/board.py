"""Sliding tiles on any graph of cells: the rectangles and the hexagonal six puzzle.

Encoding (public contract): the tile in cell i sits in bits 4i..4i+3 of the
state, the blank is 0. Cells are numbered row by row from the top-left (the
hex board as drawn in docs/PUZZLES.md). Up to 16 cells fit in 64 bits.

A move swaps the blank with a neighbouring tile, which flips the parity of the
permutation, so every such state graph is bipartite: a new level is checked
against the previous level only.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from pipeline.answers import Origin
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Cells, Puzzle, parity
from pipeline.puzzles.tiles.slides import step_tiles

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels

_NIBBLE_LOW = 0x1111_1111_1111_1111


def _colouring(adjacency: Sequence[Sequence[int]]) -> list[int] | None:
    """A 2-colouring of the cell graph, or None when it has an odd cycle."""
    colour = [-1] * len(adjacency)
    for start in range(len(adjacency)):
        if colour[start] >= 0:
            continue
        colour[start] = 0
        stack = [start]
        while stack:
            a = stack.pop()
            for b in adjacency[a]:
                if colour[b] < 0:
                    colour[b] = 1 - colour[a]
                    stack.append(b)
                elif colour[b] == colour[a]:
                    return None
    return colour


class TilePuzzle(Puzzle):
    """Tiles 1..n-1 and a blank on n cells joined by ``adjacency``."""

    slides_tiles = True

    def tiles_slid(self, states: Sequence[int]) -> list[list[int]]:
        values = [self.cells.values(s) for s in states]
        return [step_tiles(a, b) for a, b in itertools.pairwise(values)]

    graph = Graph.BIPARTITE
    origin = Origin.GOAL
    encoding = "tile of cell i in bits 4i..4i+3 (cells row by row), blank = 0"

    def __init__(
        self,
        name: str,
        title: str,
        adjacency: Sequence[Sequence[int]],
        layout: str,
        *,
        expected_total: int | None = None,
        default: bool = False,
        goal: Sequence[int] | None = None,
    ) -> None:
        n = len(adjacency)
        if not 2 <= n <= 16:
            raise ValueError("tile puzzles need 2..16 cells (4 bits a cell in 64 bits)")
        for a, nbrs in enumerate(adjacency):
            for b in nbrs:
                if a not in adjacency[b]:
                    raise ValueError(f"adjacency is not symmetric: {a}-{b}")
        self.name = name
        self.title = title
        self.adjacency = tuple(tuple(sorted(a)) for a in adjacency)
        self.cells = Cells(n, 4, tuple(str(v) for v in range(n)), layout)
        self.goal = list(goal) if goal is not None else [*range(1, n), 0]
        if sorted(self.goal) != list(range(n)):
            raise ValueError(f"the goal must hold each of 0..{n - 1} once")
        self.root_texts = (" ".join(map(str, self.goal)),)
        self.expected_total = expected_total
        self.default = default
        self._colour = _colouring(self.adjacency)
        self._low = _NIBBLE_LOW & ((1 << (4 * n)) - 1)

    has_kernels = True

    @functools.cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        """The packed kernels (compiled on first use), when a tag fits beside the state."""
        from pipeline.puzzles.tiles.moves import tile_moves

        return tile_moves(self.adjacency, self._low)

    def blank_cells(self, states: States) -> np.ndarray:
        """The cell of the blank in each state, without a loop over cells.

        A nibble is zero when none of its four bits is set; exactly one is.
        """
        s = states | (states >> np.uint64(1))
        s |= s >> np.uint64(2)
        zero = ~s & np.uint64(self._low)
        _, exponent = np.frexp(zero.astype(np.float64))
        return ((exponent - 1) >> 2).astype(np.int8)

    def by_blank(self, states: States) -> Iterator[tuple[int, np.ndarray]]:
        """(cell, indices of the states whose blank is there), for each occupied cell."""
        blank = self.blank_cells(states)
        order = np.argsort(blank, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(np.bincount(blank, minlength=self.cells.count))))
        for b in range(self.cells.count):
            if bounds[b + 1] > bounds[b]:
                yield b, order[bounds[b] : bounds[b + 1]]

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for b, idx in self.by_blank(states):
            s = states[idx]
            for j in self.adjacency[b]:
                tile = (s >> np.uint64(4 * j)) & np.uint64(15)
                kids.append(s ^ (tile << np.uint64(4 * j)) ^ (tile << np.uint64(4 * b)))
                srcs.append(idx)
        if not kids:
            return np.empty(0, np.intp), np.empty(0, np.uint64)
        return np.concatenate(srcs), np.concatenate(kids)

    def check(self, values: list[int]) -> None:
        n = self.cells.count
        counts = [0] * n
        for v in values:
            counts[v] += 1
        repeated = [str(v) for v, c in enumerate(counts) if c > 1]
        missing = [str(v) for v, c in enumerate(counts) if c == 0]
        if repeated or missing:
            raise BadPosition(
                f"each of 0..{n - 1} must appear once: "
                f"repeated {' '.join(repeated) or '-'}, missing {' '.join(missing) or '-'}"
            )
        if self._colour is not None:
            # Each move is a transposition and moves the blank to the other
            # colour, so (permutation parity + blank colour) never changes.
            perm = self._goal_cells(values)
            blank_side = self._colour[values.index(0)] ^ self._colour[self.goal.index(0)]
            if parity(perm) != blank_side:
                raise BadPosition(
                    f"position of the wrong parity for {self.name}: "
                    "no sequence of moves reaches it from the goal"
                )

    def depth_parity(self, state: int) -> int | None:
        # Every move is one transposition of (tiles + blank): depth and
        # permutation parity (relative to the goal) always agree.
        return parity(self._goal_cells(self.cells.values(state)))

    def _goal_cells(self, values: Sequence[int]) -> list[int]:
        """For each cell, the goal cell of the value it holds (a permutation)."""
        where = {v: i for i, v in enumerate(self.goal)}
        return [where[v] for v in values]

    def properties(self, state: int) -> dict[str, int]:
        values = self.cells.values(state)
        out = sum(v != g for v, g in zip(values, self.goal, strict=True) if v)
        return {"blank cell": values.index(0), "tiles out of place": out}

    pieces_word = "tiles"

    def relabelled(self, a: int, b: int) -> tuple[int, int, list[str]] | None:
        """The tiles renamed so that ``b`` reads 1, 2, ... around its blank: the goal of
        ``<board>@<blank's cell>`` (also the plain board's when that is its goal)."""
        va, vb = self.cells.values(a), self.cells.values(b)
        n = len(vb)
        if sorted(vb) != list(range(n)):
            return None  # a pattern database's don't-care cells
        cell = vb.index(0)
        tiles = iter(range(1, n))
        goal = [0 if c == cell else next(tiles) for c in range(n)]
        rename = dict(zip(vb, goal, strict=True))
        board = re.sub(r"(@\d+)?(~[0-9a-f]{8})?$", "", self.name)
        renamed_a = self.cells.encode([rename[v] for v in va])
        return renamed_a, self.cells.encode(goal), [f"{board}@{cell}", board]

    def with_goal(self, goal: Sequence[int], name: str, title: str) -> TilePuzzle:
        """The same board and moves enumerated from another goal (``3x3@4``, a typed root)."""
        if sorted(goal) != list(range(self.cells.count)):
            raise ValueError(f"the goal must hold each of 0..{self.cells.count - 1} once")
        other = copy.copy(self)
        other.name, other.title, other.goal = name, title, list(goal)
        other.root_texts = (" ".join(map(str, goal)),)
        other.default = False
        return other


def grid_adjacency(rows: int, cols: int) -> list[list[int]]:
    """Orthogonal neighbours of each cell of a rows x cols rectangle, row-major."""
    adj: list[list[int]] = []
    for r in range(rows):
        for c in range(cols):
            nbrs = []
            if r > 0:
                nbrs.append((r - 1) * cols + c)
            if c > 0:
                nbrs.append(r * cols + c - 1)
            if c < cols - 1:
                nbrs.append(r * cols + c + 1)
            if r < rows - 1:
                nbrs.append((r + 1) * cols + c)
            adj.append(nbrs)
    return adj


def grid_layout(rows: int, cols: int) -> str:
    """The drawing of a rows x cols board: ``{i}`` for cell i, row by row."""
    return "\n".join(" ".join(f"{{{r * cols + c}}}" for c in range(cols)) for r in range(rows))


def rectangle(rows: int, cols: int, *, default: bool = False) -> TilePuzzle:
    """The rows x cols sliding puzzle, enumerated from its goal."""
    n = rows * cols
    return TilePuzzle(
        f"{rows}x{cols}",
        f"{rows}x{cols} sliding puzzle ({n - 1} tiles)",
        grid_adjacency(rows, cols),
        grid_layout(rows, cols),
        expected_total=math.factorial(n) // 2,
        default=default,
    )


HEX6 = TilePuzzle(
    "hex6",
    "six puzzle (hexagonal board, 7 cells)",
    [[1, 2, 3], [0, 3, 4], [0, 3, 5], [0, 1, 2, 4, 5, 6], [1, 3, 6], [2, 3, 6], [3, 4, 5]],
    "  {0}   {1}\n{2}   {3}   {4}\n  {5}   {6}",
    expected_total=5040,
    default=True,
)
