"""Sliding-tile moves as compiled kernels for the fast level step (packed.py).

Imported on first use: importing numba costs more than a look-up should pay
(docs/BENCHMARKS.md, figures behind the code).

A board of 16 cells (the 15 puzzle) fills all 64 bits, leaving no room for the
tag. Its keys hold the child without cell 0's nibble (``child >> 4``): the
cells hold each of 0..15 once, so cell 0 is the XOR of the other fifteen, and
two positions differ in at least two cells, so they still differ once cell 0
(the lowest nibble) is left out, in the same order. The states on disk keep
all 16 cells: packing lives inside the step only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from pipeline.engine.marks import NO_KEY, mark_core, scan_core
from pipeline.engine.packed import (
    BIT_INDEX,
    Kernels,
    bit_position,
    resolve_with,
    room,
    weigh_core,
)
from pipeline.engine.space import DenseSpace, MarkKernels

#: LLVM's count of trailing zeros (one instruction), typed as compiled code calls it:
#: numba declares the intrinsic with its typing context as the first argument.
_trailing_zeros = cast("Callable[[np.uint64], np.uint64]", trailing_zeros)


@njit(inline="always")
def _blank(s, low, bit_index):
    """Cell of the blank: the one nibble with no bit set."""
    x = s | (s >> np.uint64(1))
    x |= x >> np.uint64(2)
    zero = ~x & low
    return bit_position(zero, bit_index) >> 2


@njit(nogil=True, cache=True)
def _tile_keys(states, skip, lo, hi, out, args):
    """Keys child << tag_bits | k, k the index of the old blank among the new blank's
    neighbours. Writes every neighbour slot and advances only past real moves."""
    table, low, bit_index, width, tag_bits, drop = args
    use_skip = len(skip) > 0
    m = 0
    for i in range(len(states)):
        if m + width > len(out):
            out = room(out, m, width)
        s = states[i]
        b = _blank(s, low, bit_index)
        degree = table[b, 0]
        for k in range(width):
            j = table[b, 1 + k]
            tile = (s >> np.uint64(4 * j)) & np.uint64(15)
            child = s ^ (tile << np.uint64(4 * j)) ^ (tile << np.uint64(4 * b))
            key = ((child >> drop) << np.uint64(tag_bits)) | np.uint64(table[b, 1 + width + k])
            out[m] = key
            ok = (k < degree) & (key >= lo) & (key <= hi)
            if use_skip:
                ok &= child != skip[i]
            m += ok
    return out[:m]


@njit(inline="always")
def _refill(packed):
    """The state whose cells 1..15 are ``packed``: cell 0 is the XOR of the others
    (0 ^ 1 ^ ... ^ 15 == 0)."""
    x = packed ^ (packed >> np.uint64(32))
    x ^= x >> np.uint64(16)
    x ^= x >> np.uint64(8)
    x ^= x >> np.uint64(4)
    return (packed << np.uint64(4)) | (x & np.uint64(15))


@njit(inline="always")
def _tile_child(key, shift, args):
    s = key >> shift
    return _refill(s) if args[5] else s


@njit(nogil=True, cache=True)
def _refill_all(packed):
    out = np.empty_like(packed)
    for i in range(len(packed)):
        out[i] = _refill(packed[i])
    return out


@njit(inline="always")
def _tile_undo(key, args):
    table, low, bit_index, _, tag_bits, drop = args
    s = key >> np.uint64(tag_bits)
    if drop:
        s = _refill(s)
    c = _blank(s, low, bit_index)
    b = table[c, 1 + (key & np.uint64((1 << tag_bits) - 1))]
    tile = (s >> np.uint64(4 * b)) & np.uint64(15)
    return s ^ (tile << np.uint64(4 * b)) ^ (tile << np.uint64(4 * c))


@njit(nogil=True, cache=True)
def _tile_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_with(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b,
        children, parents, sums, _tile_child, _tile_undo, args,
    )  # fmt: skip


@njit(nogil=True, cache=True)
def _tile_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _tile_undo, args)


#: The kernels' arguments: each cell's degree, neighbours and tags back (the table),
#: the low bit of each nibble, the bit index, the widest degree, the tag bits, and
#: the bits a key drops (cell 0's nibble, on 16 cells).
TileArgs = tuple[np.ndarray, np.uint64, np.ndarray, int, int, np.uint64]


def tile_moves(adjacency: Sequence[Sequence[int]], low: int) -> Kernels:
    """The kernels for tiles on ``adjacency`` (4 bits a cell, ``low`` the low bit of
    each cell's nibble); 16 cells key their children without cell 0 (see above)."""
    width = max(len(a) for a in adjacency)
    tag_bits = max(1, (width - 1).bit_length())
    drop = 4 if len(adjacency) == 16 else 0
    assert 4 * len(adjacency) - drop + tag_bits <= 64
    # Row b: degree of cell b, its neighbours (padded with b itself: a
    # harmless swap of the blank with itself), and for each neighbour j
    # the index of b among j's neighbours (the tag of that move's key).
    table = np.zeros((len(adjacency), 1 + 2 * width), np.int64)
    for b, nbrs in enumerate(adjacency):
        table[b, 0] = len(nbrs)
        table[b, 1 : 1 + width] = b
        for k, j in enumerate(nbrs):
            table[b, 1 + k] = j
            table[b, 1 + width + k] = adjacency[j].index(b)
    args: TileArgs = (table, np.uint64(low), BIT_INDEX, width, tag_bits, np.uint64(drop))
    unpack = _refill_all if drop else None
    space = tile_ranks(adjacency, args)
    return Kernels(
        tag_bits, _tile_keys, args, _tile_resolve, drop, unpack, _tile_weigh, space=space
    )


# -- the dense rank (the dense engine's marks): boards of up to RANK_CELLS cells -------

#: The most cells a board is ranked for: 12! ranks take 240 MB of marks (13! would
#: take 3.1 GB); the ranks' loops run over this many cells, the ones past a
#: smaller board's masked.
RANK_CELLS = 12
#: Cell p's digit is worth p! in a rank (globals, which numba folds into the
#: unrolled loops as constants).
_FACT = np.array([math.factorial(p) for p in range(RANK_CELLS)], np.uint64)
_FACT_SIGNED = _FACT.astype(np.int64)
_INVERSE = 1.0 / _FACT.astype(np.float64)


@njit(inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555_5555_5555_5555))
    x = (x & np.uint64(0x3333_3333_3333_3333)) + (
        (x >> np.uint64(2)) & np.uint64(0x3333_3333_3333_3333)
    )
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F_0F0F_0F0F_0F0F)
    return (x * np.uint64(0x0101_0101_0101_0101)) >> np.uint64(56)


