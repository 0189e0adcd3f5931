"""The 2x2x2 pocket cube with the down-left-back corner held fixed.

Holding one corner fixed factors out the 24 orientations of the whole cube:
only the three faces away from it turn (U, R, F), and every position of the
cube is reached exactly once (3,674,160 = 7! * 3^6).

Two metrics, two registry names (public contract): ``pocket`` counts a
quarter or a half turn as one move (half-turn metric), ``pocket-qtm`` counts
quarter turns only. In the half-turn metric U, U and U2 close a triangle
(solved -> U -> U2 -> solved), so two positions of one level can be a move
apart: the graph is reversible, not bipartite. A quarter turn is a 4-cycle of
corners, an odd permutation, so in the quarter-turn metric every move flips
the parity of the corner permutation: that graph is bipartite and the parity
is the depth's.

Encoding (public contract): position i of the seven movable corner positions
``URF UFL ULB UBR DFR DLF DRB`` (i = 0..6) sits in bits 5i..5i+4 and holds
``3*c + o``: c the corner there (numbered like its home position) and o its
twist, the number of steps clockwise from the position's U/D facelet to the
facelet showing the corner's U/D colour. The fixed corner DBL is not stored.
Solved is ``sum(3*i << 5*i)``.

The codec is the generic :class:`Cells` one (7 cells of 5 bits), so the
catalog's macros work unchanged. A cell's symbol is the colours its position
shows, its U/D facelet first and then clockwise: ``URF`` at home, ``FUR``
twisted once. ``board()`` and the CLI print positions that way (``URF UFL ULB
UBR DFR DLF DRB`` is solved), and they may be typed that way too, or as 24
facelet colours (see :func:`PocketCube.parse`), or as turns from solved
(:meth:`PocketCube.from_moves`).

Longer than 300 lines: the whole family (geometry, turns, typed positions,
notation) in one place, as every family module is.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pipeline.answers import Origin
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Cells, Puzzle, parity

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels

Vec = tuple[int, int, int]

#: Faces in net order; each: outward normal, then the directions in which a
#: face's columns and rows run when it is seen from outside in the net below.
FACES: dict[str, tuple[Vec, Vec, Vec]] = {
    "U": ((0, 1, 0), (1, 0, 0), (0, 0, 1)),
    "R": ((1, 0, 0), (0, 0, -1), (0, -1, 0)),
    "F": ((0, 0, 1), (1, 0, 0), (0, -1, 0)),
    "D": ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
    "L": ((-1, 0, 0), (0, 0, 1), (0, -1, 0)),
    "B": ((0, 0, -1), (-1, 0, 0), (0, -1, 0)),
}
COLOURS = "".join(FACES)
#: Corner positions: the seven that move (cell i of the state), then the fixed one.
POSITIONS = ("URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DRB", "DBL")
MOVABLE = 7
FIXED = "DBL"
#: The net: each face's four facelets row by row (U: back row on top; D: front row on top).
NET = (
    "     {U0} {U1}\n"
    "     {U2} {U3}\n"
    "{L0} {L1}  {F0} {F1}  {R0} {R1}  {B0} {B1}\n"
    "{L2} {L3}  {F2} {F3}  {R2} {R3}  {B2} {B3}\n"
    "     {D0} {D1}\n"
    "     {D2} {D3}"
)
FACELETS = 24
BITS = 5
#: A turn token: a face letter, then nothing, 2 or ' (2' and the typographic \u2019 too).
_TURN = re.compile("^([A-Za-z])(2'?|'|\u2019|2\u2019)?$")


def _coords(f: int) -> Vec:
    """Facelet f's centre, doubled so that it is integer (face 2, offsets +-1)."""
    n, col, row = FACES[COLOURS[f // 4]]
    c, r = 2 * (f % 2) - 1, 2 * (f % 4 // 2) - 1
    return (
        2 * n[0] + c * col[0] + r * row[0],
        2 * n[1] + c * col[1] + r * row[1],
        2 * n[2] + c * col[2] + r * row[2],
    )


def _cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a: Vec, b: Vec) -> int:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


_AT = {_coords(f): f for f in range(FACELETS)}


def _corner_facelets(name: str) -> tuple[int, int, int]:
    """The facelets of a corner position: its U/D one first, then clockwise seen from outside."""
    sign = tuple(sum(FACES[c][0][a] for c in name) for a in range(3))
    mine = [
        f for f in range(FACELETS) if all(x * s > 0 for x, s in zip(_coords(f), sign, strict=True))
    ]
    first = next(f for f in mine if COLOURS[f // 4] in "UD")
    a, b = (f for f in mine if f != first)
    normal = [FACES[COLOURS[f // 4]][0] for f in (first, a, b)]
    # Clockwise seen from outside: the three normals form a left-handed triple.
    return (first, a, b) if _dot(normal[0], _cross(normal[1], normal[2])) < 0 else (first, b, a)


CORNER_FACELETS = tuple(_corner_facelets(p) for p in POSITIONS)
#: Each corner's colours from its U/D colour clockwise (its home position's facelets).
CORNER_COLOURS = tuple("".join(COLOURS[f // 4] for f in fs) for fs in CORNER_FACELETS)
#: Where each facelet sits: (corner position, step clockwise from its U/D facelet).
SLOT = {f: (p, k) for p, fs in enumerate(CORNER_FACELETS) for k, f in enumerate(fs)}


def _quarter_turn(face: str) -> list[int]:
    """A clockwise quarter turn of a face as a facelet map: the sticker on f moves to map[f]."""
    n = FACES[face][0]
    out = []
    for f in range(FACELETS):
        v = _coords(f)
        if _dot(v, n) <= 0:
            out.append(f)
            continue
        # Clockwise seen from outside: v -> -(n x v) + n (n . v).
        nv, d = _cross(n, v), _dot(n, v)
        out.append(_AT[(-nv[0] + n[0] * d, -nv[1] + n[1] * d, -nv[2] + n[2] * d)])
    return out


def _power(perm: list[int], k: int) -> list[int]:
    out = list(range(len(perm)))
    for _ in range(k):
        out = [perm[f] for f in out]
    return out


#: The turns of each metric, named in standard notation: (name, facelet map).
TURN_SUFFIX = {1: "", 2: "2", 3: "'"}


def turns(metric: str) -> list[tuple[str, list[int]]]:
    """The turns of a metric ("htm": quarter and half turns, "qtm": quarter turns)."""
    powers = (1, 2, 3) if metric == "htm" else (1, 3)
    return [(f + TURN_SUFFIX[k], _power(_quarter_turn(f), k)) for f in "URF" for k in powers]


def corner_effect(perm: Sequence[int]) -> tuple[list[int], list[int]]:
    """What a facelet map does to corners: (new position of each position's corner, twist added).

    Turns keep the clockwise order of a corner's facelets, so a corner's twist
    changes by the step at which its U/D facelet lands, whatever its twist.
    """
    dest, add = [], []
    for fs in CORNER_FACELETS[:MOVABLE]:
        p, k = SLOT[perm[fs[0]]]
        dest.append(p)
        add.append(k)
    return dest, add


def turn_table(perm: Sequence[int]) -> np.ndarray:
    """table[p, v]: the bits that cell value v at position p becomes after the turn.

    A child is the OR over the seven cells of ``table[p, cell p]`` (kernels and numpy alike).
    """
    dest, add = corner_effect(perm)
    table = np.zeros((MOVABLE, 1 << BITS), np.uint64)
    for p in range(MOVABLE):
        for v in range(3 * MOVABLE):
            c, o = divmod(v, 3)
            table[p, v] = (3 * c + (o + add[p]) % 3) << (BITS * dest[p])
    return table


def symbol(value: int) -> str:
    """The colours a position shows when it holds cell value ``3*c + o``."""
    c, o = divmod(value, 3)
    name = CORNER_COLOURS[c]
    return name[-o:] + name[:-o] if o else name


def _layout() -> str:
    """The net with ``{p[k]}`` for facelet k of cell p and the fixed corner's colours as text."""
    fields = {}
    for f in range(FACELETS):
        p, k = SLOT[f]
        fields[f"{COLOURS[f // 4]}{f % 4}"] = COLOURS[f // 4] if p == MOVABLE else f"{{{p}[{k}]}}"
    return NET.format(**fields)


CELLS = Cells(MOVABLE, BITS, tuple(symbol(v) for v in range(3 * MOVABLE)), _layout())
SOLVED = CELLS.encode([3 * i for i in range(MOVABLE)])


def apply(table: np.ndarray, state: int) -> int:
    """One turn (its :func:`turn_table`) applied to one state."""
    child = 0
    for p in range(MOVABLE):
        child |= int(table[p, (state >> (BITS * p)) & 31])
    return child


def _facelet_values(text: str) -> list[int]:
    """24 facelet colours (U R F D L B faces, 4 each, in net order) as the 7 cell values."""
    colours = re.sub(r"[\s,]+", "", text).upper()
    if len(colours) != FACELETS:
        hint = " (turns from solved? give --turns)" if _looks_like_turns(text) else ""
        raise BadPosition(
            f"expected {FACELETS} facelet colours (faces U R F D L B, 4 each) or the 7 "
            f"corners as board() prints them, got {len(colours)} facelets in {text.strip()!r}"
            + hint
        )
    odd = sorted(set(colours) - set(COLOURS))
    if odd:
        raise BadPosition(f"{odd[0]!r} is not a colour: use U R F D L B (each face's colour)")
    counts = {c: colours.count(c) for c in COLOURS}
    if set(counts.values()) != {4}:
        shown = ", ".join(f"{c} {n}" for c, n in counts.items() if n != 4)
        raise BadPosition(f"each colour must show on 4 facelets: {shown}")
    by_symbol = {symbol(v): v for v in range(3 * len(POSITIONS))}
    values = []
    for p, fs in enumerate(CORNER_FACELETS):
        seen = "".join(colours[f] for f in fs)
        if seen not in by_symbol:
            raise BadPosition(
                f"the corner at {POSITIONS[p]} shows {seen} (its U/D facelet, then clockwise): "
                "no corner has these colours in that order"
            )
        values.append(by_symbol[seen])
    _check_fixed(values)
    return values[:MOVABLE]


def _check_fixed(values: list[int]) -> None:
    """The fixed corner must sit at home untwisted: it is how the cube is held."""
    corners = [v // 3 for v in values]
    for c in range(len(POSITIONS)):
        if corners.count(c) > 1:
            where = " and ".join(POSITIONS[p] for p, x in enumerate(corners) if x == c)
            raise BadPosition(f"corner {CORNER_COLOURS[c]} shows twice, at {where}")
    home = len(POSITIONS) - 1
    if corners[home] != home:
        raise BadPosition(
            f"the fixed corner {FIXED} (colours D, B, L) is at {POSITIONS[corners.index(home)]}: "
            "hold the cube with it at down-back-left, D down (only U, R and F turn)"
        )
    if values[home] % 3:
        raise BadPosition(f"the fixed corner {FIXED} is twisted in place: hold it with D down")


def _looks_like_turns(text: str) -> bool:
    return all(_TURN.match(t) for t in text.split()) and bool(text.split())


def turn_names(text: str) -> list[str]:
    """A move sequence as turn names U U2 U' R ...; BadPosition names a token that is none."""
    names = []
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        m = _TURN.match(token)
        face = m.group(1) if m else ""
        if face in "DLB" and face:
            raise BadPosition(
                f"{token!r} turns the fixed corner {FIXED}: the pocket cube turns U, R and F only"
            )
        if face not in ("U", "R", "F") or m is None:
            raise BadPosition(
                f"{token!r} is not a turn: U, R or F, then nothing, 2 or ' (e.g. \"R U R' U'\")"
            )
        suffix = (m.group(2) or "").replace("\u2019", "'")
        names.append(face + ("2" if suffix.startswith("2") else suffix))
    return names


def _half_turns(names: list[str]) -> list[str]:
    """Two equal quarter turns in a row written as one half turn (still two moves in QTM)."""
    out: list[str] = []
    for n in names:
        if out and out[-1] == n:
            out[-1] = n[0] + "2"
        else:
            out.append(n)
    return out


class PocketCube(Puzzle):
    """The pocket cube in one metric, enumerated from solved."""

    cells = CELLS
    origin = Origin.GOAL
    root_texts = (CELLS.text(SOLVED),)
    encoding = (
        "corner positions URF UFL ULB UBR DFR DLF DRB (i = 0..6) in bits 5i..5i+4, "
        "each 3*corner + twist (corner numbered like its home position; twist = steps "
        "clockwise from the position's U/D facelet to the corner's U/D colour); DBL fixed"
    )
    expected_total = 3_674_160
    has_kernels = True
    typed_moves = True

    def __init__(self, name: str, metric: str, *, default: bool = False) -> None:
        self.name = name
        self.metric = metric
        self.default = default
        full = "half-turn metric" if metric == "htm" else "quarter-turn metric"
        self.title = f"2x2x2 pocket cube, corner DBL fixed, {full}"
        # A half turn closes a triangle with two quarter turns; a quarter turn is an odd
        # permutation of corners, so in quarter turns no move stays in a level.
        self.graph = Graph.REVERSIBLE if metric == "htm" else Graph.BIPARTITE
        named = turns(metric)
        self.turn_names = [n for n, _ in named]
        self.tables = np.stack([turn_table(perm) for _, perm in named])
        self.inverse = np.array(
            [next(j for j, (_, q) in enumerate(named) if _power(q, 3) == p) for _, p in named],
            np.int64,
        )
        self._all = {n: turn_table(p) for n, p in turns("htm")}

    @functools.cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        """The packed kernels (compiled on first use)."""
        from pipeline.puzzles.cube.moves import cube_moves

        return cube_moves(self.tables, self.inverse)

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        cells = [(states >> np.uint64(BITS * p)) & np.uint64(31) for p in range(MOVABLE)]
        kids = []
        for table in self.tables:
            child = table[0][cells[0]]
            for p in range(1, MOVABLE):
                child |= table[p][cells[p]]
            kids.append(child)
        src = np.tile(np.arange(len(states), dtype=np.intp), len(self.tables))
        return src, np.concatenate(kids) if kids else np.empty(0, np.uint64)

    def parse(self, text: str) -> int:
        """Facelet colours (24, net order) or the 7 corners as printed; see the module doc."""
        tokens = text.upper().split()
        if tokens and all(len(t) == 3 for t in tokens):
            values = CELLS.parse_values(text.upper())
        else:
            values = _facelet_values(text)
        self.check(values)
        return CELLS.encode(values)

    def check(self, values: list[int]) -> None:
        corners = [v // 3 for v in values]
        if sorted(corners) != list(range(MOVABLE)):
            twice = next((c for c in corners if corners.count(c) > 1), None)
            name = CORNER_COLOURS[twice] if twice is not None else "?"
            raise BadPosition(f"each of the 7 movable corners must show once: {name} shows twice")
        twist = sum(v % 3 for v in values) % 3
        if twist:
            raise BadPosition(
                f"the twists sum to {twist} (mod 3): a corner is twisted in place, "
                "no turns reach this position"
            )

    def from_moves(self, text: str) -> int:
        """The position a move sequence reaches from solved (U2 allowed in either metric)."""
        state = SOLVED
        for name in turn_names(text):
            state = apply(self._all[name], state)
        return state

    pieces_word = "corners"

    def relabelled(self, a: int, b: int) -> tuple[int, int, list[str]] | None:
        """The corners renamed so that ``b`` is solved: the corner at position i of
        ``b`` with twist t is called i, its twists counted from t. A turn adds the same
        twist to whichever corner it moves, so the renaming commutes with every turn:
        the distance from ``a`` to ``b`` is the renamed ``a``'s depth in this table."""
        home = {v // 3: (i, v % 3) for i, v in enumerate(CELLS.values(int(b)))}
        renamed = [3 * home[v // 3][0] + (v % 3 - home[v // 3][1]) % 3 for v in CELLS.values(a)]
        return CELLS.encode(renamed), SOLVED, [self.name]

    def facelets(self, state: int) -> str:
        """The 24 facelet colours in net order (the typed form)."""
        symbols = [CELLS.symbols[v] for v in CELLS.values(int(state))] + [CORNER_COLOURS[-1]]
        return "".join(symbols[SLOT[f][0]][SLOT[f][1]] for f in range(FACELETS))

    def turn_between(self, a: int, b: int) -> str:
        """The turn of this metric that takes ``a`` to ``b``; BadPosition if none does."""
        for name, table in zip(self.turn_names, self.tables, strict=True):
            if apply(table, a) == b:
                return name
        raise BadPosition("two positions of the line are not one turn apart")

    def notation(self, states: Sequence[int]) -> str:
        """The turns from the first state to the last, e.g. ``R U2 F'``."""
        names = [self.turn_between(int(a), int(b)) for a, b in itertools.pairwise(states)]
        return " ".join(_half_turns(names) if self.metric == "qtm" else names)

    def depth_parity(self, state: int) -> int | None:
        if self.metric != "qtm":
            return None
        return parity([v // 3 for v in CELLS.values(int(state))])

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "metric": self.metric,
            "turns": self.turn_names,
            "fixed_corner": FIXED,
            "positions": list(POSITIONS[:MOVABLE]),
            "facelet_order": "U R F D L B, 4 each, row by row as in the net (drawing)",
        }


POCKET = PocketCube("pocket", "htm", default=True)
POCKET_QTM = PocketCube("pocket-qtm", "qtm", default=True)
