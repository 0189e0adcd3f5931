"""The dense engine's bitmaps: a level step for many moves a state (dense.py).

The ranks are searched the way twsearch's ``-g`` does it: a bit a rank for
"seen", a bit for the frontier and a bit for the next level, and one byte a
rank for the move that first reached it (the parent follows: the child moved
back). No key, no sort, no merge: a level step reads each frontier state's
children's bits, at memory speed, and costs 1.375 bytes a rank whatever the
moves.

The rows are the sorting path's, to the bit: the frontier is read in
increasing order and a child keeps the first move that reaches it, so its
parent is its smallest one in the frontier. When the frontier is larger than
what is left unseen, the step runs backwards (twsearch's trick): each unseen
rank looks for its parents in the frontier, and keeps the smallest.

The family's kernels (space.BitmapKernels) inline :func:`forward_core`,
:func:`backward_core` and :func:`rows_core`. The step runs in the calling
thread: the level files are written by the writers beside it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from numba import njit

from pipeline.engine.buffers import Pool
from pipeline.engine.core import Sink, States
from pipeline.engine.level import LevelSource
from pipeline.engine.packed import BIT_INDEX, bit_position
from pipeline.engine.space import BitmapKernels, DenseSpace, DenseStep

_ALL = ~np.uint64(0)

#: ``move`` of a rank no move reached in this search (a root, a level marked afresh).
NO_MOVE = 255
#: Frontier rows read at a time when a level is marked afresh.
MARK_ROWS = 1 << 22


@njit(inline="always")
def forward_core(frontier, seen, nxt, move, kids, base, groups, bit_index, block, near, args):
    """The next level from the frontier's moves: each unseen child marked in ``seen``
    and ``nxt`` with the move that reached it first; returns how many (``kids``: room
    for a state's children, ``base`` for its block's terms; ``groups``, ``block`` and
    ``near``: see space.BitmapKernels)."""
    count = 0
    lo, hi = np.uint64(1), np.uint64(0)  # the block whose terms ``base`` holds: none yet
    for w in range(len(frontier)):
        word = frontier[w]
        while word:
            low = word & (~word + np.uint64(1))
            word ^= low
            s = np.uint64(w * 64 + bit_position(low, bit_index))
            if s < lo or s >= hi:
                lo, hi = block(s, base, args)
            last = move[s]
            group = groups[last] if last != NO_MOVE and groups[last] >= 0 else -2
            near(s, lo, base, kids, args)
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
def backward_core(frontier, seen, nxt, move, size, kids, base, bit_index, block, near, args):
    """The next level from the ranks not seen: each keeps its smallest parent in the
    frontier (``move``: the move from it); returns how many (``block`` and ``near``
    give a rank's parents)."""
    count = 0
    words = len(seen)
    lo, hi = np.uint64(1), np.uint64(0)
    for w in range(words):
        word = ~seen[w]
        if w == words - 1 and size % 64:
            word &= (np.uint64(1) << np.uint64(size % 64)) - np.uint64(1)
        found = np.uint64(0)
        while word:
            low = word & (~word + np.uint64(1))
            word ^= low
            c = np.uint64(w * 64 + bit_position(low, bit_index))
            if c < lo or c >= hi:
                lo, hi = block(c, base, args)
            near(c, lo, base, kids, args)
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
def rows_core(nxt, move, pos, states, parents, base, bit_index, block, undo, args):
    """The level's rows from bit ``pos`` on, in increasing order, until ``states`` is
    full: (the bit to go on from, rows written). A parent is ``undo(c, lo, base, t,
    args)``, from the terms of ``c``'s block by ``block`` (its inverse moves')."""
    m = 0
    w = pos >> 6
    word = nxt[w] & (_ALL << np.uint64(pos & 63)) if w < len(nxt) else np.uint64(0)
    lo, hi = np.uint64(1), np.uint64(0)
    while w < len(nxt):
        while word:
            if m == len(states):
                low = word & (~word + np.uint64(1))
                return w * 64 + bit_position(low, bit_index), m
            low = word & (~word + np.uint64(1))
            word ^= low
            c = np.uint64(w * 64 + bit_position(low, bit_index))
            if c < lo or c >= hi:
                lo, hi = block(c, base, args)
            states[m] = c
            parents[m] = undo(c, lo, base, np.int64(move[c]), args)
            m += 1
        w += 1
        if w < len(nxt):
            word = nxt[w]
    return w * 64, m


class Bitmaps:
    """The bitmaps of one build's search, level after level (module docstring).

    ``pool`` lends the buffers of the rows handed to the sink, ``chunk`` rows each
    (a run the sink keeps goes back to the pool once written: no copy).
    """

    #: The most of the work its bitmaps may take: a level needs nothing more than
    #: the runs of rows in flight, which the build counts apart.
    SHARE = 1

    def __init__(self, space: DenseSpace, pool: Pool, chunk: int) -> None:
        assert space.bitmaps is not None
        self.kernels: BitmapKernels = space.bitmaps
        self.size = space.size
        self.pool = pool
        self.chunk = chunk
        words = (space.size + 63) // 64
        self.seen = np.zeros(words, np.uint64)
        self.frontier = np.zeros(words, np.uint64)
        self.next = np.zeros(words, np.uint64)
        self.move = np.zeros(space.size, np.uint8)
        self.seen_count = 0
        #: Whether the bitmaps were written (pages never written are never touched:
        #: fresh ones are not cleared).
        self.written = False

    @staticmethod
    def kept(space: DenseSpace) -> int:
        """Bytes kept for the build: three bitmaps and a byte a rank."""
        return 3 * ((space.size + 63) // 64) * 8 + space.size

    @staticmethod
    def fits(space: DenseSpace, states: int, held: int, work: int) -> bool:
        """Every level fits: the bitmaps hold it."""
        return True

    def restart(self, frontier: LevelSource, excluded: Sequence[LevelSource]) -> None:
        """Seen afresh: the frontier (with no move that reached it) and the levels
        checked against it."""
        for bits in (self.seen, self.frontier, self.next) if self.written else ():
            bits.fill(0)
        self.written = True
        for level in excluded:
            for states, _, _ in level.chunks(MARK_ROWS):
                self._mark(states, False)
        for states, _, _ in frontier.chunks(MARK_ROWS):
            self._mark(states, True)
        self.seen_count = int(np.bitwise_count(self.seen).sum())

    def _mark(self, states: States, frontier: bool) -> None:
        words = (states >> np.uint64(6)).astype(np.intp)
        bits = np.uint64(1) << (states & np.uint64(63))
        np.bitwise_or.at(self.seen, words, bits)
        if frontier:
            np.bitwise_or.at(self.frontier, words, bits)
            self.move[states.astype(np.intp)] = NO_MOVE

    def step(self, frontier: LevelSource, held: bool, skip_back: bool, sink: Sink) -> DenseStep:
        """The level after the frontier (its bits; ``held`` and ``skip_back`` change
        nothing here): its rows to ``sink`` in order, then it becomes the frontier."""
        clock = time.perf_counter()
        backward = self.backward(len(frontier))
        self.next.fill(0)
        k = self.kernels
        bits = (self.frontier, self.seen, self.next, self.move)
        if backward:
            found = int(k.backward(*bits, np.uint64(self.size), BIT_INDEX, k.args))
        else:
            found = int(k.forward(*bits, k.groups, BIT_INDEX, k.args))
        self.seen_count += found
        expanded = time.perf_counter()
        self._rows(sink)
        self.frontier, self.next = self.next, self.frontier
        flags = {"dense": True, "backward": backward}
        return DenseStep(found, None, expanded - clock, time.perf_counter() - expanded, flags)

    def backward(self, frontier: int) -> bool:
        """Whether the step from a frontier of ``frontier`` states runs backwards: fewer
        ranks are left unseen than the frontier holds (each then looks for its
        parents, where each frontier state looks for its children)."""
        return self.size - self.seen_count < frontier

    def _rows(self, sink: Sink) -> None:
        """The next level's rows to ``sink``, in increasing order, in runs of ``chunk``
        rows in pooled buffers (taken anew when the sink keeps a run)."""
        k, n, pos = self.kernels, self.chunk, 0
        states, parents = self.pool.take(n), self.pool.take(n)
        while True:
            pos, m = k.rows(self.next, self.move, pos, states, parents, BIT_INDEX, k.args)
            if m and not sink(states[:m], parents[:m], None):
                states, parents = self.pool.take(n), self.pool.take(n)
            if m < n:
                break
        self.pool.give(states, parents)
