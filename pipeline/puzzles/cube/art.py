"""How the pocket cube is drawn: a net of 24 facelets in the text drawing's places."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.draw import geometry
from pipeline.draw.art import UNIT, Art, Move
from pipeline.draw.svg import el
from pipeline.errors import BadPosition
from pipeline.puzzles.cube.board import COLOURS, FACELETS, MOVABLE, NET, SLOT, PocketCube

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

    One spot a facelet (``FACELETS`` order), its content the face colour
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
        where = {f: (c, r) for f, c, r in geometry.field_centres(NET, 1)}
        names = [COLOURS[f // 4] + str(f % 4) for f in range(FACELETS)]
        xy = [(where[n][0] / 2, where[n][1] + where[n][1] // 2 * 0.5) for n in names]
        return geometry.Spots(tuple(xy), False)

    def contents(self, values: Sequence[int]) -> list[int]:
        p = self.puzzle
        assert isinstance(p, PocketCube)
        colours = p.facelets(p.cells.encode(list(values)))
        sign = [-1 if SLOT[f][0] == MOVABLE else 1 for f in range(FACELETS)]
        return [s * (COLOURS.index(c) + 1) for c, s in zip(colours, sign, strict=True)]

    def tags(self, values: Sequence[int]) -> list[tuple[int, int] | None]:
        cells = [SLOT[f][0] for f in range(FACELETS)]
        return [(c, values[c]) if c < MOVABLE else None for c in cells]

    def underlay(self) -> str:
        """A plate under each face's four facelets, so the faces stand apart."""
        return face_plates(self, 4)

    def slot(self, spot: int, x: float, y: float) -> str:
        return ""

    def piece(self, content: int, x: float, y: float) -> str:
        colour = COLOURS[abs(content) - 1]
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
        assert isinstance(p, PocketCube)
        try:
            a, b = (p.parse("".join(COLOURS[abs(c) - 1] for c in n)) for n in (before, after))
            turn = p.turn_between(a, b)
        except BadPosition:
            return Move()
        face = COLOURS.index(turn[0])
        return Move(to=tuple(range(4 * face, 4 * face + 4)), label=turn)


def face_plates(art: Art, per_face: int) -> str:
    """A plate under each of a cube net's six faces (its facelets numbered face by face,
    ``per_face`` each), so the faces stand apart."""
    plates = []
    for face in range(6):
        pts = [art.xy(f, art.pad) for f in range(per_face * face, per_face * (face + 1))]
        x, y = min(p[0] for p in pts), min(p[1] for p in pts)
        w, h = max(p[0] for p in pts) - x, max(p[1] for p in pts) - y
        box = {"x": x - 0.5 * UNIT, "y": y - 0.5 * UNIT, "width": w + UNIT, "height": h + UNIT}
        plates.append(el("rect", {**box, "rx": 0.15 * UNIT, "fill": "#455a64"}))
    return "".join(plates)
