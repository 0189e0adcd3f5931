"""The marks of a dense rank: a level made without sorting its moves.

A puzzle that ranks its states densely and in order (:class:`packed.Ranks`)
lets a level step mark each move at its child's rank, four bits a rank (a
bit a tag: which move led there), instead of sorting the moves: a scan of
the marks in rank order then gives the new level sorted, each child with its
tags, from which its smallest parent follows (:func:`packed.scan_core`).
A second array, ``seen``, a bit a rank, holds the levels already made: a
marked rank seen before is dropped by the scan.

The moves reach the marks in two passes, so that the marks written and read
stay in a core's cache: each chunk of the frontier groups its keys by range
of ranks (:func:`group`), then each range's keys, from every chunk, are
marked together (:func:`mark`) and the range scanned.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.engine.packed import MARKS_PER_WORD, Ranks

#: Ranks a range holds: its marks (1 MiB) and its bits of ``seen`` (256 KiB) stay in
#: a core's L2 cache (2 MiB here) while its keys are marked and it is scanned.
RANGE_BITS = 21


class RankSpace:
    """What the marks step keeps of one build from level to level (fresh pages cost:
    buffers.py): the marks and the seen bits of its ranks, the keys' buffer, the
    buffers of rows the scans fill, and the last level it made (its states and each
    one's ``back`` bits: the moves that go back to a parent), its next frontier."""

    def __init__(self, ranks: Ranks) -> None:
        self.ranks = ranks
        self.seen = np.zeros(-(-ranks.size // 64), np.uint64)
        self.marks = np.zeros(4 * len(self.seen), np.uint64)  # four words a word of seen
        #: The depth of the level held (``level``), when ``seen`` holds it and every
        #: level the graph checks against (None: not known to).
        self.through: int | None = None
        #: Whether every mark is clear (a step cut short may leave some).
        self.clean = True
        self._keys = np.empty(0, np.uint32)
        #: Buffers of rows (states, parents, back bits) the scans write.
        self.rows: list[tuple[np.ndarray, ...]] = []
        #: Two levels' arrays (states, back bits), taken in turn; rows of the held one.
        self._levels = [(np.empty(0, np.uint64), np.empty(0, np.uint8)) for _ in range(2)]
        self.held = 0

    @property
    def ranges(self) -> int:
        return -(-self.ranks.size >> RANGE_BITS)

    @property
    def shift(self) -> int:
        """Bits to shift a key ``rank << 2 | tag`` right by to get its range."""
        return RANGE_BITS + 2

    @staticmethod
    def nbytes_for(ranks: Ranks) -> int:
        """Bytes of the marks and the seen bits."""
        return ranks.size // 2 + ranks.size // 8

    @property
    def level(self) -> tuple[np.ndarray, np.ndarray]:
        """The states of the level held and their back bits."""
        states, back = self._levels[0]
        return states[: self.held], back[: self.held]

    def next_level(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Arrays for a level of up to ``n`` states (not the held level's); made with
        room for :meth:`reserve` states, or twice as many as asked when too small."""
        if len(self._levels[1][0]) < n:
            room = max(2 * n, self.reserve)
            self._levels[1] = (np.empty(room, np.uint64), np.empty(room, np.uint8))
        return self._levels[1]

    @property
    def reserve(self) -> int:
        """States a level's arrays are first made for: an eighth of the ranks. They are
        asked for room for every move into the level (3x4's most: 6.5% of the ranks,
        its widest level 4.6%), and arrays made anew as the levels grow were written
        afresh (0.1 million more page faults on 3x4 at a sixteenth). Pages never
        written are never touched."""
        return self.ranks.size // 8

    def hold(self, n: int) -> None:
        """The level just made in :meth:`next_level`'s arrays, ``n`` states, is held."""
        self._levels.reverse()
        self.held = n

    def keys_for(self, n: int) -> np.ndarray:
        """A buffer of at least ``n`` keys, kept from level to level (pages never
        written are never touched: its size costs only the keys written)."""
        if len(self._keys) < n:
            self._keys = np.empty(max(n + n // 4, self.reserve // 2 * self.ranks.most), np.uint32)
        return self._keys

    def row_buffers(self, count: int, n: int) -> list[tuple[np.ndarray, ...]]:
        """``count`` sets of buffers of at least ``n`` rows, kept from level to level."""
        if len(self.rows) < count or len(self.rows[0][0]) < n:
            size = max(n, len(self.rows[0][0]) if self.rows else 0)
            self.rows = [
                (np.empty(size, np.uint64), np.empty(size, np.uint64), np.empty(size, np.uint8))
                for _ in range(count)
            ]
        return self.rows[:count]

    def words(self, g0: int, g1: int) -> tuple[int, int]:
        """The words of marks of ranges ``g0 .. g1 - 1``."""
        per = (1 << RANGE_BITS) // MARKS_PER_WORD
        return g0 * per, min(g1 * per, len(self.marks))

    def forget(self) -> None:
        """Clear ``seen`` and let the level held go (before marking the levels of a
        step it did not make)."""
        self.seen.fill(0)
        self.through = None
        self.held = 0


@njit(nogil=True, cache=True)
def group(keys, m, out, starts, shift):
    """``keys[:m]`` into ``out[:m]`` grouped by range (``key >> shift``); ``starts[g]``
    is where range ``g`` begins. ``len(starts)`` is the ranges and two: the keys of
    no range (NO_KEY) go last, after ``starts[-2]``."""
    last = np.uint32(len(starts) - 2)
    starts[:] = 0
    for i in range(m):
        starts[min(keys[i] >> shift, last) + 1] += 1
    for g in range(len(starts) - 1):
        starts[g + 1] += starts[g]
    at = starts[:-1].copy()
    for i in range(m):
        key = keys[i]
        g = min(key >> shift, last)
        out[at[g]] = key
        at[g] += 1


@njit(nogil=True, cache=True)
def mark(keys, offsets, starts, g0, g1, marks):
    """Each key of ranges ``g0 .. g1 - 1`` (chunk ``c``'s range ``g`` at ``offsets[c] +
    starts[c, g]``) sets its tag's bit in its rank's four bits."""
    for g in range(g0, g1):
        for c in range(len(offsets)):
            for i in range(offsets[c] + starts[c, g], offsets[c] + starts[c, g + 1]):
                key = np.uint64(keys[i])
                r = key >> np.uint64(2)
                shift = ((r & np.uint64(15)) << np.uint64(2)) | (key & np.uint64(3))
                marks[r >> np.uint64(4)] |= np.uint64(1) << shift
