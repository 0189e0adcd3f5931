"""The moves of regions.py compiled: the plain expander, and kernels for the fast
level step (packed.py).

Imported on first use (importing numba costs more than a look-up should pay:
docs/BENCHMARKS.md, figures behind the code).

A key is ``child << 8 | i << 4 | c``: pattern tile i slid out of cell c. The
parent follows: tile i back on c, and the blank's region is the one holding
the cell the tile left in the child.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.engine.packed import Kernels, resolve_core, room, weigh_core

TAG_BITS = 8


@njit(inline="always")
def _fill(seed, free, nbrs, n):
    """The cells of ``free`` (a bit mask) connected to the cells of ``seed``."""
    region = seed
    frontier = seed
    while frontier:
        grow = 0
        for c in range(n):
            if (frontier >> c) & 1:
                grow |= nbrs[c]
        frontier = grow & free & ~region
        region |= frontier
    return region


@njit(inline="always")
def _lowest(mask, n):
    for c in range(n):
        if (mask >> c) & 1:
            return c
    return n


@njit(inline="always")
def _occupied(s, k):
    occ = 0
    for i in range(k):
        occ |= 1 << ((s >> (4 * i)) & 15)
    return occ


@njit(inline="always")
def _moves(s, k, n, nbrs, out, at):
    """Write the children of state ``s`` at ``out[at:]`` (none when ``out`` is
    empty); return how many there are."""
    free = ((1 << n) - 1) & ~_occupied(s, k)
    region = _fill(1 << ((s >> (4 * k)) & 15), free, nbrs, n)
    count = 0
    for i in range(k):
        c = (s >> (4 * i)) & 15
        into = nbrs[c] & region
        for j in range(n):
            if not (into >> j) & 1:
                continue
            if len(out):
                free2 = (free & ~(1 << j)) | (1 << c)
                rep = _lowest(_fill(1 << c, free2, nbrs, n), n)
                child = s & ~((15 << (4 * i)) | (15 << (4 * k)))
                out[at + count] = child | (j << (4 * i)) | (rep << (4 * k))
            count += 1
    return count


@njit(nogil=True, cache=True)
def region_expand(states, k, n, nbrs):
    """(parent row, child) of every move out of ``states``."""
    counts = np.empty(len(states), np.int64)
    none = np.empty(0, np.int64)
    for r in range(len(states)):
        counts[r] = _moves(np.int64(states[r]), k, n, nbrs, none, 0)
    total = counts.sum()
    kids = np.empty(total, np.int64)
    src = np.empty(total, np.intp)
    at = 0
    for r in range(len(states)):
        _moves(np.int64(states[r]), k, n, nbrs, kids, at)
        src[at : at + counts[r]] = r
        at += counts[r]
    return src, kids


@njit(nogil=True, cache=True)
def _region_keys(states, skip, lo, hi, out, args):
    """Keys of every move out of ``states`` in ``[lo, hi]``, minus those to ``skip[i]``."""
    k, n, nbrs = args
    use_skip = len(skip) > 0
    full = (1 << n) - 1
    m = 0
    for r in range(len(states)):
        out = room(out, m, 4 * k)
        s = np.int64(states[r])
        free = full & ~_occupied(s, k)
        region = _fill(1 << ((s >> (4 * k)) & 15), free, nbrs, n)
        for i in range(k):
            c = (s >> (4 * i)) & 15
            into = nbrs[c] & region
            for j in range(n):
                if not (into >> j) & 1:
                    continue
                rep = _lowest(_fill(1 << c, (free & ~(1 << j)) | (1 << c), nbrs, n), n)
                child = s & ~((15 << (4 * i)) | (15 << (4 * k)))
                child |= (j << (4 * i)) | (rep << (4 * k))
                key = (np.uint64(child) << np.uint64(TAG_BITS)) | np.uint64((i << 4) | c)
                if key < lo or key > hi:
                    continue
                if use_skip and np.uint64(child) == skip[r]:
                    continue
                out[m] = key
                m += 1
    return out[:m]


@njit(inline="always")
def _region_undo(key, args):
    k, n, nbrs = args
    s = np.int64(key >> np.uint64(TAG_BITS))
    tag = np.int64(key & np.uint64((1 << TAG_BITS) - 1))
    i, c = tag >> 4, tag & 15
    j = (s >> (4 * i)) & 15
    parent = (s & ~(15 << (4 * i))) | (c << (4 * i))
    free = ((1 << n) - 1) & ~_occupied(parent, k)
    rep = _lowest(_fill(1 << j, free, nbrs, n), n)
    parent = (parent & ~(15 << (4 * k))) | (rep << (4 * k))
    return np.uint64(parent)


@njit(nogil=True, cache=True)
def _region_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _region_undo, args
    )


@njit(nogil=True, cache=True)
def _region_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _region_undo, args)


def region_moves(k: int, n: int, nbrs: np.ndarray) -> Kernels:
    """The kernels of a region table: ``k`` pattern tiles on ``n`` cells whose
    neighbours are the bit masks ``nbrs``."""
    assert 4 * (k + 1) + TAG_BITS <= 64 and k <= 15
    args = (k, n, np.ascontiguousarray(nbrs, np.int64))
    return Kernels(
        TAG_BITS,
        _region_keys,
        args,
        _region_resolve,
        weigher=_region_weigh,
        key_bits=4 * (k + 1) + TAG_BITS,
    )


@njit(nogil=True, cache=True)
def rank_states(states, k, n):
    """regions.perm_rank of the tiles' cells of each state (the compact array's index),
    compiled: deriving 4x4-pdb-8's array ranks 1.4 billion states."""
    out = np.empty(len(states), np.int64)
    for r in range(len(states)):
        s = np.int64(states[r])
        used: int | np.int64 = 0
        rank = 0
        for i in range(k):
            c = (s >> (4 * i)) & 15
            below = used & ((1 << c) - 1)
            smaller = 0
            while below:
                below &= below - 1
                smaller += 1
            rank = rank * (n - i) + c - smaller
            used |= 1 << c
        out[r] = rank
    return out
