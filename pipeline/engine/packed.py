"""The fast level step: each move packed in one uint64 key and sorted by numpy.

A puzzle that can name the move into a child with a tag of a few bits, such
that the parent follows from the child and the tag, supplies :class:`Kernels`:
a compiled kernel that expands states into keys ``child << tag_bits | tag``
and an inline function that turns a key back into its parent. A level's keys
then sort with numpy's plain ``np.sort`` (a SIMD sort, about ten times quicker
than the ``argsort`` that :func:`reference.step` needs to carry parents along),
and one compiled pass (:func:`resolve`) keeps the unique children with the
smallest parent of each, minus those in the excluded levels: the very rows
of :func:`reference.step`.

Sorting keys sorts children, so keys split into child ranges like children do
(the local executor spills keys, 8 bytes a move instead of 16). A state that
uses all 64 bits leaves no room for a tag: its kernels may then key a packed
child, the state with its low ``drop`` bits left out, provided those bits
follow from the rest (``unpack``) and packing keeps the order of states (the
15 puzzle drops cell 0's nibble: see puzzles/tiles/moves.py). :meth:`Kernels.key_bound`
and :meth:`Kernels.children` turn child ranges into key ranges and back.

A puzzle whose states number densely, onto ``0 .. size - 1`` in their order,
may also supply its moves over that dense space (space.DenseSpace): the dense
engine (dense.py) then finds each level's states by their rank, with no sort
at all.

Like reference.py it knows no puzzle: the kernels come with the puzzle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from pipeline.engine.core import States, absent
from pipeline.engine.space import DenseSpace, Kernel

_EMPTY = np.empty(0, np.uint64)
_NO_ROWS = np.empty((0, 2), np.uint64)
_TOP = (1 << 64) - 1
_DEBRUIJN = 0x03F7_9D71_B4CB_0A89
#: Position of a single set bit, from the top 6 bits of (bit * _DEBRUIJN): pass
#: it to :func:`bit_position` (kernels take arrays as arguments, not globals).
BIT_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    BIT_INDEX[((_DEBRUIJN << _i) & _TOP) >> 58] = _i


@njit(inline="always")
def bit_position(single_bit, bit_index):
    """Index of the one set bit of a uint64 (a multiply and a table look-up)."""
    return bit_index[(single_bit * np.uint64(_DEBRUIJN)) >> np.uint64(58)]


@dataclass(frozen=True)
class Kernels:
    """A puzzle's moves as compiled kernels.

    ``expand(states, skip, lo, hi, out, args)`` returns the keys in
    ``[lo, hi]`` of every move out of ``states`` (any order), leaving out a
    child equal to ``skip[i]`` when ``skip`` is not empty, written from the
    start of ``out`` (a view of it, or of a larger copy when it is short: see
    :func:`room`); ``resolver(run_a, run_b, wa, wb, shift, low, ex_a, ex_b,
    children, parents, sums, args)`` is :func:`resolve_core` with the
    family's ``undo(key, args)`` (the parent a
    key came from) inlined, a module-level ``@njit(cache=True)`` function of
    the puzzle family (so it compiles once and is cached on disk).
    ``drop`` > 0: keys hold ``child >> drop`` (see the module docstring), the
    resolver writes whole children (:func:`resolve_with`) and ``unpack``
    (numpy, elementwise) turns packed children back into states.
    """

    tag_bits: int
    expand: Kernel
    args: tuple[Any, ...]  # Any: the family's arrays and numbers, its kernels' to read
    resolver: Kernel
    drop: int = 0
    unpack: Kernel | None = None
    #: ``weigher(keys, states, counts, low, out, args)``: :func:`weigh_core` with the
    #: family's ``undo`` inlined (path counts need it; None: no counts on keys).
    weigher: Kernel | None = None
    #: The most bits a key uses (fewer than 64 leave room beside it: indexed.py).
    key_bits: int = 64
    #: The same moves over the states numbered densely, when they can be: the dense
    #: engine's (dense.py), when the build affords it. None: the step sorts keys.
    space: DenseSpace | None = None

    def key_bound(self, state: int) -> int:
        """The smallest key whose child is ``state`` or more (``state`` up to 2**64)."""
        if not self.drop:
            return state << self.tag_bits
        packed = state >> self.drop
        assert self.unpack is not None  # packed children come with their unpack
        if packed < 1 << (64 - self.drop):
            whole = int(self.unpack(np.array([packed], np.uint64))[0])
            packed += whole < state  # the one state of this packed value lies below
        return packed << self.tag_bits

    def children(self, keys: States) -> States:
        """The child of each key."""
        packed = keys >> np.uint64(self.tag_bits)
        if not self.drop:
            return packed
        assert self.unpack is not None  # packed children come with their unpack
        return self.unpack(packed)

    def keys(
        self,
        states: States,
        skip: States | None = None,
        lo: int = 0,
        hi: int = 1 << 64,
        expect: float = 4.0,
        buffer: States | None = None,
    ) -> States:
        """The keys of the moves out of ``states`` into children in ``[lo, hi)``, unsorted.

        ``skip`` (the parents of ``states``, row for row) drops each move back
        to a parent: such a child always sits at a smaller depth. ``expect``,
        the keys expected per state, sizes the output (it grows if short);
        ``buffer``, when given, is written instead (memory already touched is
        several times quicker to write than new pages: reuse it).
        """
        if lo >= hi:
            return _EMPTY
        first = np.uint64(min(self.key_bound(lo), _TOP))
        last = np.uint64(min(self.key_bound(hi) - 1, _TOP))
        if buffer is None:
            buffer = np.empty(int(len(states) * expect * 1.1) + 1024, np.uint64)
        skip = _EMPTY if skip is None else skip
        return self.expand(states, skip, first, last, buffer, self.args)

    def weigh(
        self, keys: States, states: States, counts: States, out: States | None = None
    ) -> States:
        """Rows ``(key, count of the key's parent)`` for keys made from ``states``
        (in the kernel's order: state by state); ``out`` (n, 2) is written when given."""
        assert self.weigher is not None  # asked only of kernels that carry path counts
        if out is None:
            out = np.empty((len(keys), 2), np.uint64)
        if not self.weigher(keys, states, counts, np.uint64(0), out, self.args):
            raise AssertionError("a kernel made keys out of the order of its states")
        return out[: len(keys)]

    def index(self, keys: States, states: States, low: int) -> States:
        """The keys made from ``states`` as moves ``key << low | r``, in place: ``r`` the
        row of the key's parent in ``states``, where its path count will be found
        after the sort (rows.py: indexed runs)."""
        assert self.weigher is not None  # asked only of kernels that carry path counts
        if not self.weigher(keys, states, _EMPTY, np.uint64(low), keys.reshape(-1, 1), self.args):
            raise AssertionError("a kernel made keys out of the order of its states")
        return keys

    def resolve(
        self,
        keys: States,
        exclude: tuple[States, ...] = (),
        more: States = _EMPTY,
        out: tuple[States, States] | None = None,
    ) -> tuple[States, States] | None:
        """Sorted keys to (unique children, smallest parent of each), minus ``exclude``.

        ``more``, a second sorted run, is merged in on the fly (two threads
        sort a level's two halves, then resolve two child ranges of both).
        ``exclude`` holds sorted arrays of states (the levels the graph needs):
        the compiled pass merges two, any further ones are looked up after.
        ``out``: two buffers as long as each other to write the rows into (the
        result is views of them; None if the children do not fit); new ones with
        room for every key when None.
        """
        n = len(keys) + len(more)
        # Room for every key when no buffers are given: pages never written are never touched.
        out = out or (np.empty(n, np.uint64), np.empty(n, np.uint64))
        got = self._resolve(keys, more, _EMPTY, _EMPTY, exclude, (*out, _EMPTY))
        if got is None:
            return None
        children, parents, _ = got
        for done in exclude[2:]:
            keep = absent(children, done)
            children, parents = children[keep], parents[keep]
        return children, parents

    def resolve_counted(
        self,
        rows: States,
        exclude: tuple[States, ...] = (),
        more: States = _NO_ROWS,
        out: tuple[States, States, States] | None = None,
    ) -> tuple[States, States, States] | None:
        """:meth:`resolve` of rows ``(key, count of its parent)`` sorted by key, with each
        kept child's path count, the sum of its moves' (exact: OverflowError past 64
        bits), as a third column."""
        n = len(rows) + len(more)
        if out is None:
            out = (np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(n, np.uint64))
        return self._resolve(rows[:, 0], more[:, 0], rows[:, 1], more[:, 1], _pair(exclude), out)

    def resolve_indexed(
        self,
        items: States,
        tables: tuple[States, States],
        low: int,
        exclude: tuple[States, ...] = (),
        more: States = _EMPTY,
        out: tuple[States, States, States] | None = None,
    ) -> tuple[States, States, States] | None:
        """:meth:`resolve_counted` of indexed moves ``key << low | r`` sorted by key
        (:meth:`index`): a move's count is row ``r`` of its run's table (``items``
        reads ``tables[0]``, ``more`` reads ``tables[1]``)."""
        n = len(items) + len(more)
        if out is None:
            out = (np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(n, np.uint64))
        return self._resolve(items, more, *tables, _pair(exclude), out, low)

    def _resolve(
        self,
        keys: States,
        more: States,
        counts: States,
        more_counts: States,
        exclude: tuple[States, ...],
        out: tuple[States, States, States],
        low: int = 0,
    ) -> tuple[States, States, States] | None:
        """The family's compiled pass: rows written into ``out`` (path counts only when its
        third buffer is not empty), as views; None if they do not fit."""
        ex = [*exclude, _EMPTY, _EMPTY]
        assert len(out[0]) == len(out[1]) and len(out[2]) in (0, len(out[0]))
        shift, low_ = np.uint64(self.tag_bits), np.uint64(low)
        m = self.resolver(
            keys, more, counts, more_counts, shift, low_, ex[0], ex[1], *out, self.args
        )
        if m == -2:
            raise OverflowError("path counts pass 64 bits")
        if m < 0:
            return None
        return out[0][:m], out[1][:m], out[2][:m]


def _pair(exclude: tuple[States, ...]) -> tuple[States, ...]:
    """The excluded levels as at most two arrays: the compiled pass merges two (a
    general graph excludes more: the rest are joined)."""
    if len(exclude) <= 2:
        return exclude
    return (exclude[0], np.sort(np.concatenate(exclude[1:])))


@njit(nogil=True, cache=True)
def room(out, m, more):
    """``out`` with room for ``more`` keys after its first ``m`` (doubled when short)."""
    if m + more <= len(out):
        return out
    bigger = np.empty(max(2 * len(out), m + more), np.uint64)
    bigger[:m] = out[:m]
    return bigger


@njit(inline="always")
def _shifted(key, shift, args):
    return key >> shift


@njit(inline="always")
def resolve_core(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, undo, args):
    """The resolve pass, inlined into each puzzle family's compiled ``resolver``
    (a module-level function naming its ``undo``, so numba caches it on disk).
    Writes the rows into ``children`` and ``parents`` (and, when ``sums`` is not
    empty, each child's path count, the sum of its moves' ``wa``/``wb``, run for run,
    into it: the kernels keep the name ``sums``, a rename moved numba's registers);
    returns how many, -1 when they do not fit (the caller tries again with room
    for every key) or -2 when a sum passes 64 bits."""
    return resolve_with(
        run_a,
        run_b,
        wa,
        wb,
        shift,
        low,
        ex_a,
        ex_b,
        children,
        parents,
        sums,
        _shifted,
        undo,
        args,
    )


@njit(inline="always")
def resolve_with(
    run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, child, undo, args
):
    """:func:`resolve_core` with the child of a key given by ``child(key, shift,
    args)`` (kernels that pack their children: ``drop`` > 0)."""
    if len(sums):
        return _resolve_with_counts(
            run_a,
            run_b,
            wa,
            wb,
            shift,
            low,
            ex_a,
            ex_b,
            children,
            parents,
            sums,
            child,
            undo,
            args,
        )
    na, nb = len(run_a), len(run_b)
    # Merge the two runs and group equal children, keeping the smallest parent.
    # Branch-light: a run that is used up reads as the largest key (no child of
    # a real puzzle has all 64 - shift bits set).
    top = ~np.uint64(0)
    m = -1
    last = top
    i = 0
    j = 0
    for _ in range(na + nb):
        ka = run_a[i] if i < na else top
        kb = run_b[j] if j < nb else top
        take_a = ka <= kb
        key = ka if take_a else kb
        i += int(take_a)
        j += not take_a
        c = child(key, shift, args)
        p = undo(key, args)
        new = c != last
        m += new
        if new:
            if m == len(children):
                return -1
            children[m] = c
            parents[m] = p
        elif p < parents[m]:
            parents[m] = p
        last = c
    m += 1
    if len(ex_a) == 0 and len(ex_b) == 0:
        return m
    # Drop the children found in the excluded levels (a merge against each).
    out = 0
    e = 0
    f = 0
    for r in range(m):
        c = children[r]
        while e < len(ex_a) and ex_a[e] < c:
            e += 1
        while f < len(ex_b) and ex_b[f] < c:
            f += 1
        hit = (e < len(ex_a) and ex_a[e] == c) or (f < len(ex_b) and ex_b[f] == c)
        children[out] = c
        parents[out] = parents[r]
        out += not hit
    return out


@njit(inline="always")
def _resolve_with_counts(
    run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, child, undo, args
):
    """:func:`resolve_with` with path counts: each new child is looked up in the
    excluded levels as it comes, so only the kept children's counts are summed (and
    must stay within 64 bits). ``low`` > 0: the runs hold indexed moves ``key <<
    low | r``, sorted by key, each counting ``wa[r]`` (``wb[r]`` in ``run_b``)."""
    na, nb = len(run_a), len(run_b)
    mask = (np.uint64(1) << low) - np.uint64(1)
    top = ~np.uint64(0)
    m = 0
    last = top
    kept = False
    i = 0
    j = 0
    e = 0
    f = 0
    for _ in range(na + nb):
        ka = run_a[i] if i < na else top
        kb = run_b[j] if j < nb else top
        take_a = ka <= kb
        if take_a:
            key = ka
            w = wa[ka & mask] if low else wa[i]
            i += 1
        else:
            key = kb
            w = wb[kb & mask] if low else wb[j]
            j += 1
        key >>= low
        c = child(key, shift, args)
        p = undo(key, args)
        if c != last:
            last = c
            e = _seek(ex_a, e, c)
            f = _seek(ex_b, f, c)
            kept = not ((e < len(ex_a) and ex_a[e] == c) or (f < len(ex_b) and ex_b[f] == c))
            if kept:
                if m == len(children):
                    return -1
                children[m] = c
                parents[m] = p
                sums[m] = w
                m += 1
        elif kept:
            if p < parents[m - 1]:
                parents[m - 1] = p
            total = sums[m - 1] + w
            if total < w:
                return -2
            sums[m - 1] = total
    return m


@njit(inline="always")
def _seek(ex, e, c):
    """The first place from ``e`` on in the sorted ``ex`` whose value is not below ``c``
    (inlined: the split keeps :func:`_resolve_with_counts` readable at no cost)."""
    while e < len(ex) and ex[e] < c:
        e += 1
    return e


@njit(inline="always")
def weigh_core(keys, states, counts, low, out, undo, args):
    """Writes ``out[r] = (keys[r], count of its parent)``, or with ``low`` > 0
    ``out[r, 0] = keys[r] << low | row of its parent`` (``out`` may be ``keys``):
    the keys of a kernel come state by state, so their parents rise and one pass
    over ``states`` finds them. False if a parent is not where that order puts it."""
    i = 0
    n = len(states)
    for r in range(len(keys)):
        key = keys[r]
        p = undo(key, args)
        while i < n and states[i] < p:
            i += 1
        if i == n or states[i] != p:
            return False
        if low:
            out[r, 0] = (key << low) | np.uint64(i)
        else:
            out[r, 0] = key
            out[r, 1] = counts[i]
    return True
