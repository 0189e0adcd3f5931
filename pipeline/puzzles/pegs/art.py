"""How peg boards are drawn: holes in a wooden board, pegs standing in some."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.draw.art import UNIT, Art, Move, distance
from pipeline.draw.svg import el


class PegArt(Art):
    """Holes in a wooden board, pegs standing in some, each hole with its number (the
    numbers jumps are written in: ``(3,12)``), small in its upper left."""

    board_fill = "#d7b98e"

    def slot(self, spot: int, x: float, y: float) -> str:
        # The whole cell takes a click (the hole alone is small), and holds its number.
        hit = el("circle", {"cx": x, "cy": y, "r": 0.45 * UNIT, "fill": "transparent"})
        hole = el("circle", {"cx": x, "cy": y, "r": 0.13 * UNIT, "fill": "#6d4c41"})
        number = self.label(x - 0.34 * UNIT, y - 0.3 * UNIT, str(spot), "#5d4037", 0.2)
        return hit + hole + number

    def piece(self, content: int, x: float, y: float) -> str:
        if content == 0:
            return ""
        return self.disc(x, y, "#c62828", r=0.3, stroke="#7f0000") + el(
            "circle",
            {"cx": x - 0.09 * UNIT, "cy": y - 0.09 * UNIT, "r": 0.08 * UNIT, "fill": "#ef9a9a"},
        )

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        m = super().move(before, after)
        if len(m.frm) != 2 or len(m.to) != 1:
            return m
        t = m.to[0]
        far = max(m.frm, key=lambda i: distance(self.spots.xy[i], self.spots.xy[t]))
        over = tuple(i for i in m.frm if i != far)
        return Move((far,), m.to, over, label=f"{far}\u2192{t}")
