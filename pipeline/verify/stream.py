"""Verify's checks for a layered table, holding one level's states at a time.

In a layered puzzle every move goes exactly one level on (a peg board: a jump
removes a peg), so each check needs only two adjacent levels, and one of them
can be streamed. With level ``d``'s states held sorted in memory, level
``d - 1`` is streamed in chunks to check that every move out of it lands in
level ``d`` (closure), and level ``d + 1`` with its parents to check that
each parent is in level ``d`` and one legal move away. Memory: 8 bytes a state
of the widest level plus a few chunks' moves. french37's widest level (427
million states) is 3.4 GB held; the window of three levels with parents that
window.py holds would be some 18 GB.

The checks and their messages are window.py's (a closure's example may be
another of the moves that miss: the smallest, not the first made); the moves are the puzzle's own
``expand``, never the build's kernels. Membership is a merge: a chunk's moves
are radix-sorted and walked against the held level with a galloping search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
from numba import njit

from pipeline.engine import radix
from pipeline.engine.core import NO_PARENT, Level, absent
from pipeline.puzzles.base import Puzzle
from pipeline.storage.reader import LevelFiles
from pipeline.storage.table import Table
from pipeline.verify.levels import LevelChecks
from pipeline.verify.moves import one_move
from pipeline.verify.report import Report

#: Rows a chunk: a peg chunk's moves (about ten a state) stay near 160 MB.
CHUNK = 1 << 18
#: Chunks checked at once (one a thread).
THREADS = 2

R = TypeVar("R")


@njit(nogil=True, cache=True)
def _absent_sorted(needles, haystack):
    """(count, index of the first) of the sorted ``needles`` not in the sorted
    ``haystack``: one forward walk, galloping over the stretches no needle hits."""
    m = len(haystack)
    j = 0
    count = 0
    first = -1
    for i in range(len(needles)):
        x = needles[i]
        if j < m and haystack[j] < x:
            lo, step = j, 1  # haystack[lo] < x throughout
            hi = lo + 1
            while hi < m and haystack[hi] < x:
                lo = hi
                step *= 2
                hi = lo + step
            hi = min(hi, m)
            lo += 1
            while lo < hi:  # the first index in [lo, hi) whose value is >= x
                mid = (lo + hi) // 2
                if haystack[mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            j = lo
        if j >= m or haystack[j] != x:
            count += 1
            if first < 0:
                first = i
    return count, first


def absent_count(values: np.ndarray, held: np.ndarray) -> tuple[int, int | None]:
    """(how many, one of them) of ``values`` (uint64, any order; sorted in place) not
    in the sorted ``held``."""
    if len(values) == 0:
        return 0, None
    ordered = radix.sort_keys(values)
    count, first = _absent_sorted(ordered, held)
    return int(count), (int(ordered[first]) if count else None)


def _in_pairs(
    pool: ThreadPoolExecutor, fn: Callable[..., R], items: Iterable[tuple[object, ...]]
) -> Iterator[R]:
    """``fn(*item)`` for each item, :data:`THREADS` at a time (items read lazily)."""
    batch: list[tuple[object, ...]] = []
    for item in items:
        batch.append(item)
        if len(batch) == THREADS:
            yield from pool.map(lambda a: fn(*a), batch)
            batch = []
    yield from pool.map(lambda a: fn(*a), batch)


class Layered(LevelChecks):
    """The per-level checks of window.py, one level held at a time."""

    def __init__(self, puzzle: Puzzle, table: Table, report: Report) -> None:
        super().__init__(puzzle, table, report)
        self.pool = ThreadPoolExecutor(THREADS)

    def run(self, on_level: Callable[[int], None] | None) -> None:
        depths = [lv.depth for lv in self.table.manifest.levels]
        if not depths:
            return
        self._roots(self.table.level(depths[0]).read())
        with self.pool:
            for i, d in enumerate(depths):
                held = self._hold(self.table.level(d))
                if i:
                    self._closure(self.table.level(depths[i - 1]), held)
                if i + 1 < len(depths):
                    self._parents(self.table.level(depths[i + 1]), held)
                if on_level:
                    on_level(d)
                del held
            if self.table.manifest.partial_depth is None:  # nothing may lead past the last
                self._closure(self.table.level(depths[-1]), np.empty(0, np.uint64))

    def _roots(self, level: Level) -> None:
        """Depth 0 is the roots, without parents (no zero-cost move leads into it)."""
        is_root = level.parents == NO_PARENT
        if level.depth != 0 or not np.array_equal(level.states[is_root], self.roots):
            self.bad("depth 0: the rows without a parent are not exactly the puzzle's roots")
        others = np.flatnonzero(~is_root)
        if len(others):
            i = others[0]
            child, parent = int(level.states[i]), int(level.parents[i])
            self.bad(
                f"depth {level.depth}: {len(others)} parents are not one legal move up, "
                f"e.g. {self.puzzle.text(child)} <- {self.puzzle.text(parent)}"
            )

    def _hold(self, files: LevelFiles) -> np.ndarray:
        """The level's states in one array; counts and strict order checked on the way."""
        d = files.depth
        held = np.empty(len(files), np.uint64)
        at, last, ordered = 0, None, True
        for states, _, _ in files.chunks(4 * CHUNK):
            n = len(states)
            held[at : at + n] = states
            ordered &= bool(np.all(states[1:] > states[:-1])) and (
                last is None or n == 0 or bool(states[0] > last)
            )
            last = states[-1] if n else last
            at += n
        self.report.levels += 1
        self.report.positions += at
        if at != self.expected.get(d):
            self.bad(f"depth {d}: {at} rows, the manifest says {self.expected.get(d)}")
        if not ordered:
            self.bad(f"depth {d}: states not strictly increasing (a repeat or unsorted)")
        return held

    def _closure(self, files: LevelFiles, held: np.ndarray) -> None:
        """Every move out of ``files``' level lands in ``held`` (the next level)."""

        def moves(states: np.ndarray) -> tuple[int, int | None]:
            _, kids = self.puzzle.expand(states)
            return absent_count(kids, held)

        chunks = ((s,) for s, _, _ in files.chunks(CHUNK))
        count, example = 0, None
        for n, c in _in_pairs(self.pool, moves, chunks):
            count += n
            example = c if example is None else example
        if example is not None:  # one move at least
            self.bad(
                f"depth {files.depth}: {count} moves lead more than one level on "
                f"or out of the table, e.g. to {self.puzzle.text(example)}"
            )

    def _parents(self, files: LevelFiles, held: np.ndarray) -> None:
        """Every row of ``files``' level has a parent in ``held``, one legal move up."""
        orphans, wrong, example = 0, 0, None
        chunks = ((s, p) for s, p, _ in files.chunks(CHUNK, parents=True))
        for o, w, e in _in_pairs(self.pool, lambda s, p: self._rows(s, p, held), chunks):
            orphans, wrong = orphans + o, wrong + w
            example = e if example is None else example
        d = files.depth
        if orphans:
            self.bad(f"depth {d}: {orphans} rows without a parent")
        if example is not None:  # one wrong row at least
            child, parent = example
            self.bad(
                f"depth {d}: {wrong} parents are not one legal move up, "
                f"e.g. {self.puzzle.text(child)} <- {self.puzzle.text(parent)}"
            )

    def _rows(
        self, states: np.ndarray, parents: np.ndarray, held: np.ndarray
    ) -> tuple[int, int, tuple[int, int] | None]:
        """(rows without a parent, rows whose parent is wrong, one of those) of a chunk."""
        has = parents != NO_PARENT
        s, p = states[has], parents[has]
        legal = np.zeros(len(s), dtype=bool)
        up = np.ones(len(s), dtype=bool)
        if absent_count(p.copy(), held)[0]:  # rare: find which rows, the slow way
            up = ~absent(p, held)
        if self.puzzle.is_move is not None:
            legal[up] = self.puzzle.is_move(p[up], s[up])
        else:
            legal[up] = one_move(self.puzzle.expand, p[up], s[up])
        wrong = np.flatnonzero(~legal)
        example = (int(s[wrong[0]]), int(p[wrong[0]])) if len(wrong) else None
        return len(states) - len(s), len(wrong), example