@njit(inline="always")
def _rank(s, args):
    """The lexicographic rank of the board's permutation read from the top cell down:
    cell p's digit is how many lower cells hold a smaller tile, worth p!. A larger
    state has a larger rank (its first differing cell, from the top, holds more)."""
    n = args[0]
    seen = np.uint64(0)
    r = np.uint64(0)
    for p in range(RANK_CELLS - 1, -1, -1):
        v = (s >> np.uint64(4 * p)) & np.uint64(15)  # 0 past the board: adds nothing
        r += (v - _popcount(seen & ((np.uint64(1) << v) - np.uint64(1)))) * _FACT[p]
        seen |= np.uint64(p < n) << v
    return r


@njit(inline="always")
def _unrank(r, args):
    """The state of rank ``r``: each cell's digit from the top, then the tile that many
    places into those not placed yet (a list of nibbles). Unrolled by hand: numba
    leaves the loop rolled, and the calling loop is then not vectorized (many times
    slower: docs/BENCHMARKS.md, figures behind the code)."""
    n = args[0]
    q, left, s = np.int64(r), np.int64(0x0EDC_BA98_7654_3210), np.int64(0)
    q, left, s = _place(11, n, q, left, s)
    q, left, s = _place(10, n, q, left, s)
    q, left, s = _place(9, n, q, left, s)
    q, left, s = _place(8, n, q, left, s)
    q, left, s = _place(7, n, q, left, s)
    q, left, s = _place(6, n, q, left, s)
    q, left, s = _place(5, n, q, left, s)
    q, left, s = _place(4, n, q, left, s)
    q, left, s = _place(3, n, q, left, s)
    q, left, s = _place(2, n, q, left, s)
    q, left, s = _place(1, n, q, left, s)
    q, left, s = _place(0, n, q, left, s)
    return np.uint64(s)


@njit(inline="always")
def _place(p, n, q, left, s):
    """Cell ``p``'s tile (on a board of ``n`` cells) from what is left ``q`` of the rank:
    its digit ``q // p!`` by a multiplication in floating point (exact: the rank is
    below 2**29 and a fraction is never within 1e-9 of the next whole number)."""
    d = np.int64(np.float64(q) * _INVERSE[p] + 1e-9)
    q -= d * _FACT_SIGNED[p]
    at = 4 * d
    tile = (left >> at) & 15
    rest = (left & ((np.int64(1) << at) - 1)) | ((left >> (at + 4)) << at)
    inside = p < n
    return q, rest if inside else left, s | (tile << (4 * p) if inside else np.int64(0))


@njit(inline="always")
def _rank_undo(key, args):
    """The parent a key ``child << 2 | tag`` of the ranks came from (_tile_undo, with
    the blank found by a count of trailing zeros, which vectorizes)."""
    table, low = args[0][0], args[0][1]
    s = key >> np.uint64(2)
    x = s | (s >> np.uint64(1))
    x |= x >> np.uint64(2)
    c = _trailing_zeros(~x & low) >> np.uint64(2)
    b = table[c, 1 + (key & np.uint64(3))]
    tile = (s >> np.uint64(4 * b)) & np.uint64(15)
    return s ^ (tile << np.uint64(4 * b)) ^ (tile << (c << np.uint64(2)))


