"""Placements: numbers put on places one at a time, with lines that must agree.

The magic triangle of article 004: 1..9 on nine places so that the three
sides (0-1-2-3, 3-4-5-6, 6-7-8-0) have equal sums.

          0
         1 8
        2   7
       3 4 5 6

Encoding (public contract): the number on place i in bits 4i..4i+3, 0 while
empty. Places are filled in the order 0..8 (the article's order), one a
level, so depth = places filled and the graph is layered. A side is checked
as soon as it is complete: the branch is cut when its sum differs from the
first side's. Depth 9 holds every solution, with any common sum, before the
duplicate rules (rotations, mirror, middle pairs) that queries apply.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.answers import Origin
from pipeline.draw.art import Art, Move
from pipeline.draw.svg import el
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Cells, Puzzle
from pipeline.puzzles.family import Family


class Placement(Puzzle):
    """Numbers 1..n on n places, filled in order; complete lines must share one sum."""

    graph = Graph.LAYERED
    origin = Origin.START
    encoding = "number on place i in bits 4i..4i+3, 0 empty; places filled in order 0, 1, ..."

    def __init__(
        self,
        name: str,
        title: str,
        places: int,
        lines: Sequence[Sequence[int]],
        layout: str,
        default: bool = False,
    ) -> None:
        self.name = name
        self.default = default
        self.title = title
        self.lines = tuple(tuple(line) for line in lines)
        self.cells = Cells(places, 4, (".", *(str(v) for v in range(1, places + 1))), layout)
        self.root_texts = (self.cells.text(0),)
        # A line is complete when its last place (in filling order) is filled.
        self._checks = {max(line): line for line in self.lines[1:]}

    def values(self, states: States) -> np.ndarray:
        n = self.cells.count
        return np.stack(
            [((states >> np.uint64(4 * i)) & np.uint64(15)).astype(np.int64) for i in range(n)],
            axis=1,
        )

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        n = self.cells.count
        vals = self.values(states)
        place = np.count_nonzero(vals, axis=1)  # the next place to fill
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for p in range(n):
            idx = np.flatnonzero(place == p)
            if len(idx) == 0:
                continue
            v = vals[idx]
            for number in range(1, n + 1):
                ok = ~np.any(v == number, axis=1)
                if p in self._checks:
                    first = v[:, list(self.lines[0])].sum(axis=1)
                    line = self._checks[p]
                    total = v[:, [q for q in line if q != p]].sum(axis=1) + number
                    ok &= total == first
                chosen = idx[ok]
                kids.append(states[chosen] | np.uint64(number << (4 * p)))
                srcs.append(chosen)
        if not kids:
            return np.empty(0, np.intp), np.empty(0, np.uint64)
        return np.concatenate(srcs), np.concatenate(kids)

    def check(self, values: list[int]) -> None:
        filled = [v for v in values if v]
        if len(set(filled)) != len(filled):
            raise BadPosition("each number may stand on one place only")
        k = len(filled)
        if any(values[i] == 0 for i in range(k)) or any(values[i] for i in range(k, len(values))):
            raise BadPosition(f"places are filled in order: the first {k} places, then empty ones")


MAGIC9 = Placement(
    "magic9",
    "magic triangle: 1..9 on a triangle's sides with equal sums (article 004)",
    9,
    [(0, 1, 2, 3), (3, 4, 5, 6), (6, 7, 8, 0)],
    "      {0}\n    {1}   {8}\n  {2}       {7}\n{3}   {4}   {5}   {6}",
    default=True,
)


class PlaceArt(Art):
    """Places on the triangle's sides, each with its number once placed."""

    puzzle: Placement
    board_fill = "#eceff1"

    def underlay(self) -> str:
        p = self.puzzle
        out = []
        for line in p.lines:
            a, b = self.xy(line[0], self.pad), self.xy(line[-1], self.pad)
            out.append(
                el(
                    "line",
                    {
                        "x1": a[0],
                        "y1": a[1],
                        "x2": b[0],
                        "y2": b[1],
                        "stroke": "#90a4ae",
                        "stroke_width": 3,
                    },
                )
            )
        return "".join(out)

    def slot(self, spot: int, x: float, y: float) -> str:
        return self.disc(x, y, "#fff", r=0.36, stroke="#90a4ae")

    def piece(self, content: int, x: float, y: float) -> str:
        if content == 0:
            return ""
        return self.disc(x, y, "#fff", r=0.36, stroke="#37474f") + self.label(
            x, y, str(content), "#263238"
        )

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        m = super().move(before, after)
        return Move(to=m.to, label=f"{after[m.to[0]]} on {m.to[0]}" if len(m.to) == 1 else "")


FAMILY = Family(
    "placements", "placements", classes=(Placement,), tables=(MAGIC9,), arts={Placement: PlaceArt}
)
