"""The 3x3x3 cube (``cube3``), its definition made here from the cube's geometry.

Cubies sit at integer points: x from L (-1) to R (+1), y from D to U, z from B
to F. A face's quarter turn (clockwise, looking at the face) rotates the
cubies of its layer a quarter turn about the face's normal; a sticker is a
cubie and a normal, and rotates with it. The positions, in Kociemba's order:

    corners  URF UFL ULB UBR DFR DLF DBL DRB
    edges    UR UF UL UB DR DF DL DB FR FL BL BR

A position's facelets are its normals: first its reference facelet (U or D;
an edge without one, F or B), then a corner's other two clockwise (seen from
outside). A piece's orientation is the facelet of its position that holds
its own reference sticker (0: the reference facelet; a corner 1 or 2: that
many clockwise from it). A move's twist at a position is then the facelet the
arriving piece's reference sticker lands on (a rotation keeps a corner's
facelets in clockwise order, so every twist is a cyclic shift).

The moves are U R F D L B with their powers (18: the half-turn metric), the
sets CORNERS (8 pieces, 3 orientations) and EDGES (12, 2): 43,252,003,274,
489,856,000 positions, past 64 bits, so the cube is solved by search over
its pattern tables (Korf's: the corners, 88,179,840 positions; six edges and
the other six, 42,577,920 each). Written for puzzledb, not taken from any
other definition file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.errors import BadPosition
from pipeline.puzzles.cube.board import FACES as NET_FACES
from pipeline.puzzles.twisty import tws
from pipeline.puzzles.twisty.abstract import Pattern
from pipeline.puzzles.twisty.board import TwistyPuzzle
from pipeline.puzzles.twisty.patterns import TwistyPattern
from pipeline.puzzles.twisty.tws import Definition, MoveBlock, Part, PieceSet

Vector = tuple[int, int, int]

#: Each face's outward normal.
NORMALS: dict[str, Vector] = {
    "U": (0, 1, 0),
    "D": (0, -1, 0),
    "R": (1, 0, 0),
    "L": (-1, 0, 0),
    "F": (0, 0, 1),
    "B": (0, 0, -1),
}
CORNERS = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DBL", "DRB")
EDGES = ("UR", "UF", "UL", "UB", "DR", "DF", "DL", "DB", "FR", "FL", "BL", "BR")
#: The moves, in the order of their tags.
FACES = ("U", "R", "F", "D", "L", "B")

#: The default pattern tables: Korf's (1997) corners and two sets of six edges.
PATTERNS = (
    Pattern("corners", (("CORNERS", tuple(range(8))),)),
    Pattern("edges6a", (("EDGES", tuple(range(6))),)),
    Pattern("edges6b", (("EDGES", tuple(range(6, 12))),)),
)
#: Larger edge tables, seven edges each (510,935,040 positions: 12!/5! * 2^7), the two
#: overlapping at edges 6 and 7 (a search takes the larger of its tables' depths):
#: about 8 minutes of CPU and 1.8 GB of Parquet each (docs/SPECS.md).
SEVEN = (
    Pattern("edges7a", (("EDGES", tuple(range(7))),)),
    Pattern("edges7b", (("EDGES", tuple(range(5, 12))),)),
)


def _add(*vs: Vector) -> Vector:
    return (sum(v[0] for v in vs), sum(v[1] for v in vs), sum(v[2] for v in vs))


def _dot(a: Vector, b: Vector) -> int:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: Vector, b: Vector) -> Vector:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _det(a: Vector, b: Vector, c: Vector) -> int:
    return _dot(a, _cross(b, c))


def quarter(axis: Vector, v: Vector) -> Vector:
    """``v`` turned a quarter clockwise about ``axis``, seen from the axis's tip:
    ``v cos t + (a x v) sin t + a (a . v)(1 - cos t)`` at ``t = -90`` degrees."""
    c = _cross(axis, v)
    along = _dot(axis, v)
    return (-c[0] + axis[0] * along, -c[1] + axis[1] * along, -c[2] + axis[2] * along)


def facelets(name: str) -> tuple[Vector, ...]:
    """A position's facelets (normals): its reference facelet first, then a corner's
    other two clockwise (their determinant with it -1, as URF's U R F)."""
    normals = [NORMALS[f] for f in name]
    if len(normals) == 2:
        return tuple(normals)
    first, b, c = normals
    return (first, b, c) if _det(first, b, c) == -1 else (first, c, b)


def _part(names: tuple[str, ...], axis: Vector) -> Part:
    """One set's part of a face's quarter turn: each position's source, and the facelet
    its arriving piece's reference sticker lands on."""
    where = {_add(*(NORMALS[f] for f in n)): j for j, n in enumerate(names)}
    perm, twist = list(range(len(names))), [0] * len(names)
    for j, name in enumerate(names):
        cubie = _add(*(NORMALS[f] for f in name))
        if _dot(cubie, axis) <= 0:
            continue
        to = where[quarter(axis, cubie)]
        perm[to] = j
        twist[to] = facelets(names[to]).index(quarter(axis, facelets(name)[0]))
    return Part(tuple(perm), tuple(twist))


def definition() -> Definition:
    """The 3x3x3 cube's definition (its text written by tws.text_of)."""
    sets = (PieceSet("CORNERS", 8, 3), PieceSet("EDGES", 12, 2))
    solved = tuple(Part(tuple(range(1, s.pieces + 1)), (0,) * s.pieces) for s in sets)
    moves = tuple(
        MoveBlock(f, (_part(CORNERS, NORMALS[f]), _part(EDGES, NORMALS[f]))) for f in FACES
    )
    made = Definition("Cube3", sets, solved, moves, (), tws.turns_of(sets, list(moves)), (), "")
    text = "# The 3x3x3 cube, made by puzzledb from the cube's geometry (twisty/cube3.py).\n"
    return tws.parse(text + tws.text_of(made), "cube3")


@dataclass(frozen=True)
class Sticker:
    """One of the 54 stickers of the net: its face, and the piece position it belongs
    to (``kind`` 0: a corner of CORNERS, 1: an edge of EDGES, -1: the face's centre)
    and which of that position's facelets it is (:func:`facelets`' order)."""

    face: str
    kind: int
    position: int
    facelet: int


#: Each face's top-left sticker in the net, in stickers (column, row): U on top, then
#: L F R B in a row, D below (the pocket cube's net; its faces' frames: NET_FACES).
NET_ORIGIN = {"U": (3, 0), "L": (0, 3), "F": (3, 3), "R": (6, 3), "B": (9, 3), "D": (3, 6)}
_FACE_OF = {v: f for f, v in NORMALS.items()}


def _sticker(face: str, column: int, row: int) -> Sticker:
    """The sticker at (column, row) of a face (-1..1 each, as the net shows the face)."""
    normal, across, down = NET_FACES[face]
    cubie = tuple(n + column * a + row * d for n, a, d in zip(normal, across, down, strict=True))
    for kind, names in enumerate((CORNERS, EDGES)):
        for j, name in enumerate(names):
            if _add(*(NORMALS[f] for f in name)) == cubie:
                return Sticker(face, kind, j, facelets(name).index(normal))
    return Sticker(face, -1, -1, 0)


#: The stickers face by face (U R F D L B, Kociemba's facelet order), each face row by
#: row as the net shows it.
STICKERS = tuple(_sticker(f, c, r) for f in FACES for r in (-1, 0, 1) for c in (-1, 0, 1))
#: Each set's pieces as their home positions' faces, reference facelet first.
_HOMES = tuple(
    tuple("".join(_FACE_OF[v] for v in facelets(n)) for n in names) for names in (CORNERS, EDGES)
)


def colours(parts: tuple[Part, ...]) -> str:
    """The 54 sticker colours (each a face letter) of a position, in STICKERS order. A piece
    with orientation o shows its k-th sticker on its position's facelet o + k (a turn
    keeps a corner's facelets in clockwise order)."""
    out = []
    for s in STICKERS:
        if s.kind < 0:
            out.append(s.face)
            continue
        part = parts[s.kind]
        home = _HOMES[s.kind][part.perm[s.position] - 1]
        out.append(home[(s.facelet - part.twist[s.position]) % len(home)])
    return "".join(out)


def parts_of(text: str) -> tuple[Part, ...]:
    """A position typed as its 54 sticker colours (:func:`colours`' order); BadPosition
    naming the first piece no piece of the cube shows (whether it can be reached is
    the encoding's to say)."""
    seen = re.sub(r"[\s,]+", "", text).upper()
    centres = [j for j, s in enumerate(STICKERS) if s.kind < 0]
    wrong = [STICKERS[j].face for j in centres if seen[j] != STICKERS[j].face]
    if wrong:
        raise BadPosition(
            f"the {wrong[0]} face's centre shows {seen[centres[FACES.index(wrong[0])]]}: "
            "hold the cube with each centre on its own face (U R F D L B)"
        )
    parts = []
    for kind, names in enumerate((CORNERS, EDGES)):
        shows = {
            home[o:] + home[:o]: (label, (len(home) - o) % len(home))
            for label, home in enumerate(_HOMES[kind], 1)
            for o in range(len(home))
        }
        perm, twist = [], []
        for j, name in enumerate(names):
            at = [k for k, s in enumerate(STICKERS) if (s.kind, s.position) == (kind, j)]
            order = sorted(at, key=lambda k: STICKERS[k].facelet)
            read = "".join(seen[k] for k in order)
            if read not in shows:
                raise BadPosition(f"the piece at {name} shows {read}: no piece of the cube does")
            perm.append(shows[read][0])
            twist.append(shows[read][1])
        parts.append(Part(tuple(perm), tuple(twist)))
    return tuple(parts)


def net(text: str) -> str:
    """54 sticker letters as the net: U on top, L F R B in a row, D below."""
    rows = [[" "] * 12 for _ in range(9)]
    for i, (s, letter) in enumerate(zip(STICKERS, text, strict=True)):
        x0, y0 = NET_ORIGIN[s.face]
        rows[y0 + i % 9 // 3][x0 + i % 3] = letter
    return "\n".join(
        "  ".join(" ".join(r[k : k + 3]) for k in range(0, 12, 3)).rstrip() for r in rows
    )


class Cube3(TwistyPuzzle):
    """The 3x3x3 cube: a twisty puzzle drawn, typed and captioned as its 54 stickers."""

    def draw(self, state: int) -> str:
        return net(colours(self.decode(state)))

    def caption(self, state: int) -> str:
        """Its sticker colours face by face (U R F D L B, nine each)."""
        c = colours(self.decode(state))
        return " ".join(c[k : k + 9] for k in range(0, 54, 9))

    def parse(self, text: str) -> int:
        """54 sticker colours (the caption), or what any twisty puzzle reads."""
        letters = re.sub(r"[\s,]+", "", text).upper()
        if len(letters) == len(STICKERS) and set(letters) <= set(FACES):
            return self.encode(parts_of(letters))
        return super().parse(text)


#: The built-in puzzle (no table of its own) and its pattern tables.
CUBE3 = Cube3(
    definition(),
    "cube3",
    where="cube3",
    title="the 3x3x3 cube, half turns (solved by search over its pattern tables)",
    patterns=PATTERNS,
    stronger=((PATTERNS[0], *SEVEN),),
)
TABLES = tuple(TwistyPattern(CUBE3, p) for p in PATTERNS)
#: The seven-edge tables, built-in but not the cube's default (``cube3-pdb7``).
TABLES7 = tuple(TwistyPattern(CUBE3, p) for p in SEVEN)
