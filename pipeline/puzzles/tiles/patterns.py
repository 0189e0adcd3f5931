"""Pattern databases as puzzles: the abstract sliding puzzle of a few tiles.

A pattern database (PDB) for a set of pattern tiles of a sliding puzzle is the
breadth-first search of the abstract puzzle where every other tile is
indistinguishable. Only the moves of pattern tiles cost 1; the blank wandering
over non-pattern cells costs nothing (0-1 BFS, ``Graph.GENERAL``). Searched
from the goal, the depth of an abstract state is a lower bound of the moves of
pattern tiles in any solution, so the depths of disjoint pattern sets add up to
an admissible heuristic (Korf & Felner 2002).

Encoding (public contract): nibble i (bits 4i..4i+3) holds the cell of the
i-th pattern tile (tiles in increasing order), the last nibble the cell of the
blank. Cells are numbered as in the full puzzle (row by row from the top-left).
Text shows the cells in that order, e.g. ``"0 1 4 5 8 9 15"`` for tiles
1 2 5 6 9 10 at home and the blank in cell 15.

Each table is named ``<board>-pdb-<label>`` (e.g. ``4x4-pdb-6a``) and lives in
its own folder like any table; ``<board>-pdb`` names the whole partition.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pipeline.answers import Origin
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Cells, Puzzle
from pipeline.puzzles.tiles.board import grid_adjacency


class PatternPuzzle(Puzzle):
    """The abstract puzzle of ``tiles`` on a rows x cols board (goal: blank last)."""

    graph = Graph.GENERAL
    origin = Origin.GOAL
    derived = True

    def __init__(self, rows: int, cols: int, label: str, tiles: Sequence[int]) -> None:
        n = rows * cols
        tiles = tuple(sorted(tiles))
        if not tiles or tiles[0] < 1 or tiles[-1] >= n or len(set(tiles)) != len(tiles):
            raise ValueError(f"pattern tiles must be distinct numbers 1..{n - 1}")
        self.rows, self.cols, self.label, self.tiles = rows, cols, label, tiles
        self.board = f"{rows}x{cols}"
        self.name = f"{self.board}-pdb-{label}"
        self.title = (
            f"pattern database of tiles {' '.join(map(str, tiles))} "
            f"on the {self.board} puzzle (cells of the tiles, then of the blank)"
        )
        k = len(tiles)
        self.size = n
        self.adjacency = tuple(tuple(a) for a in grid_adjacency(rows, cols))
        layout = " ".join(f"{t}:{{{i}}}" for i, t in enumerate(tiles)) + f" blank:{{{k}}}"
        self.cells = Cells(k + 1, 4, tuple(str(c) for c in range(n)), layout)
        self.encoding = (
            f"cell of pattern tile i (tiles {' '.join(map(str, tiles))}) in bits 4i..4i+3, "
            f"cell of the blank in bits {4 * k}..{4 * k + 3}; cost 1 per pattern-tile move"
        )
        goal = [t - 1 for t in tiles] + [n - 1]
        self.root_texts = (" ".join(map(str, goal)),)
        # Every placement of the pattern tiles and the blank: with one tile or more left
        # out, the others' order is free, so both parities are reached; a pattern of
        # every tile is the puzzle itself, whose slides keep the parity: half.
        self.expected_total = math.perm(n, k) * (n - k) // (2 if k == n - 1 else 1)
        self.expand_free = self._expand_free

    # -- moves ------------------------------------------------------------
    def _split(self, states: States) -> tuple[np.ndarray, np.ndarray]:
        """(cells of the pattern tiles as an (N, k) array, cell of the blank)."""
        k = len(self.tiles)
        shifts = np.arange(k + 1, dtype=np.uint64) * np.uint64(4)
        cells = ((states[:, None] >> shifts) & np.uint64(15)).astype(np.int8)
        return cells[:, :k], cells[:, k]

    def _moves(self, states: States, paid: bool) -> tuple[np.ndarray, States]:
        """Moves of the blank to each neighbour: onto a pattern tile (paid) or not (free)."""
        tiles, blank = self._split(states)
        k = len(self.tiles)
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for b, nbrs in enumerate(self.adjacency):
            at = np.flatnonzero(blank == b)
            if len(at) == 0:
                continue
            s = states[at]
            t = tiles[at]
            for j in nbrs:
                hit = t == j
                occupied = hit.any(axis=1)
                pick = occupied if paid else ~occupied
                if not pick.any():
                    continue
                s2 = s[pick]
                # the blank goes to j; a paid move puts the tile from j into b
                child = (s2 & ~(np.uint64(15) << np.uint64(4 * k))) | (
                    np.uint64(j) << np.uint64(4 * k)
                )
                if paid:
                    which = np.argmax(hit[pick], axis=1).astype(np.uint64) * np.uint64(4)
                    child = child ^ ((np.uint64(j) ^ np.uint64(b)) << which)
                kids.append(child)
                srcs.append(at[pick])
        if not kids:
            return np.empty(0, np.intp), np.empty(0, np.uint64)
        return np.concatenate(srcs).astype(np.intp), np.concatenate(kids)

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Moves of a pattern tile into the blank (cost 1)."""
        return self._moves(states, paid=True)

    def _expand_free(self, states: States) -> tuple[np.ndarray, States]:
        """Moves of an indistinguishable tile into the blank (cost 0)."""
        return self._moves(states, paid=False)

    def check(self, values: list[int]) -> None:
        if len(set(values)) != len(values):
            raise BadPosition("each pattern tile and the blank need a cell of their own")

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "board": self.board,
            "pattern_tiles": list(self.tiles),
        }

    # -- the compact array ----------------------------------------------------
    def index(self, states: States) -> np.ndarray:
        """Index of the pattern tiles' cells in the compact array: sum cell_i * n**i."""
        tiles, _ = self._split(states)
        weights = self.size ** np.arange(len(self.tiles), dtype=np.int64)
        return tiles.astype(np.int64) @ weights

    @property
    def array_size(self) -> int:
        return self.size ** len(self.tiles)


#: The partitions of the tiles into disjoint pattern sets, per board.
#: 4x4: two 3x2 blocks and the three tiles of the bottom row (6-6-3, the
#: partition of Korf & Felner turned to our goal with the blank last).
PARTITIONS: dict[str, dict[str, tuple[int, ...]]] = {
    "4x4": {"6a": (1, 2, 5, 6, 9, 10), "6b": (3, 4, 7, 8, 11, 12), "3": (13, 14, 15)},
    "3x4": {"6": (1, 2, 3, 5, 6, 7), "5": (4, 8, 9, 10, 11)},
    "2x6": {"6": (1, 2, 3, 7, 8, 9), "5": (4, 5, 6, 10, 11)},
    "2x5": {"5": (1, 2, 3, 6, 7), "4": (4, 5, 8, 9)},
    "3x3": {"4a": (1, 2, 4, 5), "4b": (3, 6, 7, 8)},
    "2x4": {"4": (1, 2, 5, 6), "3": (3, 4, 7)},
    "2x3": {"5": (1, 2, 3, 4, 5)},
}


def pattern_puzzles() -> list[PatternPuzzle]:
    """Every pattern-database table of every partition."""
    out = []
    for board, parts in PARTITIONS.items():
        rows, cols = (int(x) for x in board.split("x"))
        out += [PatternPuzzle(rows, cols, label, tiles) for label, tiles in parts.items()]
    return out


def group_names() -> dict[str, list[str]]:
    """``<board>-pdb`` -> the table names of that board's partition."""
    return {f"{b}-pdb": [f"{b}-pdb-{label}" for label in parts] for b, parts in PARTITIONS.items()}
