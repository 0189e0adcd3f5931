"""The states seen so far by a general graph's build, grown in place.

A general graph checks each new level against every level before it, so the
build keeps every state seen as one sorted array. Merging a level into a new
array held the old one and the new one at once (with numpy's temporaries):
english33-moves' 187 million boards peaked at 4.37 GB in a 3GB budget. Here
the array sits at the front of one buffer reserved up front (pages never
written are never touched, so a reservation as large as the memory budget
costs nothing until filled), and a level is merged in from the back, each
state moved once and nothing allocated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from pipeline.engine.core import States


class Seen:
    """A sorted set of states, grown by merging in sorted runs of new ones."""

    def __init__(self, reserve: int = 0) -> None:
        """``reserve``: bytes to set aside for growth (the memory budget)."""
        try:
            self._buffer = np.empty(max(reserve // 8, 1024), np.uint64)
        except MemoryError:  # a system that commits memory as it is reserved
            self._buffer = np.empty(1024, np.uint64)
        self._n = 0

    def __len__(self) -> int:
        return self._n

    @property
    def states(self) -> States:
        """The states seen, sorted (a view, valid until the next :meth:`add`)."""
        return self._buffer[: self._n]

    def add(self, runs: Sequence[States]) -> None:
        """Merge in new states: sorted runs, each above the one before, none seen."""
        total = sum(len(r) for r in runs)
        if self._n + total > len(self._buffer):  # past the reservation: grow, copying
            bigger = np.empty(max(2 * len(self._buffer), self._n + total), np.uint64)
            bigger[: self._n] = self._buffer[: self._n]
            self._buffer = bigger
        rest, end = self._n, self._n + total
        for run in reversed(runs):
            rest, end = _merge_back(self._buffer, rest, run, end)
        self._n += total


@njit(nogil=True, cache=True)
def _merge_back(buffer, rest, run, end):
    """Merge ``run`` into ``buffer[:rest]`` from the back, writing down from ``end``:
    stops when the run is placed. Returns the old states not yet moved and where
    the writing stopped (the next, lower run continues from there)."""
    i = rest - 1
    w = end - 1
    for j in range(len(run) - 1, -1, -1):
        v = run[j]
        while i >= 0 and buffer[i] > v:
            buffer[w] = buffer[i]
            i -= 1
            w -= 1
        buffer[w] = v
        w -= 1
    return i + 1, w + 1
