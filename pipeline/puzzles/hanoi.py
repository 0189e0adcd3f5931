"""The Tower of Hanoi: n disks of n sizes on three pegs, a smaller disk always on a larger.

A move takes the top disk of one peg onto another peg whose top disk is larger
(or which is empty). The table is enumerated from the goal, every disk on peg
C, so walking parents from a position is an optimal solution; from every disk
on peg A it takes 2**n - 1 moves. Every placement of the disks on the pegs is
a position (a peg's disks are stacked by size), so there are 3**n; the graph is
reversible but not bipartite (the smallest disk's three pegs make a triangle).

Encoding (public contract): disk i (0 the smallest) in bits 2i..2i+1, its peg
0, 1, 2 for A, B, C. Typed smallest disk first, a peg letter a disk:
``A A A A`` is every disk of ``hanoi4`` on peg A.

The family touches no other module: its drawing, its notation and its tables are
declared here (:data:`FAMILY`), and builtin.py lists it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from pipeline.answers import Origin
from pipeline.draw import geometry
from pipeline.draw.art import UNIT, Art
from pipeline.draw.svg import el
from pipeline.engine.core import Graph, States
from pipeline.puzzles.base import Cells, Puzzle
from pipeline.puzzles.family import Family

PEGS = "ABC"


class Hanoi(Puzzle):
    """The Tower of Hanoi with ``disks`` disks, solved onto peg C."""

    graph = Graph.REVERSIBLE
    origin = Origin.GOAL

    def __init__(self, disks: int, *, default: bool = False) -> None:
        if not 1 <= disks <= 16:
            raise ValueError("1 to 16 disks (two bits a disk)")
        self.disks = disks
        self.name = f"hanoi{disks}"
        self.title = f"Tower of Hanoi, {disks} disks on three pegs, all onto peg C"
        self.cells = Cells(disks, 2, tuple(PEGS), " ".join(f"{{{i}}}" for i in range(disks)))
        self.root_texts = (" ".join("C" * disks),)
        self.encoding = f"disk i (0..{disks - 1}, 0 the smallest) in bits 2i..2i+1: its peg A/B/C"
        self.expected_total = 3**disks
        self.default = default

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """The top disk of each peg onto each other peg whose top disk is larger."""
        states = np.asarray(states, dtype=np.uint64)
        tops = self._tops(states)
        srcs, kids = [], []
        for a in range(3):
            for b in range(3):
                ok = (a != b) & (tops[a] < tops[b])
                idx = np.flatnonzero(ok)
                if len(idx):
                    shift = (2 * tops[a][idx]).astype(np.uint64)
                    moved = states[idx] ^ (np.uint64(a ^ b) << shift)
                    srcs.append(idx)
                    kids.append(moved)
        if not kids:
            return np.empty(0, np.intp), np.empty(0, np.uint64)
        return np.concatenate(srcs), np.concatenate(kids)

    def _tops(self, states: States) -> list[np.ndarray]:
        """The smallest disk on each peg (``disks`` where a peg is empty)."""
        tops = [np.full(len(states), self.disks, np.int64) for _ in range(3)]
        for i in reversed(range(self.disks)):
            peg = ((states >> np.uint64(2 * i)) & np.uint64(3)).astype(np.int64)
            for p in range(3):
                tops[p][peg == p] = i
        return tops

    def check(self, values: list[int]) -> None:
        return None  # every placement is a position: three symbols, three pegs

    def notation(self, states: Sequence[int]) -> str:
        """The moves from the first state to the last, as the pegs each disk goes between:
        ``AC AB CB`` (the disk moved is the top one of the first peg)."""
        out = []
        for a, b in itertools.pairwise(states):
            before, after = self.cells.values(int(a)), self.cells.values(int(b))
            disk = next(i for i in range(self.disks) if before[i] != after[i])
            out.append(PEGS[before[disk]] + PEGS[after[disk]])
        return " ".join(out)


class HanoiArt(Art):
    """Three rods on a plank, the disks stacked on them by size.

    A spot is a place on a rod (rod by rod, bottom up); what it shows is the disk
    there (1 the smallest, 0 none), tagged with the disk and its peg.
    """

    puzzle: Hanoi
    board_fill = "none"
    squares = True

    def layout(self) -> geometry.Spots:
        n = self.puzzle.disks
        gap = 0.5 * n + 1.0  # the widest disk is about n/2 units
        xy = [(rod * gap, 0.6 * (n - 1 - h)) for rod in range(3) for h in range(n)]
        return geometry.Spots(tuple(xy), False)

    def _stacks(self, values: Sequence[int]) -> list[list[int]]:
        """Each rod's disks, bottom (largest) first."""
        return [[i for i in reversed(range(len(values))) if values[i] == p] for p in range(3)]

    def contents(self, values: Sequence[int]) -> list[int]:
        n = len(values)
        out = [0] * (3 * n)
        for rod, stack in enumerate(self._stacks(values)):
            for h, disk in enumerate(stack):
                out[rod * n + h] = disk + 1
        return out

    def tags(self, values: Sequence[int]) -> list[tuple[int, int] | None]:
        return [
            (c - 1, i // len(values)) if c else None for i, c in enumerate(self.contents(values))
        ]

    def underlay(self) -> str:
        n = self.puzzle.disks
        (x0, y0), (x1, _) = self.xy(0, self.pad), self.xy(3 * n - 1, self.pad)
        plank = {"x": x0 - 0.5 * n * UNIT / 2 - 8, "y": y0 + 0.3 * UNIT, "height": 0.25 * UNIT}
        plank["width"] = x1 - x0 + 0.5 * n * UNIT + 16
        return el("rect", {**plank, "rx": 3, "fill": "#8d6e63"})

    def slot(self, spot: int, x: float, y: float) -> str:
        rod = {"x": x - 3, "y": y - 0.3 * UNIT, "width": 6, "height": 0.6 * UNIT}
        return el("rect", {**rod, "fill": "#5d4037"})

    def piece(self, content: int, x: float, y: float) -> str:
        if content == 0:
            return ""
        width = (0.3 + 0.5 * content * 0.9) * UNIT
        disk = {"x": x - width / 2, "y": y - 0.24 * UNIT, "width": width, "height": 0.48 * UNIT}
        body = el("rect", {**disk, "rx": 6, "fill": "#1e88e5", "stroke": "#0d47a1"})
        return body + self.label(x, y, str(content), "#fff", size=0.34)


HANOI3 = Hanoi(3)
HANOI4 = Hanoi(4)
HANOI8 = Hanoi(8)

FAMILY = Family(
    "hanoi",
    "Towers of Hanoi",
    classes=(Hanoi,),
    tables=(HANOI3, HANOI4, HANOI8),
    arts={Hanoi: HanoiArt},
)
