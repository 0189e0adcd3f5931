"""What every part of the engine shares: states, levels, graph kinds and the sorted-set helpers.

A state is one uint64. A level is the sorted unique states at one depth with,
row for row, the smallest parent of each. The graph a puzzle declares decides
which finished levels a new level is checked against (Korf's frontier search):
:func:`excluded_depths` is that rule, used by the reference search, the build
loop and verify alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

States = NDArray[np.uint64]
#: Maps an array of states to the moves out of them as ``(src, child)``:
#: ``src[k]`` indexes the input array, ``child[k]`` is the state one move away.
Expander = Callable[[States], tuple[NDArray[np.intp], States]]
#: Takes a run of a new level's rows (states, parents, path counts or None), each run
#: above the last; returns whether it copied them (True: the step may reuse the
#: arrays) or kept them (the step must not write them again).
Sink = Callable[[States, States, "States | None"], bool]

#: Internal marker for "no parent" (a root). Written as null in Parquet.
NO_PARENT = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


class Graph(StrEnum):
    """How moves relate depths; decides which levels a new level is checked against."""

    BIPARTITE = "bipartite"  # reversible, no move inside a level: previous level only
    REVERSIBLE = "reversible"  # reversible: previous and current level
    LAYERED = "layered"  # depth fixed by the state: nothing
    GENERAL = "general"  # anything: every level seen so far


def excluded_depths(graph: Graph, depth: int) -> list[int]:
    """The finished levels a new level after ``depth`` is checked against.

    The same depths, plus ``depth + 1``, are where a move out of level ``depth``
    may land (what verify checks).
    """
    if graph is Graph.BIPARTITE:
        return [depth - 1] if depth > 0 else []
    if graph is Graph.REVERSIBLE:
        return [d for d in (depth - 1, depth) if d >= 0]
    if graph is Graph.LAYERED:
        return []
    return list(range(depth + 1))


@dataclass(frozen=True)
class Level:
    """One depth: sorted unique states and, row for row, the parent of each.

    ``counts`` (optional, the ``paths`` column on disk) counts, row for row,
    the distinct move sequences from the roots that reach the state along
    shortest paths.
    """

    depth: int
    states: States
    parents: States
    counts: States | None = None

    def __len__(self) -> int:
        return len(self.states)


def unique(states: States) -> States:
    """The distinct values, sorted. numpy 2.4's ``np.unique`` hashes integers and
    was 50 times slower than this on 110,000 keys (24 ms against 0.5 ms)."""
    s = np.sort(states)
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def absent(states: States, sorted_set: States) -> NDArray[np.bool_]:
    """Mask of the states not in ``sorted_set`` (a sorted array)."""
    if len(sorted_set) == 0 or len(states) == 0:
        return np.ones(len(states), dtype=bool)
    pos = np.searchsorted(sorted_set, states)
    pos[pos == len(sorted_set)] = 0
    return sorted_set[pos] != states


def merge_sorted(a: States, b: States) -> States:
    """Union of two disjoint sorted arrays, sorted.

    A linear merge (the place of each ``b`` in the result is its rank in ``a``
    plus its own index), not a sort: verify's and the reference search's states
    seen grow to tens of millions. A build grows its own in place (seen.py).
    """
    if len(b) == 0:
        return a
    if len(a) == 0:
        return b
    pos = np.searchsorted(a, b)
    pos += np.arange(len(b), dtype=pos.dtype)
    out = np.empty(len(a) + len(b), dtype=np.uint64)
    rest = np.ones(len(out), dtype=bool)
    rest[pos] = False
    out[pos] = b
    out[rest] = a
    return out


def resolve_sorted(
    child: States,
    parent: NDArray,
    counts: States | None,
    exclude: Sequence[States] = (),
) -> tuple[States, NDArray, States | None]:
    """Moves ordered by child to (unique children, smallest ``parent`` of each, their
    path counts), minus the children found in ``exclude`` (sorted arrays).

    ``parent`` is any column to take the minimum of (parent states, or indices
    into a sorted frontier); ``counts``, each move's parent's path count. A
    child's count is the sum over every move into it, not only the kept parent;
    past 64 bits it raises OverflowError.
    """
    if len(child) == 0:
        empty = np.empty(0, np.uint64)
        return empty, parent[:0], (empty if counts is not None else None)
    starts = np.flatnonzero(np.concatenate(([True], child[1:] != child[:-1])))
    children = child[starts]
    best = np.minimum.reduceat(parent, starts)
    keep = np.ones(len(children), dtype=bool)
    for done in exclude:
        keep &= absent(children, done)
    out = None
    if counts is not None:
        approx = np.add.reduceat(counts.astype(np.float64), starts)[keep]
        if len(approx) and approx.max() >= 2.0**64 * 0.999:
            raise OverflowError("path counts pass 64 bits")
        out = np.add.reduceat(counts, starts)[keep]
    return children[keep], best[keep], out
