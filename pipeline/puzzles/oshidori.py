"""Oshidori: eight cells in a row, three black and three white stones, two empty.

A move takes two stones in neighbouring cells and puts them, order kept, into
the two empty cells (which are always next to each other); their old cells
become the empty pair.

Encoding (public contract): cell i in bits 2i..2i+1 of the state, 0 empty,
1 black, 2 white. Enumerated from the start ``B W B W B W . .``.
Moves are reversible but two positions at the same distance can be one move
apart, so the graph is reversible, not bipartite.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.answers import Origin
from pipeline.draw.art import Art, Move
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Cells, Puzzle
from pipeline.puzzles.family import Family

CELLS = 8


class Oshidori(Puzzle):
    """The pair-moving stones puzzle of article 000."""

    name = "oshidori"
    title = "oshidori (pair-moving stones, 8 cells)"
    cells = Cells(CELLS, 2, (".", "B", "W"), " ".join(f"{{{i}}}" for i in range(CELLS)))
    graph = Graph.REVERSIBLE
    origin = Origin.START
    root_texts = ("B W B W B W . .",)
    encoding = "cell i in bits 2i..2i+1: 0 empty, 1 black (B), 2 white (W)"
    expected_total = None
    default = True

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        occupied = np.stack(
            [(states >> np.uint64(2 * i)) & np.uint64(3) != 0 for i in range(CELLS)], axis=1
        )
        empty_at = np.argmin(occupied, axis=1).astype(np.uint64)  # first of the empty pair
        srcs: list[np.ndarray] = []
        kids: list[States] = []
        for i in range(CELLS - 1):
            idx = np.flatnonzero(occupied[:, i] & occupied[:, i + 1])
            s = states[idx]
            pair = (s >> np.uint64(2 * i)) & np.uint64(0xF)
            cleared = s & ~np.uint64(0xF << (2 * i))
            kids.append(cleared | (pair << (np.uint64(2) * empty_at[idx])))
            srcs.append(idx)
        return np.concatenate(srcs), np.concatenate(kids)

    def check(self, values: list[int]) -> None:
        counts = [values.count(v) for v in range(3)]
        if counts != [2, 3, 3]:
            raise BadPosition("oshidori needs 3 B, 3 W and 2 empty cells ('.')")
        first = values.index(0)
        if first == CELLS - 1 or values[first + 1] != 0:
            raise BadPosition("the two empty cells of oshidori must be next to each other")


OSHIDORI = Oshidori()


class StoneArt(Art):
    """Black and white stones on a row of cells."""

    squares = True

    board_fill = "#c8a165"

    def slot(self, spot: int, x: float, y: float) -> str:
        return self.square(x, y, "#e6c58f", 0.92)

    def piece(self, content: int, x: float, y: float) -> str:
        if content == 1:
            return self.disc(x, y, "#212121", stroke="#000")
        if content == 2:
            return self.disc(x, y, "#fafafa", stroke="#212121")
        return ""

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        m = super().move(before, after)
        if not m.frm or not m.to:
            return m
        return Move(m.frm, m.to, label=f"{m.frm[0]}-{m.frm[-1]} to {m.to[0]}-{m.to[-1]}")


FAMILY = Family(
    "oshidori",
    "pair-moving stones",
    classes=(Oshidori,),
    tables=(OSHIDORI,),
    arts={Oshidori: StoneArt},
)
