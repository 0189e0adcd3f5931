"""The toolkit a family draws its positions with: the :class:`Art` base and its helpers.

An :class:`Art` knows the spots (cell centres, from the text layout), what each
spot shows for a position (``contents``), which puzzle cell and value each
spot stands for (``tags``, written as ``data-cell``/``data-value`` so a test
reads the position back), how a piece looks, and how to tell a move between
two positions (``move``). The defaults suit most families; a family's own
drawing (declared on its :class:`~pipeline.puzzles.family.Family`, in its own
module) changes only what differs. Like the engine, this room knows no puzzle:
it reads a puzzle's cell codec and nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pipeline.draw import geometry
from pipeline.draw.svg import el, num, text


class Codec(geometry.Layout, Protocol):
    """What the base drawing reads of a puzzle's cell codec (pipeline/puzzles/base.py's
    Cells): its layout, each value's symbol and a state's cell values."""

    @property
    def symbols(self) -> Sequence[str]: ...

    def values(self, state: int) -> list[int]: ...


class Drawable(Protocol):
    """What the base drawing reads of a puzzle: its cell codec."""

    @property
    def cells(self) -> Codec: ...


#: Pixels between neighbouring cells.
UNIT = 40
ACCENT = "#e65100"
FONT = "font-family:system-ui,'DejaVu Sans',sans-serif"


@dataclass(frozen=True)
class Move:
    """Spots a piece left (``frm``), passed over (``over``) and reached (``to``)."""

    frm: tuple[int, ...] = ()
    to: tuple[int, ...] = ()
    over: tuple[int, ...] = ()
    label: str = ""


class Art:
    """The default drawing: one spot a cell, value 0 empty, pieces labelled by symbol."""

    board_fill = "#d9c7a3"
    pad = 0.55  # board margin around the outer cells, in units
    #: Cells drawn as squares (hexagons on a triangular lattice), so marked by one.
    squares = False

    def __init__(self, puzzle: Drawable) -> None:
        self.puzzle = puzzle
        self.spots = self.layout()

    def layout(self) -> geometry.Spots:
        return geometry.spots(self.puzzle.cells)

    def values(self, state: int) -> list[int]:
        """What a position's spots are drawn from: the puzzle's cell values (a family
        whose state is no cells says its own)."""
        return self.puzzle.cells.values(int(state))

    def contents(self, values: Sequence[int]) -> list[int]:
        """What each spot shows (0 nothing) for the puzzle's cell values."""
        return list(values)

    def tags(self, values: Sequence[int]) -> list[tuple[int, int] | None]:
        """(puzzle cell, value) that each spot stands for, or None."""
        return list(enumerate(values))

    def slot(self, spot: int, x: float, y: float) -> str:
        """The empty cell."""
        return el("circle", {"cx": x, "cy": y, "r": 0.4 * UNIT, "fill": "#efe4cc"})

    def piece(self, content: int, x: float, y: float) -> str:
        """What stands on a cell (nothing for 0)."""
        if content == 0:
            return ""
        symbol = self.puzzle.cells.symbols[content]
        return self.disc(x, y, "#455a64") + self.label(x, y, symbol, "#fff")

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        """Spots that emptied, and spots that filled, between two contents."""
        frm = tuple(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a and not b)
        to = tuple(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if b and not a)
        return Move(frm, to)

    def extras(self, contents: Sequence[int], history: Sequence[int] | None) -> str:
        """Anything drawn over the pieces (a knight's path)."""
        return ""

    def mover(self, contents: Sequence[int]) -> int | None:
        """The spot of the one piece that moves, when a family has one (the knight)."""
        return None

    def underlay(self) -> str:
        """Anything drawn under the cells (the magic triangle's sides)."""
        return ""

    # -- helpers --------------------------------------------------------------
    def xy(self, spot: int, margin: float) -> tuple[float, float]:
        x, y = self.spots.xy[spot]
        return (x + margin) * UNIT, (y + margin) * UNIT

    @staticmethod
    def disc(x: float, y: float, fill: str, r: float = 0.36, stroke: str = "none") -> str:
        return el(
            "circle",
            {"cx": x, "cy": y, "r": r * UNIT, "fill": fill, "stroke": stroke, "stroke_width": 1.5},
        )

    @staticmethod
    def label(x: float, y: float, symbol: str, fill: str, size: float = 0.42) -> str:
        style = f"{FONT};font-weight:600"
        return text(x, y, symbol, fill=fill, font_size=size * UNIT, style=style)

    def ring(self, x: float, y: float, dashed: bool) -> str:
        """The mark on a cell a move changed."""
        dash = "4 3" if dashed else None
        if self.squares:
            return self.square(x, y, "none", 1.0, stroke=ACCENT, width=2.5, dash=dash)
        values = {"cx": x, "cy": y, "r": 0.46 * UNIT, "fill": "none", "stroke": ACCENT}
        return el("circle", {**values, "stroke_width": 2.5, "stroke_dasharray": dash})

    def square(
        self,
        x: float,
        y: float,
        fill: str,
        size: float,
        stroke: str = "none",
        width: float = 1.5,
        dash: str | None = None,
    ) -> str:
        """A rounded square, or a hexagon on a triangular lattice."""
        if self.spots.triangular:
            r = size * UNIT / math.sqrt(3)
            pts = " ".join(
                f"{num(x + r * math.cos(math.radians(90 + 60 * k)))},"
                f"{num(y + r * math.sin(math.radians(90 + 60 * k)))}"
                for k in range(6)
            )
            return el(
                "polygon", {"points": pts, "fill": fill, "stroke": stroke, "stroke_width": 1.5}
            )
        half = size * UNIT / 2
        return el(
            "rect",
            {
                "x": x - half,
                "y": y - half,
                "width": 2 * half,
                "height": 2 * half,
                "rx": 0.12 * UNIT,
                "fill": fill,
                "stroke": stroke,
                "stroke_width": width,
                "stroke_dasharray": dash,
            },
        )


def distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    """How far apart two spots are, in units."""
    return math.hypot(a[0] - b[0], a[1] - b[1])
