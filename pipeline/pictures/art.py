"""How each family draws its cells: one small class a family, found by the puzzle's class.

An :class:`Art` knows the spots (cell centres, from the text layout), what each
spot shows for a position (``contents``), which puzzle cell and value each
spot stands for (``tags``, written as ``data-cell``/``data-value`` so a test
reads the position back), how a piece looks, and how to tell a move between
two positions (``move``). The defaults suit most families; a family changes
only what differs.

Longer than 300 lines: one small class a family, kept together so that the
families draw alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.errors import BadPosition
from pipeline.pictures import geometry
from pipeline.pictures.svg import el, num, text
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.cube import board as cube
from pipeline.puzzles.oshidori import Oshidori
from pipeline.puzzles.pegs.board import PegPuzzle, WinnablePuzzle
from pipeline.puzzles.placements import Placement
from pipeline.puzzles.tiles.board import TilePuzzle
from pipeline.puzzles.tiles.patterns import PatternPuzzle
from pipeline.puzzles.tours import KnightTour
from pipeline.solvers.choose import slid_label

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

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.spots = self.layout()

    def layout(self) -> geometry.Spots:
        return geometry.spots(self.puzzle.cells)

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


class TileArt(Art):
    """Numbered tiles in their grid (or hexagon); the blank is an empty slot.

    A board whose moves are not its lattice's (a spec on a graph: cells side by
    side that are not neighbours, or neighbours apart) is drawn as its graph:
    smaller cells, a line for each pair of neighbours.
    """

    squares = True

    board_fill = "#37474f"
    pad = 0.6

    def __init__(self, puzzle: Puzzle) -> None:
        super().__init__(puzzle)
        self.edges = graph_edges(puzzle, self.spots)
        self.sizes = (0.62, 0.54) if self.edges else (0.96, 0.88)  # slot's and tile's sides

    def underlay(self) -> str:
        """The graph's edges, when they are not the lattice's."""
        lines = []
        for a, b in self.edges:
            (x1, y1), (x2, y2) = self.xy(a, self.pad), self.xy(b, self.pad)
            ends = {"x1": x1, "y1": y1, "x2": x2, "y2": y2}
            lines.append(el("line", {**ends, "class": "edge", "data_cells": f"{a} {b}"}))
        return el("g", {"stroke": "#b0bec5", "stroke_width": 4}, *lines) if lines else ""

    def slot(self, spot: int, x: float, y: float) -> str:
        return self.square(x, y, "#1a2327", self.sizes[0])

    def piece(self, content: int, x: float, y: float) -> str:
        if content == 0:
            return ""
        tile = self.square(x, y, "#f6e7c8", self.sizes[1], stroke="#a1887f")
        return tile + self.label(x, y, str(content), "#3e2723")

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        m = super().move(before, after)
        tile = [after[i] for i in m.to]
        if len(tile) != 1:
            return m
        return Move(m.frm, m.to, label=slid_label(before, after) if tile[0] > 0 else "another tile")


def graph_edges(puzzle: Puzzle, spots: geometry.Spots) -> tuple[tuple[int, int], ...]:
    """The pairs of neighbouring cells (a < b), or none when they are exactly the
    pairs one step apart on the drawing's lattice (a grid, the hexagon)."""
    adjacency = getattr(puzzle, "adjacency", None)
    if adjacency is None or len(adjacency) != len(spots.xy):
        return ()
    edges = {(a, b) for a, nbrs in enumerate(adjacency) for b in nbrs if a < b}
    xy = spots.xy
    lattice = {
        (a, b)
        for a in range(len(xy))
        for b in range(a + 1, len(xy))
        if abs(_distance(xy[a], xy[b]) - 1) < 0.01
    }
    return () if edges == lattice else tuple(sorted(edges))


class PatternArt(TileArt):
    """A pattern database: the board with the pattern tiles numbered, the others plain."""

    def layout(self) -> geometry.Spots:
        p = self.puzzle
        assert isinstance(p, PatternPuzzle)
        return geometry.grid(p.rows, p.cols)

    def contents(self, values: Sequence[int]) -> list[int]:
        p = self.puzzle
        assert isinstance(p, PatternPuzzle)
        board = [-1] * p.size  # -1: a tile outside the pattern
        for tile, cell in zip(p.tiles, values[:-1], strict=True):
            board[cell] = tile
        board[values[-1]] = 0
        return board

    def tags(self, values: Sequence[int]) -> list[tuple[int, int] | None]:
        out: list[tuple[int, int] | None] = [None] * len(self.spots.xy)
        for i, cell in enumerate(values):
            out[cell] = (i, cell)
        return out

    def piece(self, content: int, x: float, y: float) -> str:
        if content == -1:
            return self.square(x, y, "#90a4ae", 0.88)
        return super().piece(content, x, y)


