"""Peg boards up to symmetry: one canonical position a class (tables ``<board>-sym``).

The symmetries are those of the board's layout that fix the start hole,
found from the picture's geometry (:func:`symmetries`): every isometry of the
plane about the start hole (rotations by multiples of 30 degrees, mirrors at
multiples of 15) that maps the holes onto the holes and the jump lines onto
jump lines. That is the 8 of the square for the English and French boards
from the centre and the left-right mirror for the triangle from hole 12.

A class is stored once, as its smallest state (the canonical form), with the
number of distinct positions in it (``class_size``), so sums of class sizes
give the full table's counts. A move of the symmetric table is a jump out of
a canonical state, its child made canonical: the stored parent is canonical
too and one jump from some image of the child (what verify checks).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from pipeline.engine.core import States
from pipeline.errors import BadPosition, UnknownPuzzle
from pipeline.puzzles.pegs.board import (
    ENGLISH33,
    FRENCH37,
    TRIANGLE15,
    Board,
    PegPuzzle,
    WinnablePuzzle,
    jump_between,
)

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels
    from pipeline.storage.table import Table

#: The class-size column (public contract, data/README.md).
CLASS_SIZE = pa.field("class_size", pa.uint8(), nullable=False)
CLASS_SIZE_DOC = {"class_size": "uint8: positions in the symmetry class the state stands for"}


def _plane(board: Board) -> list[tuple[float, float]]:
    """Each hole's place in the plane: the picture scaled so every step has length 1."""
    horizontal = [dc for dr, dc in board.steps if dr == 0]
    sx = 1 / abs(horizontal[0]) if horizontal else 1.0
    dr, dc = next((dr, dc) for dr, dc in board.steps if dr != 0)
    sy = math.sqrt(max(0.0, 1 - (dc * sx) ** 2)) / abs(dr)
    return [(c * sx, r * sy) for r, c in board.holes]


def symmetries(board: Board, start: int) -> list[tuple[int, ...]]:
    """The symmetries fixing hole ``start``, each as the image of every hole (identity first)."""
    places = _plane(board)
    x0, y0 = places[start]
    rel = [(x - x0, y - y0) for x, y in places]
    jumps = {(f, t) for f, _, t in board.jumps}
    found: list[tuple[int, ...]] = []
    for k in range(12):
        a = math.pi * k / 6
        cos, sin = math.cos(a), math.sin(a)
        for mirror in (1, -1):
            moved = [(cos * x - sin * mirror * y, sin * x + cos * mirror * y) for x, y in rel]
            image = tuple(_hole_at(rel, u, v) for u, v in moved)
            if -1 in image or image in found:
                continue
            if {(image[f], image[t]) for f, t in jumps} == jumps:
                found.append(image)
    identity = tuple(range(board.count))
    return [identity, *(p for p in found if p != identity)]


def _hole_at(places: list[tuple[float, float]], u: float, v: float) -> int:
    """The hole at (u, v), or -1 (a symmetry moving a hole off the board)."""
    return next((i for i, (x, y) in enumerate(places) if abs(x - u) + abs(y - v) < 1e-6), -1)


def byte_tables(perms: Sequence[tuple[int, ...]], inverse: bool = False) -> np.ndarray:
    """``T[g, b, v]``: the image under symmetry g of byte b of a state holding value v
    (a permutation of bits is the OR of its bytes' images)."""
    n = len(perms[0])
    nbytes = (n + 7) // 8
    out = np.zeros((len(perms), nbytes, 256), np.uint64)
    for g, perm in enumerate(perms):
        to = [perm.index(i) for i in range(n)] if inverse else list(perm)
        for b in range(nbytes):
            for v in range(256):
                bits = 0
                for k in range(8):
                    if v >> k & 1 and 8 * b + k < n:
                        bits |= 1 << to[8 * b + k]
                out[g, b, v] = bits
    return out


def images(tables: np.ndarray, states: States) -> np.ndarray:
    """Every image of every state: shape (symmetries, states)."""
    out = np.zeros((tables.shape[0], len(states)), np.uint64)
    for b in range(tables.shape[1]):
        byte = ((states >> np.uint64(8 * b)) & np.uint64(255)).astype(np.intp)
        out |= tables[:, b, :][:, byte]
    return out