@njit(nogil=True, cache=True)
def _tile_ranked_keys(states, skip, back, out, scratch, args):
    """Keys ``rank(child) << 2 | tag`` (the tags of _tile_keys: the child's move back is
    its move ``tag``) of every move but a move ``k`` with bit ``k`` of ``back[i]``
    set, NO_KEY for a move to ``skip[i]``; returns how many.

    The states are first grouped by their blank's cell and their ``back`` bits (in
    ``scratch``, with their ``skip``): each move of a group is then one loop over
    its states, which the compiler vectorizes, and a move back makes no key."""
    (table, low, bit_index, _, _, _), ranks = args
    n, cells = len(states), table.shape[0]
    use_skip, use_back = len(skip) > 0, len(back) > 0
    grouped, skips = scratch[:n], scratch[n : 2 * n]
    starts = np.zeros(16 * cells + 1, np.int64)  # group 16 * blank + back bits
    for i in range(n):
        starts[16 * _blank(states[i], low, bit_index) + (back[i] if use_back else 0) + 1] += 1
    for g in range(16 * cells):
        starts[g + 1] += starts[g]
    at = starts[:-1].copy()
    for i in range(n):
        g = 16 * _blank(states[i], low, bit_index) + (back[i] if use_back else 0)
        grouped[at[g]] = states[i]
        if use_skip:
            skips[at[g]] = skip[i]
        at[g] += 1
    m = 0
    for g in range(16 * cells):
        first, end = starts[g], starts[g + 1]
        b = g >> 4
        for k in range(table[b, 0] if end > first else 0):
            if (g >> k) & 1:
                continue  # a move back to a parent
            j, tag = np.uint64(4 * table[b, 1 + k]), np.uint64(table[b, 5 + k])
            into = out[m : m + end - first]
            if use_skip:
                _ranked_move(grouped[first:end], skips[first:end], into, j, 4 * b, tag, ranks)
            else:
                _ranked_move(grouped[first:end], _NONE, into, j, 4 * b, tag, ranks)
            m += end - first
    return m


_NONE = np.empty(0, np.uint64)


@njit(inline="always")
def _ranked_move(states, skips, out, j, b, tag, ranks):
    """One move (the blank from cell ``b // 4`` to ``j // 4``) of states grouped by
    their blank: one loop over whole arrays, which the compiler vectorizes (it does
    not over indices into a larger array: docs/BENCHMARKS.md, figures behind the code)."""
    b = np.uint64(b)
    for i in range(len(states)):
        s = states[i]
        x = (s >> j) & np.uint64(15)
        child = s ^ (x << j) ^ (x << b)
        key = np.uint32((_rank(child, ranks) << np.uint64(2)) | tag)
        out[i] = NO_KEY if len(skips) and child == skips[i] else key


@njit(nogil=True, cache=True)
def _tile_scan(marks, seen, w0, w1, states, parents, back, args):
    return scan_core(marks, seen, w0, w1, states, parents, back, _unrank_of, _rank_undo, args)


@njit(inline="always")
def _unrank_of(r, args):
    return _unrank(r, args[1])


@njit(nogil=True, cache=True)
def _tile_mark(states, seen, args):
    mark_core(states, seen, _rank_of, args)


@njit(inline="always")
def _rank_of(s, args):
    return _rank(s, args[1])


def tile_ranks(adjacency: Sequence[Sequence[int]], moves: TileArgs) -> DenseSpace | None:
    """The moves over the dense rank of a board of up to :data:`RANK_CELLS` cells
    (every tile once, keys of 2 tag bits, ``moves`` the args of :func:`tile_moves`),
    by the dense engine's marks; None for a larger board or one with a cell of more
    than four neighbours."""
    n = len(adjacency)
    if n > RANK_CELLS or max(len(a) for a in adjacency) > 4:
        return None
    table, width = moves[0], moves[3]
    padded = np.zeros((n, 9), np.int64)  # four neighbour slots and four tags, as _tile_keys'
    for b in range(n):
        padded[b, 0] = table[b, 0]
        padded[b, 1:5] = b
        padded[b, 1 : 1 + width] = table[b, 1 : 1 + width]
        padded[b, 5 : 5 + width] = table[b, 1 + width : 1 + 2 * width]
    args = ((padded, *moves[1:3], 4, 2, moves[5]), (n,))
    marks = MarkKernels(_tile_ranked_keys, _tile_scan, _tile_mark, args)
    return DenseSpace(math.factorial(n), 4, marks=marks)
