"""Dense search: when the states are the numbers 0..N-1, levels by bitmaps instead of sorts.

A puzzle whose encoding fills a range (the twisty puzzles' ranks) can be
searched the way twsearch's ``-g`` does it: a bit a state for "seen", a bit
for the frontier and a bit for the next level, and one byte a state for the
move that first reached it (the parent follows: the child moved back). No
sort, no merge: a level step reads each frontier state's moves' children's
bits, at memory speed.

The rows are the sorting path's, to the bit: the frontier is read in
increasing order and a child keeps the first move that reaches it, so its
parent is its smallest one in the frontier. When the frontier is larger than
what is left unseen, the step runs backwards (twsearch's trick): each unseen
state looks for its parents in the frontier, and keeps the smallest.

The puzzle brings three compiled kernels with :func:`forward_core`,
:func:`backward_core` and :func:`rows_core` inlined, naming its own
``children(s, out, args)`` (each move's child of ``s``, ``~0`` where a move is
blocked), ``parents(c, out, args)`` (``c`` moved back by each move's inverse)
and ``undo(c, t, args)`` (``c`` moved back by move t's inverse), as
engine/packed.py's kernels name their ``undo``. The build loop runs the
levels (:class:`Search`), in one thread: the level files are written by the
writers beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from pipeline.engine.packed import BIT_INDEX, bit_position

_ALL = ~np.uint64(0)


#: ``move`` of a state no move reached in this search (a root, a resumed level's).
NO_MOVE = 255


@dataclass(frozen=True)
class Dense:
    """A puzzle's moves over dense states ``0 .. size - 1`` (module docstring).

    ``groups[t]``: the group of move t, when its group is closed (two of its moves
    in a row make one of them or none: the powers F, F2, F' of one turn), else -1.
    A state reached by a move of a group never makes a new state by another
    (its parent makes it in one move), so the forward step skips them: 3 moves
    of 18 on the 2x2x2 cube. Each child keeps its smallest parent all the same:
    the moves skipped reach no new state.
    """

    size: int
    moves: int
    forward: Any
    backward: Any
    rows: Any
    args: tuple[Any, ...]
    groups: np.ndarray

    def bytes(self) -> int:
        return search_bytes(self.size)


def search_bytes(size: int) -> int:
    """Memory a search of ``size`` states takes: three bitmaps and a byte a state."""
    return 3 * ((size + 63) // 64) * 8 + size


@njit(inline="always")
def forward_core(frontier, seen, nxt, move, kids, groups, bit_index, children, args):
    """The next level from the frontier's moves: each unseen child marked in ``seen``
    and ``nxt`` with the move that reached it first; returns how many (``kids``: room
    for a state's children; ``groups``: see :class:`Dense`)."""
    count = 0
    for w in range(len(frontier)):
        word = frontier[w]
        while word:
            low = word & (~word + np.uint64(1))
            word ^= low
            s = np.uint64(w * 64 + bit_position(low, bit_index))
            last = move[s]
            group = groups[last] if last != NO_MOVE and groups[last] >= 0 else -2
            children(s, kids, args)
            for t in range(len(kids)):
                if groups[t] == group:
                    continue
                c = kids[t]
                if c == _ALL:
                    continue
                cw = c >> np.uint64(6)
                cb = np.uint64(1) << (c & np.uint64(63))
                if not seen[cw] & cb:
                    seen[cw] |= cb
                    nxt[cw] |= cb
                    move[c] = t
                    count += 1
    return count


@njit(inline="always")
def backward_core(frontier, seen, nxt, move, size, kids, bit_index, parents, args):
    """The next level from the states not seen: each keeps its smallest parent in the
    frontier (``move``: the move from it); returns how many."""
    count = 0
    words = len(seen)
    for w in range(words):
        word = ~seen[w]
        if w == words - 1 and size % 64:
            word &= (np.uint64(1) << np.uint64(size % 64)) - np.uint64(1)
        found = np.uint64(0)
        while word:
            low = word & (~word + np.uint64(1))
            word ^= low
            c = np.uint64(w * 64 + bit_position(low, bit_index))
            parents(c, kids, args)
            best = _ALL
            bt = -1
            for t in range(len(kids)):
                p = kids[t]  # a blocked move reads as ~0: never below best
                if p < best and frontier[p >> np.uint64(6)] & (np.uint64(1) << (p & np.uint64(63))):
                    best = p
                    bt = t
            if bt >= 0:
                found |= low
                move[c] = bt
                count += 1
        nxt[w] |= found
        seen[w] |= found
    return count


@njit(inline="always")
def rows_core(nxt, move, pos, states, parents, bit_index, undo, args):
    """The level's rows from bit ``pos`` on, in increasing order, until ``states`` is
    full: (the bit to go on from, rows written)."""
    m = 0
    w = pos >> 6
    word = nxt[w] & (_ALL << np.uint64(pos & 63)) if w < len(nxt) else np.uint64(0)
    while w < len(nxt):
        while word:
            if m == len(states):
                low = word & (~word + np.uint64(1))
                return w * 64 + bit_position(low, bit_index), m
            low = word & (~word + np.uint64(1))
            word ^= low
            c = np.uint64(w * 64 + bit_position(low, bit_index))
            states[m] = c
            parents[m] = undo(c, np.int64(move[c]), args)
            m += 1
        w += 1
        if w < len(nxt):
            word = nxt[w]
    return w * 64, m


class Search:
    """One dense search: the bitmaps and the move bytes, level after level."""

    def __init__(self, dense: Dense) -> None:
        self.dense = dense
        words = (dense.size + 63) // 64
        self.seen = np.zeros(words, np.uint64)
        self.frontier = np.zeros(words, np.uint64)
        self.next = np.zeros(words, np.uint64)
        self.move = np.zeros(dense.size, np.uint8)
        self.seen_count = 0

    def mark(self, states: np.ndarray, frontier: bool) -> None:
        """States found before (the roots, or a resumed build's levels)."""
        words = (states >> np.uint64(6)).astype(np.intp)
        bits = np.uint64(1) << (states & np.uint64(63))
        np.bitwise_or.at(self.seen, words, bits)
        self.move[states.astype(np.intp)] = NO_MOVE
        if frontier:
            np.bitwise_or.at(self.frontier, words, bits)
        self.seen_count += len(states)

    def backward(self, frontier_size: int) -> bool:
        """Whether the next step runs backwards: fewer states left unseen than in the
        frontier (each then looks for a parent, where a frontier state looks for children)."""
        return self.dense.size - self.seen_count < frontier_size

    def step(self, frontier_size: int) -> int:
        """The next level into ``self.next``; its size."""
        d = self.dense
        self.next.fill(0)
        if self.backward(frontier_size):
            args = (self.frontier, self.seen, self.next, self.move, np.uint64(d.size))
            found = d.backward(*args, BIT_INDEX, d.args)
        else:
            args = (self.frontier, self.seen, self.next, self.move, d.groups)
            found = d.forward(*args, BIT_INDEX, d.args)
        self.seen_count += found
        return int(found)

    def rows(
        self, chunk: int, spare: list[tuple[np.ndarray, ...]] | None = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The next level's (states, parents), sorted, in arrays of ``chunk`` rows: taken
        from ``spare`` (buffers a writer gave back: memory already touched is several
        times quicker to write than new pages), else new."""
        pos = 0
        spare = [] if spare is None else spare
        while True:
            states, parents = self._buffers(chunk, spare)
            args = (self.next, self.move, pos, states, parents, BIT_INDEX, self.dense.args)
            pos, m = self.dense.rows(*args)
            if m:
                yield states[:m], parents[:m]
            if m < chunk:
                return

    @staticmethod
    def _buffers(chunk: int, spare: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
        while spare:
            got = spare.pop()
            if len(got[0]) == chunk:
                return got[0], got[1]
        return np.empty(chunk, np.uint64), np.empty(chunk, np.uint64)

    def advance(self) -> None:
        """The next level becomes the frontier."""
        self.frontier, self.next = self.next, self.frontier
