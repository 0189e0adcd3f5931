"""Where each cell sits, read from the layout that draws the text boards.

``Cells.layout`` already places every cell in its board's shape as text
(``{i}`` for cell i, or ``{i[k]}`` for one character of its symbol: a cell
drawn in several places, like a cube corner, sits at their mean). The
centre of each field, in characters and lines, is a drawing of the board:
scaled so that neighbours on one line are one unit apart, and, when rows are
shifted by half a step (the hexagon, the triangles), with rows sqrt(3)/2 apart
so that the cells sit on a triangular lattice.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass
from typing import Protocol


class Layout(Protocol):
    """What the geometry reads of a puzzle's cell codec (pipeline/puzzles/base.py's Cells)."""

    @property
    def count(self) -> int: ...

    @property
    def layout(self) -> str: ...

    @property
    def width(self) -> int: ...


ROW_TRIANGULAR = math.sqrt(3) / 2


@dataclass(frozen=True)
class Spots:
    """Cell centres in units of the step between neighbours (x right, y down)."""

    xy: tuple[tuple[float, float], ...]
    #: Rows shifted by half a step: hexagonal cells rather than square ones.
    triangular: bool

    @property
    def width(self) -> float:
        return max(x for x, _ in self.xy)

    @property
    def height(self) -> float:
        return max(y for _, y in self.xy)


def field_centres(layout: str, width: int) -> list[tuple[str, float, int]]:
    """(field, character column of its centre, line) of each ``{field}`` in a layout.

    A field with an index (``{i[k]}``: one character of a symbol) is one
    character wide; a plain field is ``width`` characters wide.
    """
    out: list[tuple[str, float, int]] = []
    line, col = 0, 0
    for literal, field, _, _ in string.Formatter().parse(layout):
        pieces = literal.split("\n")
        line += len(pieces) - 1
        col = col + len(pieces[0]) if len(pieces) == 1 else len(pieces[-1])
        if field is not None:
            w = 1 if "[" in field else width
            out.append((field, col + (w - 1) / 2, line))
            col += w
    return out


def text_centres(cells: Layout) -> list[tuple[float, float]]:
    """(character column of the centre, line) of each cell in the text drawing.

    A cell drawn as several ``{i[k]}`` fields sits at the mean of their centres.
    """
    found: dict[int, list[tuple[float, float]]] = {}
    for field, col, line in field_centres(cells.layout, cells.width):
        found.setdefault(int(field.partition("[")[0]), []).append((col, line))
    return [_mean(found[i]) for i in range(cells.count)]


def _mean(points: list[tuple[float, float]]) -> tuple[float, float]:
    n = len(points)
    return sum(c for c, _ in points) / n, sum(r for _, r in points) / n


def _step(centres: list[tuple[float, float]]) -> float:
    """The smallest gap between two cells on one line (1 when no line holds two)."""
    gaps = [
        abs(a[0] - b[0])
        for i, a in enumerate(centres)
        for b in centres[i + 1 :]
        if a[1] == b[1] and a[0] != b[0]
    ]
    return min(gaps, default=1.0)


def spots(cells: Layout) -> Spots:
    """The board's cells as points, from its text layout."""
    centres = text_centres(cells)
    step = _step(centres)
    left = min(c for c, _ in centres)
    top = min(r for _, r in centres)
    xs = [(c - left) / step for c, _ in centres]
    triangular = any(abs(x - math.floor(x) - 0.5) < 0.25 for x in xs)
    dy = ROW_TRIANGULAR if triangular else 1.0
    return Spots(
        tuple((x, (r - top) * dy) for x, (_, r) in zip(xs, centres, strict=True)), triangular
    )


def grid(rows: int, cols: int) -> Spots:
    """A rows x cols rectangle of cells, row by row."""
    return Spots(tuple((float(c), float(r)) for r in range(rows) for c in range(cols)), False)
