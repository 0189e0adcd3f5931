"""Peg boards counted in moves, the state being the board alone (``english33-moves``).

A move is a run of jumps by one peg, so a move out of a board is every board
one peg reaches by a chain of one or more jumps (chain_moves.py walks the
chains, compiled). The depth is then the fewest moves to the board, one row a
board, as George Bell counts them. Moves remove one peg or more, so a board
may be reached at several depths: the graph is general (a new level is
checked against every level before it).

Why not the state triangle15-moves keeps (board plus the hole the last jump
landed in, continuing jumps costing nothing): it stores several states a board
(13,235 rows for triangle15's 4,237 boards; on the English board 1.05, 1.29,
1.49 states a board within 3, 4, 5 moves, growing), needs a view to give one
depth a board, and closes each level under its zero-cost moves in rounds
(executors/closing.py); the chains cost a compiled walk a board and use the
packed, budgeted step as it is (docs/PEG_MOVES.md).

``<board>-moves-winnable`` counts the other way: the fewest moves from every
board that can reach one peg in the centre, enumerated backwards from the goal
by reversed moves (George Bell's B(-n); his "at most 20 moves" is over these
boards). A reversed jump of a board is a jump of its complement, so these are
the complements of the boards the start reaches, as many. Its depth is the
moves left and a parent is the board one move nearer the goal.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from pipeline.answers import Origin
from pipeline.engine.core import Graph, States
from pipeline.errors import BadPosition
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.pegs.board import ENGLISH33_JUMPS, TRIANGLE15_JUMPS, Board, PegPuzzle

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels


def chain_between(board: Board, before: int, after: int) -> list[int]:
    """The holes one peg visits to turn ``before`` into ``after`` in one move."""
    nxt: dict[int, list[tuple[int, int]]] = {}
    for f, o, t in board.jumps:
        nxt.setdefault(f, []).append((o, t))
    for f in range(board.count):
        if not before >> f & 1:
            continue
        todo = [(before, [f])]
        while todo:
            b, holes = todo.pop()
            for o, t in nxt.get(holes[-1], []):
                if b >> o & 1 and not b >> t & 1:
                    nb = b ^ (1 << holes[-1]) ^ (1 << o) ^ (1 << t)
                    if nb == after:
                        return [*holes, t]
                    todo.append((nb, [*holes, t]))
    raise BadPosition("two positions of the line are not one move apart")


class PegChainPuzzle(PegPuzzle):
    """A peg board in moves, the state the board alone: a move is a chain of one peg's jumps."""

    graph = Graph.GENERAL
    step_word = "move"

    def __init__(self, board: Board, *, name: str, expected_total: int | None = None) -> None:
        super().__init__(board, name=name, expected_total=expected_total)
        self.title = (
            f"peg solitaire, {board.title}, start hole {self.empty} empty, "
            "in moves (a run of jumps by one peg), one row a board"
        )
        self.solved_by = name  # its own table: the walk is a fewest-moves line from the start

    @property
    def winnable_name(self) -> str:
        return f"{self.name}-winnable"

    @cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        from pipeline.puzzles.pegs.chain_moves import chain_kernels

        return chain_kernels(self.board.holes, self.board.jumps)

    @cached_property
    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        from pipeline.puzzles.pegs.chain_moves import jump_table

        return jump_table(self.board.count, self.board.jumps)

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Every board one peg's chain of jumps reaches, once a source."""
        from pipeline.puzzles.pegs.chain_moves import chain_rows

        src, kid = chain_rows(np.ascontiguousarray(states, np.uint64), *self._table, False)
        return src.astype(np.intp), kid

    def notation(self, states: Sequence[int]) -> str:
        """One group a move: ``(3,10,12,3)`` is one peg jumping 3->10->12->3."""
        groups = [chain_between(self.board, a, b) for a, b in itertools.pairwise(states)]
        return "".join("(" + ",".join(map(str, g)) + ")" for g in groups)

    def moves_in(self, states: Sequence[int]) -> int:
        return len(states) - 1

    def describe(self) -> dict[str, object]:
        return {**super().describe(), "move": "a chain of jumps by one peg"}


class ChainWinnablePuzzle(Puzzle):
    """The fewest moves to the goal from every board that can reach it, by reversed moves."""

    graph = Graph.GENERAL
    origin = Origin.GOAL
    step_word = "move"
    has_kernels = True

    def __init__(self, forward: PegChainPuzzle, expected_total: int | None = None) -> None:
        self.forward = forward
        self.name = forward.winnable_name
        self.title = f"boards of {forward.board.name} that can still be won (fewest moves left)"
        self.cells = forward.cells
        self.root_texts = (forward.text(forward.goal),)
        self.encoding = forward.encoding
        self.state_bits = forward.state_bits
        self.expected_total = expected_total

    @cached_property
    def kernels(self) -> Kernels | None:  # type: ignore[override]
        from pipeline.puzzles.pegs.chain_moves import chain_kernels

        return chain_kernels(self.forward.board.holes, self.forward.board.jumps, reverse=True)

    def expand(self, states: States) -> tuple[np.ndarray, States]:
        """Reversed moves: one peg's chain of reversed jumps (each fills the hole it passes)."""
        from pipeline.puzzles.pegs.chain_moves import chain_rows

        src, kid = chain_rows(np.ascontiguousarray(states, np.uint64), *self.forward._table, True)
        return src.astype(np.intp), kid

    def describe(self) -> dict[str, object]:
        return {
            **super().describe(),
            "board": self.forward.board.name,
            "derived_from": self.forward.name,
            "kind": "winnable",
            "jumps": [list(j) for j in self.forward.board.jumps],
        }

    def notation(self, states: Sequence[int]) -> str:
        return self.forward.notation(states)

    def moves_from(self, state: int) -> list[tuple[int, int]]:
        """The game's moves from a board: one peg's chains of jumps (the table's own
        moves are reversed ones, from the goal back)."""
        return self.forward.moves_from(state)


def _pair(jumps: PegPuzzle, name: str = "") -> list[Puzzle]:
    """The board in moves (every board the start reaches: as many rows as in jumps)
    and the boards that can reach the goal: as many again, when the goal (one peg
    where the start's hole is) is the start's complement, since a reversed jump
    of a board is a jump of its complement."""
    board = jumps.board
    total = jumps.expected_total
    forward = PegChainPuzzle(board, name=name or f"{board.name}-moves", expected_total=total)
    return [forward, ChainWinnablePuzzle(forward, total)]


#: The English board in moves and its winnable boards; the triangle's pair is the
#: small cross-check (triangle15-moves, the other formulation, is its reference).
PUZZLES: list[Puzzle] = [
    *_pair(ENGLISH33_JUMPS),
    *_pair(TRIANGLE15_JUMPS, "triangle15-chains"),
]
TRIANGLE15_CHAINS = PUZZLES[2]
