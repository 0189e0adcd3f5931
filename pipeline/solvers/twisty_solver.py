"""A twisty puzzle too large to tabulate, solved by search: the search over its built
pattern tables (twisty_search.py), a position checked against the group first, the
solution as the positions along it.

Each pattern table is read in place (its derived look-up array, memory-mapped:
twisty_tables.py), and looked up again on conjugates of the position by the
puzzle's symmetries where that bounds more pieces (twisty_search.symmetric).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pipeline.answers import MethodSolution, Origin, SearchProgress
from pipeline.errors import BadPosition, Unsolvable
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.twisty import group
from pipeline.puzzles.twisty.board import TwistyPuzzle
from pipeline.solvers import twisty_layout, twisty_search
from pipeline.storage.table import Table

#: Look-ups on conjugates of each table that keeps some pieces alike.
SYMMETRIC = 2


class PuzzleSearch:
    """The optimal solutions of one puzzle's positions, over its pattern tables."""

    def __init__(self, p: Puzzle, patterns: Sequence[tuple[Puzzle, Table]]) -> None:
        """``patterns``: each pattern table's puzzle and its built table (storage)."""
        self.puzzle = _twisty(p)
        d, turns = self.puzzle.definition, self.puzzle.turns
        found = [
            twisty_search.pattern_table(d, turns, q.definition, q.turns, stored)
            for q, stored in ((_twisty(q), t) for q, t in patterns)
        ]
        syms = group.symmetries(d, turns)
        lay = twisty_layout.layout(d)
        found += twisty_search.symmetric(lay, found, syms, SYMMETRIC)
        self.tables = tuple(q.name for q, _ in patterns)
        self.search = twisty_search.TwistySearch(d, turns, found)

    def solve(
        self, state: int, on_progress: Callable[[SearchProgress], None] | None = None
    ) -> MethodSolution:
        """An optimal solution of the position, proven so (IDA*, admissible tables)."""
        p = self.puzzle
        check(p, state)
        found = self.search.solve(p.decode(state), on_progress)
        if found is None:
            raise Unsolvable(f"{p.text(state)}: no solution within {twisty_search.MAX_DEPTH} moves")
        states = [state]
        for name in found.turns:
            states.append(p.apply(states[-1], p.by_name[name]))
        return MethodSolution(
            p.name,
            Origin.GOAL,
            states,
            [p.text(s) for s in states],
            notation=" ".join(found.turns),
            method="search",
            nodes=found.nodes,
            seconds=found.seconds,
            heuristic=", ".join(self.tables),
        )


def check(p: Puzzle, state: int) -> None:
    """BadPosition in one line when no sequence of moves reaches the position (a piece
    twisted in place, two swapped, ...: group.py's reason)."""
    t = _twisty(p)
    why = group.why_not(t.definition, t.turns, t.decode(state))
    if why is not None:
        raise BadPosition(f"{t.text(state)} is not a position of {t.name}: {why}")


def _twisty(p: Puzzle) -> TwistyPuzzle:
    if not isinstance(p, TwistyPuzzle):
        raise TypeError(f"{p.name} is not a twisty puzzle")
    return p