class PegSymPuzzle(PegPuzzle):
    """A peg board from its start, one canonical position a symmetry class."""

    def __init__(self, board: Board, *, expected_total: int | None = None, default: bool = False):
        super().__init__(board, name=f"{board.name}-sym", default=default)
        self.expected_total = expected_total
        self.perms = symmetries(board, self.empty)
        self.title = (
            f"peg solitaire, {board.title}, start hole {self.empty} empty, in jumps, "
            f"one position per class of its {len(self.perms)} symmetries"
        )
        self.encoding += "; the smallest state of its symmetry class"
        self.tables = byte_tables(self.perms)
        self.extra_fields = (CLASS_SIZE,)
        self.extra_docs = CLASS_SIZE_DOC

    @cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        """The packed kernels with canonical children (compiled on first use)."""
        from pipeline.puzzles.pegs.sym_moves import peg_sym_moves

        return peg_sym_moves(self.board.holes, self.board.jumps, self.perms)

    def canonical(self, states: States) -> States:
        """The smallest image of each state (compiled)."""
        from pipeline.puzzles.pegs.sym_moves import canonical_sizes

        return canonical_sizes(np.ascontiguousarray(states, np.uint64), self.tables)[0]

    def class_sizes(self, states: States) -> np.ndarray:
        """Distinct images of each state: the symmetries over those fixing it (compiled)."""
        from pipeline.puzzles.pegs.sym_moves import canonical_sizes

        return canonical_sizes(np.ascontiguousarray(states, np.uint64), self.tables)[1]

    def extra_columns(self, states: States) -> dict[str, np.ndarray]:
        """The columns a level file holds besides state, depth and parent."""
        return {"class_size": self.class_sizes(states)}

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Jumps out of each state, each child made canonical."""
        src, kids = super().expand(states)
        return src, self.canonical(kids)

    def variants(self, state: int) -> list[int]:
        """A typed position stands for its class: the canonical state."""
        return [int(self.canonical(np.array([state], np.uint64))[0])]

    def as_typed(self, state: int, line: list[int], forward: bool = False) -> list[int]:
        """A walk of canonical states from ``state``'s class, as positions one jump
        apart from ``state`` itself: each replaced by its image one jump before
        the position before it in the walk (a walk to the start), or one jump
        after it (``forward``: a winning line to the goal)."""
        out = [state]
        for c in line[1:]:
            imgs = [int(i) for i in images(self.tables, np.array([c], np.uint64))[:, 0]]
            pairs = [(out[-1], i) if forward else (i, out[-1]) for i in imgs]
            ok = [i for i, (a, b) in zip(imgs, pairs, strict=True) if _one_jump(self.board, a, b)]
            if not ok:
                raise BadPosition(f"{self.name}: the stored line breaks at {self.text(c)}")
            out.append(ok[0])
        return out

    def check_table(self, table: Table) -> tuple[list[str], list[str]]:
        """Verify's extra checks: every state canonical, every class size right."""
        from pipeline.puzzles.pegs.sym_check import check_table

        return check_table(self, table)

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "symmetries": [list(p) for p in self.perms]}


def _one_jump(board: Board, before: int, after: int) -> bool:
    try:
        jump_between(board, before, after)
    except BadPosition:
        return False
    return True


class WinnableSymPuzzle(WinnablePuzzle):
    """The classes of ``<board>-sym`` that can still be won (``<board>-sym-winnable``):
    reversed jumps from the goal, children made canonical, kept if the
    symmetric table holds them. The goal is fixed by every symmetry."""

    def __init__(self, forward: PegSymPuzzle, *, default: bool = False) -> None:
        super().__init__(forward, default=default)
        self.sym = forward
        self.extra_fields = forward.extra_fields
        self.extra_docs = forward.extra_docs
        self.class_sizes = forward.class_sizes
        self.extra_columns = forward.extra_columns

    def canonical_of(self, states: States) -> States:
        return self.sym.canonical(states)

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "symmetries": [list(p) for p in self.sym.perms]}

    def variants(self, state: int) -> list[int]:
        return self.sym.variants(state)

    def as_typed(self, state: int, line: list[int], forward: bool = False) -> list[int]:
        return self.sym.as_typed(state, line, forward)

    def check_table(self, table: Table) -> tuple[list[str], list[str]]:
        from pipeline.puzzles.pegs.sym_check import check_table

        return check_table(self.sym, table)


def _sym_pair(board: Board, total: int | None = None) -> list[Any]:
    sym = PegSymPuzzle(board, expected_total=total)
    return [sym, WinnableSymPuzzle(sym)]


#: The symmetric tables: one line a board (its symmetries come from its picture).
SYM_PUZZLES: list[Any] = [
    *_sym_pair(TRIANGLE15),
    *_sym_pair(ENGLISH33, 23_475_688),  # OEIS A112737
    *_sym_pair(FRENCH37),
]


def sym_name(name: str) -> str:
    """The symmetric table of a board (``--symmetry``): ``english33`` -> ``english33-sym``."""
    if name.endswith("-sym"):
        return name
    if not any(p.name == f"{name}-sym" for p in SYM_PUZZLES):
        boards = ", ".join(p.board.name for p in SYM_PUZZLES if isinstance(p, PegSymPuzzle))
        raise UnknownPuzzle(f"--symmetry: {name} has no symmetry classes (boards: {boards})")
    return f"{name}-sym"
