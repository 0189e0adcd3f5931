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

from pipeline.answers import Origin
from pipeline.draw.art import Art, Move
from pipeline.draw.svg import el, num
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Cells, Puzzle
from pipeline.puzzles.family import Family

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
    origin = Origin.START
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


class KnightArt(Art):
    """A chequered board; visited cells shaded, the knight a dark disc; its path when known."""

    squares = True

    board_fill = "#5d4037"
    pad = 0.62

    def slot(self, spot: int, x: float, y: float) -> str:
        col, row = self.spots.xy[spot]
        light = round(col + row) % 2 == 0
        return self.square(x, y, "#f0d9b5" if light else "#b58863", 1.0)

    def piece(self, content: int, x: float, y: float) -> str:
        if content == 1:
            return self.disc(x, y, "#1e88e5", r=0.16)
        if content == 2:
            return self.disc(x, y, "#1b1b1b", r=0.34) + self.label(x, y, "N", "#fff")
        return ""

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        frm = tuple(i for i, v in enumerate(before) if v == 2)
        to = tuple(i for i, v in enumerate(after) if v == 2)
        return Move(frm, to, label=f"to {to[0]}" if to else "")

    def mover(self, contents: Sequence[int]) -> int | None:
        return contents.index(2) if 2 in contents else None

    def extras(self, contents: Sequence[int], history: Sequence[int] | None) -> str:
        """The knight's path in the order it went, when the strip knows it."""
        if not history or len(history) < 2:
            return ""
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in (self.xy(c, self.pad) for c in history))
        return el(
            "polyline",
            {
                "points": pts,
                "fill": "none",
                "stroke": "#1e88e5",
                "stroke_width": 2.5,
                "stroke_linejoin": "round",
                "opacity": 0.8,
                "class": "path",
                "data_cells": " ".join(map(str, history)),
            },
        )


FAMILY = Family(
    "tours",
    "knight's tours",
    classes=(KnightTour,),
    tables=(KNIGHT14,),
    arts={KnightTour: KnightArt},
)
