"""Verify's per-level checks with a window of the few levels around the one checked.

Every graph kind (zero-cost moves, path counts, general graphs) is checked
here; a layered table without those is streamed instead (stream.py).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pipeline.engine.core import (
    NO_PARENT,
    Expander,
    Graph,
    Level,
    States,
    absent,
    excluded_depths,
    merge_sorted,
)
from pipeline.engine.reference import step_counted
from pipeline.puzzles.base import Puzzle
from pipeline.storage.table import Table
from pipeline.verify.levels import LevelChecks
from pipeline.verify.moves import missing, one_move, present
from pipeline.verify.report import Report


def _acyclic(level: Level) -> bool:
    """Same-level parents (zero-cost moves) must lead out of the level, never round."""
    same = present(level.parents, level.states) & (level.parents != NO_PARENT)
    if not same.any():
        return True
    ptr = np.full(len(level), -1, dtype=np.int64)
    ptr[same] = np.searchsorted(level.states, level.parents[same])
    for _ in range(64):  # pointer doubling: 2^64 steps is beyond any level
        live = ptr >= 0
        if not live.any():
            return True
        nxt = np.full(len(ptr), -1, dtype=np.int64)
        nxt[live] = ptr[ptr[live]]
        ptr = nxt
    return False


#: States of the level above expanded at a time when path counts are checked.
PATHS_PIECE = 1 << 20


def _check_paths(
    puzzle: Puzzle, level: Level, up: Level | None, bad: Callable[[str], None]
) -> None:
    """Path counts: 1 at the roots, else the sum over every move from the level above."""
    d = level.depth
    if level.counts is None:
        bad(f"depth {d}: the table has a paths column but this level has none")
        return
    if d == 0 or up is None or up.counts is None:
        expected = np.ones(len(level), np.uint64)
    else:
        # The level above in pieces, so the moves of one piece are in memory at a
        # time; a piece's children are unique, so each adds its sums in place.
        expected = np.zeros(len(level), np.uint64)
        for a in range(0, len(up), PATHS_PIECE):
            piece = slice(a, a + PATHS_PIECE)
            kids, _, sums = step_counted(up.states[piece], puzzle.expand, [], up.counts[piece])
            assert sums is not None
            pos = np.searchsorted(level.states, kids)
            pos[pos == len(level)] = 0
            found = level.states[pos] == kids
            expected[pos[found]] += sums[found]
    wrong = np.flatnonzero(level.counts != expected)
    if len(wrong):
        i = int(wrong[0])
        bad(
            f"depth {d}: {len(wrong)} path counts wrong, e.g. {puzzle.text(int(level.states[i]))} "
            f"has {int(level.counts[i])}, the moves give {int(expected[i])}"
        )


class Windowed(LevelChecks):
    """The per-level checks, with the few levels around the one checked."""

    def __init__(self, puzzle: Puzzle, table: Table, report: Report) -> None:
        super().__init__(puzzle, table, report)
        self.window: dict[int, Level] = {}
        self.seen = np.empty(0, np.uint64)  # only for Graph.GENERAL

    def run(self, on_level: Callable[[int], None] | None) -> None:
        """Check every level, each with the one after it (for the closure) in hand."""
        levels = self.table.levels()
        nxt = next(levels, None)
        while nxt is not None:
            level, nxt = nxt, next(levels, None)
            self.level(level, nxt)
            if on_level:
                on_level(level.depth)

    def level(self, level: Level, nxt: Level | None) -> None:
        d = level.depth
        self.window = {k: v for k, v in self.window.items() if k >= d - 1}
        self.window[d] = level
        if nxt is not None:
            self.window[nxt.depth] = nxt
        self.report.levels += 1
        self.report.positions += len(level)
        self._rows(level)
        self._parents(level)
        if self.table.has_paths:
            _check_paths(self.puzzle, level, self.window.get(d - 1), self.bad)
        if d != self.table.manifest.partial_depth:  # the moves out of the last level built
            self._closure(level, nxt)

    def _rows(self, level: Level) -> None:
        """Counts, order, and roots exactly at depth 0."""
        d, s, p = level.depth, level.states, level.parents
        if len(s) != self.expected.get(d):
            self.bad(f"depth {d}: {len(s)} rows, the manifest says {self.expected.get(d)}")
        if len(s) > 1 and not bool(np.all(s[1:] > s[:-1])):
            self.bad(f"depth {d}: states not strictly increasing (a repeat or unsorted)")
        is_root = p == NO_PARENT
        if d == 0:
            if not np.array_equal(s[is_root], self.roots):
                self.bad("depth 0: the rows without a parent are not exactly the puzzle's roots")
        elif is_root.any():
            self.bad(f"depth {d}: {int(is_root.sum())} rows without a parent")

    def _parents(self, level: Level) -> None:
        """One cost-1 move from the level above, or a free move in this level."""
        d, s, p = level.depth, level.states, level.parents
        free = self.puzzle.expand_free
        has = p != NO_PARENT
        up = self.window.get(d - 1)
        from_above = has & (present(p, up.states) if up is not None else False)
        same = has & ~from_above
        legal = np.zeros(len(s), dtype=bool)
        legal[from_above] = one_move(self.puzzle.expand, p[from_above], s[from_above])
        if free is not None and same.any():
            inside = present(p[same], s)
            legal[np.flatnonzero(same)[inside]] = one_move(free, p[same][inside], s[same][inside])
            if not _acyclic(level):
                self.bad(f"depth {d}: zero-cost parents form a cycle")
        wrong = has & ~legal
        if wrong.any():
            i = int(np.flatnonzero(wrong)[0])
            self.bad(
                f"depth {d}: {int(wrong.sum())} parents are not one legal move up, "
                f"e.g. {self.puzzle.text(int(s[i]))} <- {self.puzzle.text(int(p[i]))}"
            )

    def _closure(self, level: Level, nxt: Level | None) -> None:
        """No move leads more than one level further (nor out of the table)."""
        d, s = level.depth, level.states
        if self.puzzle.graph is Graph.GENERAL:
            # a linear merge: numpy 2's hashed union1d is far slower on a large
            # table (docs/BENCHMARKS.md, figures behind the code)
            if len(s) < 2 or bool(np.all(s[1:] > s[:-1])):
                self.seen = merge_sorted(self.seen, s[absent(s, self.seen)])
            else:  # an unsorted level (reported above): the slow, robust way
                self.seen = np.union1d(self.seen, s)
            allowed = [self.seen] + ([nxt.states] if nxt is not None else [])
        else:
            near = [*excluded_depths(self.puzzle.graph, d), d + 1]
            allowed = [self.window[k].states for k in near if k in self.window]
        moves: list[tuple[Expander, list[States], str]] = [
            (self.puzzle.expand, allowed, "one level")
        ]
        if self.puzzle.expand_free is not None:
            same = [self.seen] if self.puzzle.graph is Graph.GENERAL else [s]
            moves.append((self.puzzle.expand_free, same, "zero levels"))
        for expand, targets, limit in moves:
            count, c = missing(expand, s, targets)
            if c is not None:  # one move at least
                self.bad(
                    f"depth {d}: {count} moves lead more than {limit} on "
                    f"or out of the table, e.g. to {self.puzzle.text(c)}"
                )
