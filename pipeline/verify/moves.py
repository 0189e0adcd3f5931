"""Whether moves are the puzzle's: the two questions every check of a table asks.

Both expand with the puzzle's own ``expand`` (never the build's kernels), a
chunk of rows at a time, so checking a 22-million-row level stays small.
"""

from __future__ import annotations

import numpy as np

from pipeline.engine.core import Expander, absent


def present(states: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    return ~absent(states, sorted_set)


#: Rows expanded at a time, so that checking a 22-million-row level stays small.
CHUNK = 1 << 21


def one_move(expand: Expander, parents: np.ndarray, children: np.ndarray) -> np.ndarray:
    """For each row, whether ``children[i]`` is one move of ``expand`` from ``parents[i]``."""
    ok = np.zeros(len(children), dtype=bool)
    for lo in range(0, len(children), CHUNK):
        src, child = expand(parents[lo : lo + CHUNK])
        ok[lo + src[child == children[lo : lo + CHUNK][src]]] = True
    return ok


def missing(
    expand: Expander, states: np.ndarray, targets: list[np.ndarray]
) -> tuple[int, int | None]:
    """(count, first) of the moves out of ``states`` that land in none of ``targets``."""
    count, first = 0, None
    for lo in range(0, len(states), CHUNK):
        _, child = expand(states[lo : lo + CHUNK])
        miss = np.ones(len(child), dtype=bool)
        for t in targets:
            miss &= ~present(child, t)
        n = int(miss.sum())
        if n and first is None:
            first = int(child[np.flatnonzero(miss)[0]])
        count += n
    return count, first
