"""The drawing of a twisty puzzle: a row a set, each position's piece numbered as the
definition file numbers it, a twisted piece coloured and marked with its orientation;
the 3x3x3 cube (cube3) as the net of its stickers.

A definition has no geometry, so this is the board the format itself suggests:
each set's name, then its positions in order. A spot's value (written as
``data-value``) is ``label * 256 + orientation + 1`` (0 for a ``?``
orientation: ``label * 256``), so the picture reads back as the position.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.draw import geometry
from pipeline.draw.art import FONT, UNIT, Art, Move
from pipeline.draw.svg import el, text
from pipeline.errors import BadPosition
from pipeline.puzzles.cube.art import FACE_COLOURS, face_plates
from pipeline.puzzles.twisty import cube3
from pipeline.puzzles.twisty.board import TwistyPuzzle
from pipeline.puzzles.twisty.cube3 import Cube3
from pipeline.puzzles.twisty.tws import WILD, Part

#: A spot's value: the label times this, plus the orientation + 1 (twists < 128).
LABEL = 256
#: A twisted piece's colour, by its orientation (1, 2, ...).
TWISTED = ("#e65100", "#1565c0", "#6a1b9a", "#2e7d32")
#: Units a character of a set's name takes at the left of its row.
NAME_CHAR = 0.24


class TwistyArt(Art):
    """A row a set, pieces as numbered squares, ``+k`` beside a piece twisted k times."""

    puzzle: TwistyPuzzle
    board_fill = "#e3e7ea"
    squares = True

    def layout(self) -> geometry.Spots:
        p = self.puzzle
        assert isinstance(p, TwistyPuzzle)
        left = self._left()
        xy = [
            (left + j, float(i)) for i, s in enumerate(p.definition.sets) for j in range(s.pieces)
        ]
        return geometry.Spots(tuple(xy), False)

    def _left(self) -> float:
        return NAME_CHAR * max(len(s.name) for s in self.puzzle.definition.sets) + 0.9

    def values(self, state: int) -> list[int]:
        return [
            v * LABEL + t + 1
            for part in self.puzzle.decode(state)
            for v, t in zip(part.perm, part.twist, strict=True)
        ]

    def piece(self, content: int, x: float, y: float) -> str:
        """The piece's label; a twisted piece coloured by its orientation, ``+k`` in its
        corner (``?`` for an orientation the definition ignores)."""
        label, twist = divmod(content, LABEL)
        mark = "?" if twist == 0 else f"+{twist - 1}" if twist > 1 else ""
        fill = TWISTED[(twist - 2) % len(TWISTED)] if twist > 1 else "#37474f"
        body = self.square(x, y, fill, 0.78) + self.label(x, y - 2, str(label), "#fff", 0.34)
        if mark:
            body += text(x + 0.2 * UNIT, y + 0.24 * UNIT, mark, fill="#fff", font_size=9)
        return body

    def slot(self, spot: int, x: float, y: float) -> str:
        return ""

    def underlay(self) -> str:
        """Each set's name at the left of its row."""
        out = []
        for i, s in enumerate(self.puzzle.definition.sets):
            x, y = self.xy(self._first(i), self.pad)
            out.append(
                text(
                    x - 0.6 * UNIT, y, s.name, font_size=12, fill="#333", style=FONT,
                    text_anchor="end",
                )
            )  # fmt: skip
        return el("g", {"class": "sets"}, "".join(out))

    def _first(self, i: int) -> int:
        return sum(s.pieces for s in self.puzzle.definition.sets[:i])

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        """The move between two positions (every spot it changed ringed), by name."""
        changed = tuple(i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b)
        try:
            name = self.puzzle.turn_between(self._state(before), self._state(after))
        except BadPosition:
            return Move(over=changed)
        return Move(over=changed, label=name)

    def _state(self, values: Sequence[int]) -> int:
        parts, at = [], 0
        for s in self.puzzle.definition.sets:
            row = values[at : at + s.pieces]
            at += s.pieces
            perm = tuple(v // LABEL for v in row)
            twist = tuple(v % LABEL - 1 if v % LABEL else WILD for v in row)
            parts.append(Part(perm, twist))
        return self.puzzle.encode(tuple(parts))


class Cube3Art(Art):
    """The 3x3x3 cube as the net of its 54 stickers (cube3.STICKERS), coloured as the
    pocket cube is. A spot's value is its sticker's face (1..6 for U R F D L B), so the
    picture reads back as the sticker colours Cube3.parse reads."""

    puzzle: Cube3
    squares = True
    board_fill = "#263238"
    pad = 0.8

    def layout(self) -> geometry.Spots:
        """The net's places, half a sticker between neighbouring faces."""
        xy = []
        for i, s in enumerate(cube3.STICKERS):
            x0, y0 = cube3.NET_ORIGIN[s.face]
            x, y = x0 + i % 3, y0 + i % 9 // 3
            xy.append((x + x0 // 3 * 0.5, y + y0 // 3 * 0.5))
        return geometry.Spots(tuple(xy), False)

    def values(self, state: int) -> list[int]:
        return [cube3.FACES.index(c) + 1 for c in cube3.colours(self.puzzle.decode(state))]

    def underlay(self) -> str:
        """A plate under each face's nine stickers, so the faces stand apart."""
        return face_plates(self, 9)

    def slot(self, spot: int, x: float, y: float) -> str:
        return ""

    def piece(self, content: int, x: float, y: float) -> str:
        face = cube3.FACES[content - 1]
        half = 0.43 * UNIT
        box = {"x": x - half, "y": y - half, "width": 2 * half, "height": 2 * half}
        return el(
            "rect",
            {**box, "rx": 0.1 * UNIT, "fill": FACE_COLOURS[face], "class": "facelet",
             "data_colour": face},
        )  # fmt: skip

    def move(self, before: Sequence[int], after: Sequence[int]) -> Move:
        """The turn between two nets (its face's stickers ringed), by name."""
        try:
            a, b = (
                self.puzzle.parse("".join(cube3.FACES[c - 1] for c in n)) for n in (before, after)
            )
            turn = self.puzzle.turn_between(a, b)
        except BadPosition:
            return Move()
        face = cube3.FACES.index(turn[0])
        return Move(to=tuple(range(9 * face, 9 * face + 9)), label=turn)
