"""Peg boards up to symmetry: one canonical position a class (tables ``<board>-sym``).

The symmetries are those of the board's layout that fix the start hole,
found from the picture's geometry (symmetries.py): the 8 of the square for the
English and French boards and the 41-hole diamond from the centre and the left-right mirror for the
triangle from hole 12.

A class is stored once, as its smallest state (the canonical form), with the
number of distinct positions in it (``class_size``), so sums of class sizes
give the full table's counts. A move of the symmetric table is a jump out of
a canonical state, its child made canonical: the stored parent is canonical
too and one jump from some image of the child (what verify checks).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pipeline.engine.core import States
from pipeline.errors import BadPosition, UnknownPuzzle
from pipeline.puzzles.pegs import sym_check
from pipeline.puzzles.pegs.board import (
    DIAMOND41,
    ENGLISH33,
    FRENCH37,
    TRIANGLE15,
    Board,
    PegPuzzle,
    WinnablePuzzle,
    jump_between,
)
from pipeline.puzzles.pegs.symmetries import byte_tables, images, symmetries

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels
    from pipeline.storage.table import Table

#: The class-size column (public contract, data/README.md).
CLASS_SIZE = pa.field("class_size", pa.uint8(), nullable=False)
CLASS_SIZE_DOC = {"class_size": "uint8: positions in the symmetry class the state stands for"}


class PegSymPuzzle(PegPuzzle):
    """A peg board from its start, one canonical position a symmetry class."""

    def __init__(
        self,
        board: Board,
        *,
        expected_total: int | None = None,
        estimated_total: int | None = None,
        default: bool = False,
    ):
        super().__init__(board, name=f"{board.name}-sym", default=default)
        self.expected_total = expected_total
        self.estimated_total = estimated_total
        self.perms = symmetries(board, self.empty)
        self.title = (
            f"peg solitaire, {board.title}, start hole {self.empty} empty, in jumps, "
            f"one position per class of its {len(self.perms)} symmetries"
        )
        self.encoding += "; the smallest state of its symmetry class"
        self.extra_fields = (CLASS_SIZE,)
        self.extra_docs = CLASS_SIZE_DOC

    @cached_property
    def tables(self) -> np.ndarray:
        """The symmetries' byte tables, made on first use (not as the registry loads:
        every command would pay for the four boards')."""
        return byte_tables(self.perms)

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

    def moves_from(self, state: int) -> list[tuple[int, int]]:
        """Each jump out of ``state`` as made (not turned), and the class it reaches."""
        _, kids = PegPuzzle.expand(self, np.array([state], np.uint64))
        made = np.array(list(dict.fromkeys(int(k) for k in kids)), np.uint64)
        return [(int(a), int(b)) for a, b in zip(made, self.canonical(made), strict=True)]

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
        return sym_check.check_table(self, table)

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
        self.canonical = forward.canonical  # it stores classes too: a position's is its smallest
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
        return sym_check.check_table(self.sym, table)


def _sym_pair(
    board: Board, total: int | None = None, estimate: int | None = None
) -> tuple[PegSymPuzzle, WinnableSymPuzzle]:
    sym = PegSymPuzzle(board, expected_total=total, estimated_total=estimate)
    return sym, WinnableSymPuzzle(sym)


#: The symmetric tables: one line a board (its symmetries come from its picture).
SYM_PUZZLES: list[PegSymPuzzle | WinnableSymPuzzle] = [
    *_sym_pair(TRIANGLE15),
    *_sym_pair(ENGLISH33, 23_475_688),  # OEIS A112737
    *_sym_pair(FRENCH37),
    # The 8 symmetries of the square about hole 20. No published count holds its
    # classes: those of its first full build (docs/PUZZLES.md) give a build's time
    # left only.
    *_sym_pair(DIAMOND41, estimate=3_151_786_344),
]


def sym_name(name: str) -> str:
    """The symmetric table of a board (``--symmetry``): ``english33`` -> ``english33-sym``."""
    if name.endswith("-sym"):
        return name
    if not any(p.name == f"{name}-sym" for p in SYM_PUZZLES):
        boards = ", ".join(p.board.name for p in SYM_PUZZLES if isinstance(p, PegSymPuzzle))
        raise UnknownPuzzle(f"--symmetry: {name} has no symmetry classes (boards: {boards})")
    return f"{name}-sym"
