"""The dense engine's marks: a level step for few moves a state (dense.py).

Each move of the frontier is a key ``rank(child) << 2 | tag`` (4 bytes), its
tag the child's own move back to its parent (space.MarkKernels). A level
step marks each key's tag at its child's rank, four bits a rank, instead of
sorting the keys, and scans the marks in rank order: the new level comes out
sorted, each rank with its tags, from which its smallest parent follows
(:func:`scan_core`). A second array, ``seen``, a bit a rank, holds the levels
already made: a marked rank seen before is dropped by the scan. 0.625 bytes
a rank, kept for the build, and about 6 bytes a move for the step.

On two threads (lent by the executor), in two passes, so that the marks
written and read stay in a core's cache:

1. the threads expand chunks of the frontier into keys, leaving out the moves
   back to a parent (the tags kept with the level held: its ``back`` bits;
   or, for a frontier handed over, its parents), each chunk's keys grouped by
   range of ranks (:func:`group`) into one buffer kept for the build;
2. the threads take runs of ranges in turn: mark their keys (:func:`mark`),
   then scan those ranks in order into rows. The calling thread hands the runs
   to the sink in order (so the rows are sorted) and keeps the new level's
   states and tags: the next step's frontier.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import cast

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from pipeline.engine.core import Sink, States
from pipeline.engine.level import Chunk, LevelSource
from pipeline.engine.space import DenseSpace, DenseStep, MarkKernels

#: LLVM's count of trailing zeros (one instruction), typed as compiled code calls it:
#: numba declares the intrinsic with its typing context as the first argument.
_trailing_zeros = cast("Callable[[np.uint64], np.uint64]", trailing_zeros)
#: Moves a rank's marks can name: four bits, a bit a tag.
TAGS = 4
#: The key of a move left out (above every rank a level step marks).
NO_KEY = np.uint32(0xFFFF_FFFF)
#: Ranks a word of marks holds: four bits each, a bit a tag (tags of up to 2 bits).
MARKS_PER_WORD = 16


@njit(inline="always")
def scan_core(marks, seen, w0, w1, states, parents, back, unrank, undo, args):
    """The rows of the ranks marked in words ``w0 .. w1 - 1`` of ``marks`` (multiples
    of 4), in order.

    A rank's four bits are the tags of the moves into it: a rank set in ``seen``
    (a bit a rank: the levels made before) is dropped, another is a new state,
    ``unrank(rank, args)``, whose smallest parent is the least of ``undo(state
    << 2 | tag, args)`` over its tags. Writes the states, parents and tags
    (``back``, uint8) from the start of each (with room for two more), clears the
    words read and sets the new states' bits in ``seen``; returns how many. The
    ranks are listed first
    (in ``states``), then turned into states in one loop over whole arrays,
    which the compiler vectorizes when ``unrank`` allows."""
    m = _marked(marks, seen, w0, w1, states, back)
    _rows(states[:m], parents[:m], back[:m], unrank, undo, args)
    return m


@njit(inline="always")
def _marked(marks, seen, w0, w1, ranks, back):
    """The new ranks marked in words ``w0 .. w1 - 1`` and their tags; the words cleared
    and the ranks added to ``seen``. Four words (a word of ``seen``) at a time, each
    giving its first two ranks without a branch (a branch a rank, mispredicted
    half the time in a level's widest words, cost half as much again)."""
    m = 0
    nibbles = np.uint64(0x1111_1111_1111_1111)
    last = np.uint64(1) << np.uint64(63)
    for v in range(w0 >> 2, w1 >> 2):
        w = v << 2
        if (marks[w] | marks[w + 1] | marks[w + 2] | marks[w + 3]) == 0:
            continue
        old = seen[v]
        new = np.uint64(0)
        for k in range(4):
            x = marks[w + k]
            marks[w + k] = 0
            y = x | (x >> np.uint64(1))
            y |= y >> np.uint64(2)
            y &= nibbles & ~_spread((old >> np.uint64(16 * k)) & np.uint64(0xFFFF))
            new |= _squeeze(y) << np.uint64(16 * k)
            base = np.uint64((w + k) * MARKS_PER_WORD)
            a = _trailing_zeros(y | last)
            ranks[m] = base + (a >> np.uint64(2))
            back[m] = np.uint8((x >> a) & np.uint64(15))
            y1 = y & (y - np.uint64(1))
            a = _trailing_zeros(y1 | last)
            ranks[m + 1] = base + (a >> np.uint64(2))
            back[m + 1] = np.uint8((x >> a) & np.uint64(15))
            m += (y != 0) + (y1 != 0)
            y1 &= y1 - np.uint64(1)
            while y1:
                a = _trailing_zeros(y1)
                y1 &= y1 - np.uint64(1)
                ranks[m] = base + (a >> np.uint64(2))
                back[m] = np.uint8((x >> a) & np.uint64(15))
                m += 1
        seen[v] = old | new
    return m


@njit(inline="always")
def _rows(states, parents, back, unrank, undo, args):
    """Ranks (in ``states``) and their tags to states and smallest parents, in place:
    the states in a loop of their own (so that the compiler vectorizes it), then
    the parents of the lowest two tags, and of any more."""
    for i in range(len(states)):
        states[i] = unrank(states[i], args)
    top = ~np.uint64(0)
    for i in range(len(states)):
        key = states[i] << np.uint64(2)
        tags = np.uint64(back[i])
        rest = tags & (tags - np.uint64(1))
        best = undo(key | _trailing_zeros(tags), args)
        other = undo(key | (_trailing_zeros(rest | np.uint64(16)) & np.uint64(3)), args)
        best = min(best, other if rest else top)
        rest &= rest - np.uint64(1)
        while rest:  # three parents or four
            best = min(best, undo(key | _trailing_zeros(rest), args))
            rest &= rest - np.uint64(1)
        parents[i] = best


@njit(inline="always")
def _squeeze(y):
    """Bits 0, 4, 8, .. 60 of ``y`` (the others clear) as bits 0 .. 15."""
    y = (y | (y >> np.uint64(3))) & np.uint64(0x0303_0303_0303_0303)
    y = (y | (y >> np.uint64(6))) & np.uint64(0x000F_000F_000F_000F)
    y = (y | (y >> np.uint64(12))) & np.uint64(0x0000_00FF_0000_00FF)
    return (y | (y >> np.uint64(24))) & np.uint64(0xFFFF)


@njit(inline="always")
def _spread(y):
    """Bits 0 .. 15 of ``y`` as bits 0, 4, 8, .. 60 (:func:`_squeeze` undone)."""
    y = (y | (y << np.uint64(24))) & np.uint64(0x0000_00FF_0000_00FF)
    y = (y | (y << np.uint64(12))) & np.uint64(0x000F_000F_000F_000F)
    y = (y | (y << np.uint64(6))) & np.uint64(0x0303_0303_0303_0303)
    return (y | (y << np.uint64(3))) & np.uint64(0x1111_1111_1111_1111)


@njit(inline="always")
def mark_core(states, seen, rank, args):
    """Sets the bit of each state's rank in ``seen`` (a level the next one must not
    hold again)."""
    for i in range(len(states)):
        r = rank(states[i], args)
        seen[r >> np.uint64(6)] |= np.uint64(1) << (r & np.uint64(63))


#: Ranks a range holds: its marks (1 MiB) and its bits of ``seen`` (256 KiB) stay in
#: a core's L2 cache (2 MiB here) while its keys are marked and it is scanned.
RANGE_BITS = 21
#: Frontier states a thread expands into keys at a time.
CHUNK = 1 << 16
#: Keys of one task of the second pass (a run of ranges), about: its rows' buffers.
BATCH_KEYS = 1 << 20
#: Rows of a level read at a time when it is marked seen afresh.
MARK_ROWS = 1 << 20
_NONE = np.empty(0, np.uint64)
_NO_BACK = np.empty(0, np.uint8)
#: A thread's own buffers: its chunk's keys before they are grouped.
_local = threading.local()


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


class Marks:
    """The marks of one build's search, level after level (module docstring): the
    marks and the seen bits of its ranks, the keys' buffer, the buffers of rows the
    scans fill, and the last level it made (its states and each one's ``back``
    bits: the moves that go back to a parent), its next frontier. Kept from level
    to level: fresh pages cost (buffers.py)."""

    #: The most of the work its marks may take (a quarter): a level's keys need the rest.
    SHARE = 4

    def __init__(self, space: DenseSpace, threads: ThreadPoolExecutor) -> None:
        assert space.marks is not None
        self.kernels: MarkKernels = space.marks
        self.size = space.size
        self.most = space.moves
        self.threads = threads
        self.seen = np.zeros(-(-space.size // 64), np.uint64)
        self.marks = np.zeros(4 * len(self.seen), np.uint64)  # four words a word of seen
        #: Whether every mark is clear (a step cut short may leave some).
        self.clean = True
        self._keys = np.empty(0, np.uint32)
        #: Buffers of rows (states, parents, back bits) the scans write.
        self.rows: list[tuple[np.ndarray, ...]] = []
        #: Two levels' arrays (states, back bits), taken in turn; rows of the held one.
        self._levels = [(np.empty(0, np.uint64), np.empty(0, np.uint8)) for _ in range(2)]
        self.held = 0

    @staticmethod
    def kept(space: DenseSpace) -> int:
        """Bytes kept for the build: the marks and the seen bits."""
        return space.size // 2 + space.size // 8

    @staticmethod
    def fits(space: DenseSpace, states: int, held: int, work: int) -> bool:
        """Whether a level after ``states`` states fits the work: its keys (4 bytes for
        each of a state's moves, those back to a parent included) and the next level
        it holds (9 bytes a state, twice: what the sink has not copied), beside
        ``held`` bytes the caller holds (the marks came off the work before)."""
        return states * (4 * space.moves + 18) + held <= work

    @property
    def ranges(self) -> int:
        return -(-self.size >> RANGE_BITS)

    @property
    def shift(self) -> int:
        """Bits to shift a key ``rank << 2 | tag`` right by to get its range."""
        return RANGE_BITS + 2

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
        return self.size // 8

    def hold(self, n: int) -> None:
        """The level just made in :meth:`next_level`'s arrays, ``n`` states, is held."""
        self._levels.reverse()
        self.held = n

    def keys_for(self, n: int) -> np.ndarray:
        """A buffer of at least ``n`` keys, kept from level to level (pages never
        written are never touched: its size costs only the keys written)."""
        if len(self._keys) < n:
            self._keys = np.empty(max(n + n // 4, self.reserve // 2 * self.most), np.uint32)
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

    def restart(self, frontier: LevelSource, excluded: Sequence[LevelSource]) -> None:
        """Seen afresh: the frontier and the levels checked against it (no mark left
        from a step cut short, no level held)."""
        if not self.clean:
            self.marks.fill(0)
            self.clean = True
        self.seen.fill(0)
        self.held = 0
        k = self.kernels
        for level in [frontier, *excluded]:
            for states, _, _ in level.chunks(MARK_ROWS):
                k.mark(states, self.seen, k.args)

    def step(self, frontier: LevelSource, held: bool, skip_back: bool, sink: Sink) -> DenseStep:
        """The level after the frontier (``held``: the level this search made last;
        ``skip_back``: moves back to a parent are left out), its rows to ``sink`` in
        order; the new level is held."""
        clock = time.perf_counter()
        chunks = self._frontier(frontier, held, skip_back)
        keys, offsets, starts = self._expand(chunks, len(frontier))
        expanded = time.perf_counter()
        self.clean = False
        made = self._scan(keys, offsets, starts, sink)
        self.clean = True
        self.hold(made)
        pairs = int(starts[:, -2].sum())
        flags = {"dense": True}
        return DenseStep(made, pairs, expanded - clock, time.perf_counter() - expanded, flags)

    def _frontier(self, frontier: LevelSource, held: bool, skip_back: bool) -> Iterator[Chunk]:
        """The frontier in chunks ``(states, parents or None, back bits or None)``: the
        level held (a layered graph has no moves back: its tags then skip nothing),
        or the one given, with its parents."""
        if held:
            states, back = self.level
            return (
                (states[i : i + CHUNK], None, back[i : i + CHUNK] if skip_back else None)
                for i in range(0, len(states), CHUNK)
            )
        return ((s, p, None) for s, p, _ in frontier.chunks(CHUNK, skip_back))

    def _expand(
        self, chunks: Iterator[Chunk], states: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every chunk's keys (of a frontier of ``states`` states) grouped by range into
        the keys buffer; returns it, each chunk's offset in it, and where each chunk's
        ranges start (a row a chunk)."""
        k, most = self.kernels, self.most
        buffer = self.keys_for(states * most)
        fill = [0]
        lock = threading.Lock()

        def expand(chunk: Chunk) -> tuple[int, np.ndarray]:
            states, parents, back = chunk
            n = max(CHUNK, len(states))
            if len(getattr(_local, "keys", _NO_BACK)) < n * most:
                _local.keys = np.empty(n * most, np.uint32)
                _local.scratch = np.empty(3 * n, np.uint64)
            skip = _NONE if parents is None else parents
            tags = _NO_BACK if back is None else back
            m = k.keys(states, skip, tags, _local.keys, _local.scratch, k.args)
            with lock:
                at = fill[0]
                fill[0] += m
                if fill[0] > len(buffer):
                    raise AssertionError("more keys than the frontier's states allow")
            starts = np.empty(self.ranges + 2, np.int64)
            group(_local.keys, m, buffer[at : at + m], starts, np.uint32(self.shift))
            return at, starts

        done = list(self.threads.map(expand, chunks))
        offsets = np.array([a for a, _ in done], np.int64)
        starts = np.array([s for _, s in done], np.int64).reshape(-1, self.ranges + 2)
        return buffer, offsets, starts

    def _scan(self, keys: np.ndarray, offsets: np.ndarray, starts: np.ndarray, sink: Sink) -> int:
        """The second pass: runs of ranges marked and scanned on the threads, their rows
        handed to ``sink`` in order and their states and back bits kept as the next
        level; returns its size."""
        per_range = (starts[:, 1:-1] - starts[:, :-2]).sum(axis=0)
        batches = list(_batches(per_range))
        if not batches:
            return 0
        most = max(int(per_range[a:b].sum()) for a, b in batches) + 2  # scan_core writes 2 ahead
        level_states, level_back = self.next_level(int(per_range.sum()))
        free: queue.SimpleQueue = queue.SimpleQueue()
        for buffers in self.row_buffers(4, most):
            free.put(buffers)
        k = self.kernels

        def task(batch: tuple[int, int]) -> tuple[States, States, np.ndarray, tuple]:
            g0, g1 = batch
            out = free.get()
            mark(keys, offsets, starts, g0, g1, self.marks)
            w0, w1 = self.words(g0, g1)
            m = k.scan(self.marks, self.seen, w0, w1, *out, k.args)
            return out[0][:m], out[1][:m], out[2][:m], out

        made = 0

        def hand(done: Future) -> None:
            nonlocal made
            states, parents, back, out = done.result()
            level_states[made : made + len(states)] = states
            level_back[made : made + len(states)] = back
            made += len(states)
            if not sink(states, parents, None):  # the sink keeps the rows: new buffers
                kept, out = out, tuple(np.empty_like(b) for b in out)
                self.rows = [out if r is kept else r for r in self.rows]
            free.put(out)

        pending: list[Future] = []
        for batch in batches:
            pending.append(self.threads.submit(task, batch))
            if len(pending) > 2:
                hand(pending.pop(0))
        for done in pending:
            hand(done)
        return made


def _batches(per_range: np.ndarray) -> Iterator[tuple[int, int]]:
    """Runs of consecutive ranges with keys, of about :data:`BATCH_KEYS` keys each."""
    g, n = 0, len(per_range)
    while g < n:
        if not per_range[g]:
            g += 1
            continue
        first, total = g, 0
        while g < n and per_range[g] and (total == 0 or total + per_range[g] <= BATCH_KEYS):
            total += per_range[g]
            g += 1
        yield first, g
