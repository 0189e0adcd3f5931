"""Sliding-tile moves as compiled kernels for the fast level step (packed.py).

Imported on first use: numba takes 0.4 s to import, which a look-up should not pay.

A board of 16 cells (the 15 puzzle) fills all 64 bits, leaving no room for the
tag. Its keys hold the child without cell 0's nibble (``child >> 4``): the
cells hold each of 0..15 once, so cell 0 is the XOR of the other fifteen, and
two positions differ in at least two cells, so they still differ once cell 0
(the lowest nibble) is left out, in the same order. The states on disk keep
all 16 cells: packing lives inside the step only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from pipeline.engine.packed import BIT_INDEX, Kernels, bit_position, resolve_with, room, weigh_core


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
    args = (table, np.uint64(low), BIT_INDEX, width, tag_bits, np.uint64(drop))
    unpack = _refill_all if drop else None
    return Kernels(tag_bits, _tile_keys, args, _tile_resolve, drop, unpack, _tile_weigh)