class PegArt(Art):
    """Holes in a wooden board, pegs standing in some."""

    board_fill = "#d7b98e"

    def slot(self, spot: int, x: float, y: float) -> str:
        return el("circle", {"cx": x, "cy": y, "r": 0.13 * UNIT, "fill": "#6d4c41"})

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
        far = max(m.frm, key=lambda i: _distance(self.spots.xy[i], self.spots.xy[t]))
        over = tuple(i for i in m.frm if i != far)
        return Move((far,), m.to, over, label=f"{far}\u2192{t}")


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


class PlaceArt(Art):
    """Places on the triangle's sides, each with its number once placed."""

    board_fill = "#eceff1"

    def underlay(self) -> str:
        p = self.puzzle
        assert isinstance(p, Placement)
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


#: The cube's face colours, a conventional scheme: white opposite yellow, green front, red right.
FACE_COLOURS = {
    "U": "#ffffff",
    "R": "#d32f2f",
    "F": "#2e7d32",
    "D": "#fdd835",
    "L": "#f57c00",
    "B": "#1565c0",
}


class CubeArt(Art):
    """The pocket cube as a net of 24 facelets, in the text drawing's places.

    One spot a facelet (``cube.FACELETS`` order), its content the face colour
    (1..6 for U R F D L B; negative on the fixed corner DBL, drawn with a pin).
    Each movable facelet is tagged with its corner (cell i, value v), so the
    position reads back from any facelet of each corner.
    """

    squares = True
    board_fill = "#263238"
    pad = 0.8

    def layout(self) -> geometry.Spots:
        """The net's text places: two characters a facelet; a blank column between
        faces becomes half a facelet, and rows of faces get the same gap."""
        where = {f: (c, r) for f, c, r in geometry.field_centres(cube.NET, 1)}
        names = [cube.COLOURS[f // 4] + str(f % 4) for f in range(cube.FACELETS)]
        xy = [(where[n][0] / 2, where[n][1] + where[n][1] // 2 * 0.5) for n in names]
        return geometry.Spots(tuple(xy), False)

    def contents(self, values: Sequence[int]) -> list[int]:
        p = self.puzzle
        assert isinstance(p, cube.PocketCube)
        colours = p.facelets(p.cells.encode(list(values)))
        sign = [-1 if cube.SLOT[f][0] == cube.MOVABLE else 1 for f in range(cube.FACELETS)]
        return [s * (cube.COLOURS.index(c) + 1) for c, s in zip(colours, sign, strict=True)]

    def tags(self, values: Sequence[int]) -> list[tuple[int, int] | None]:
        cells = [cube.SLOT[f][0] for f in range(cube.FACELETS)]
        return [(c, values[c]) if c < cube.MOVABLE else None for c in cells]

    def underlay(self) -> str:
        """A plate under each face's four facelets, so the faces stand apart."""
        plates = []
        for face in range(6):
            pts = [self.xy(f, self.pad) for f in range(4 * face, 4 * face + 4)]
            x, y = min(p[0] for p in pts), min(p[1] for p in pts)
            w, h = max(p[0] for p in pts) - x, max(p[1] for p in pts) - y
            box = {"x": x - 0.5 * UNIT, "y": y - 0.5 * UNIT, "width": w + UNIT, "height": h + UNIT}
            plates.append(el("rect", {**box, "rx": 0.15 * UNIT, "fill": "#455a64"}))
        return "".join(plates)

    def slot(self, spot: int, x: float, y: float) -> str:
        return ""

    def piece(self, content: int, x: float, y: float) -> str:
        colour = cube.COLOURS[abs(content) - 1]
        half = 0.43 * UNIT
        sticker = el(
            "rect",
            {
                "x": x - half,
                "y": y - half,
                "width": 2 * half,
                "height": 2 * half,
                "rx": 0.1 * UNIT,
                "fill": FACE_COLOURS[colour],
                "class": "facelet",
                "data_colour": colour,
            },
        )
        return sticker + (self.disc(x, y, "#263238", r=0.09) if content < 0 else "")

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        """The turn between two nets (its face ringed), named in standard notation."""
        p = self.puzzle
        assert isinstance(p, cube.PocketCube)
        try:
            a, b = (p.parse("".join(cube.COLOURS[abs(c) - 1] for c in n)) for n in (before, after))
            turn = p.turn_between(a, b)
        except BadPosition:
            return Move()
        face = cube.COLOURS.index(turn[0])
        return Move(to=tuple(range(4 * face, 4 * face + 4)), label=turn)


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


#: Each family's art, by the puzzle's class (subclasses inherit it).
ARTS: dict[type, type[Art]] = {
    TilePuzzle: TileArt,
    PatternPuzzle: PatternArt,
    PegPuzzle: PegArt,
    WinnablePuzzle: PegArt,
    Oshidori: StoneArt,
    KnightTour: KnightArt,
    Placement: PlaceArt,
    cube.PocketCube: CubeArt,
}


def art_of(puzzle: Puzzle) -> Art:
    """The drawing rules of the puzzle's family (the plain default if it has none)."""
    for cls in type(puzzle).__mro__:
        if cls in ARTS:
            return ARTS[cls](puzzle)
    return Art(puzzle)
