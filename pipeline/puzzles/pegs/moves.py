"""Peg jumps as compiled kernels for the fast level step (packed.py).

A key is ``child << 7 | j`` for jump j (at most 128 jumps, so boards of up to
57 holes): the parent is the child with jump j's three bits flipped back.

The kernel finds jumps bit-parallel: the holes are laid on a grid (row, column
of the board's picture, columns packed; or a linear map of them, see
:func:`grid_cells`) with one bit a cell, so that each jump
direction is one shift of the whole board. For a direction d, the holes a jump
can land in are ``empty & pegs shifted by d & pegs shifted by 2d & lines(d)``,
``lines(d)`` marking the cells where such a line of three holes exists (which
also rules out lines wrapped round the grid's edge). Only the legal jumps are
then visited, about ten a state instead of every (empty hole, line) pair.
Imported on first use, like tiles/moves.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numba import njit

from pipeline.engine.packed import BIT_INDEX, Kernels, bit_position, resolve_core, room, weigh_core

TAG_BITS = 7


@njit(inline="always")
def each_jump(states, lo, hi, out, args, start, jumped, extra):
    """The keys in [lo, hi] of every legal jump out of every state, written from the
    start of ``out`` (grown as :func:`room` grows it); the kernels of every peg table.

    ``args`` starts with :func:`peg_moves`'s; ``start(s, extra)`` is called once a
    state, then ``jumped(out, m, lo, hi, s, j, extra)`` for each legal jump ``j``
    out of ``s``: it writes the jump's keys after the first ``m`` and returns the
    new count, or -1 when ``out`` is full (``out`` then doubles and it is asked
    again; room for ``args``'s ``most`` keys is made before each state). Both are
    the caller's ``@njit(inline="always")`` functions, compiled in place; ``jumped``
    returns a count, never ``out`` itself, and is called from one place (the kernels
    are slower either other way).
    """
    to_grid, grid, left, right, lines, jump_at, _, bit_index, most = args[:9]
    m = 0
    for i in range(len(states)):
        s = states[i]
        start(s, extra)
        if m + most > len(out):
            out = room(out, m, most)
        g = np.uint64(0)
        for b in range(to_grid.shape[0]):
            g |= to_grid[b, (s >> np.uint64(8 * b)) & np.uint64(255)]
        empty = ~g & grid
        for d in range(len(left)):
            over = (g << np.uint64(left[d])) >> np.uint64(right[d])
            far = (over << np.uint64(left[d])) >> np.uint64(right[d])
            land = empty & over & far & lines[d]
            while land:
                low = land & (~land + np.uint64(1))
                j = jump_at[d, bit_position(low, bit_index)]
                n = jumped(out, m, lo, hi, s, j, extra)
                if n < 0:  # out full: doubled, and the jump asked again
                    out = room(out, m, len(out) + 1 - m)
                    continue
                land ^= low
                m = n
    return out[:m]


@njit(inline="always")
def no_start(s, extra):
    """A kernel with nothing to do once a state (:func:`each_jump`'s ``start``)."""


@njit(inline="always")
def _peg_key(out, m, lo, hi, s, j, flip):
    key = ((s ^ flip[j]) << np.uint64(TAG_BITS)) | np.uint64(j)
    out[m] = key
    return m + ((key >= lo) & (key <= hi))


@njit(nogil=True, cache=True)
def _peg_keys(states, skip, lo, hi, out, args):
    """Every legal jump of every state whose key lies in [lo, hi]."""
    return each_jump(states, lo, hi, out, args, no_start, _peg_key, args[6])


@njit(inline="always")
def _peg_undo(key, args):
    flip = args[6]
    return (key >> np.uint64(TAG_BITS)) ^ flip[key & np.uint64((1 << TAG_BITS) - 1)]


@njit(nogil=True, cache=True)
def _peg_resolve(run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, args):
    return resolve_core(
        run_a, run_b, wa, wb, shift, low, ex_a, ex_b, children, parents, sums, _peg_undo, args
    )


@njit(nogil=True, cache=True)
def _peg_weigh(keys, states, counts, low, out, args):
    return weigh_core(keys, states, counts, low, out, _peg_undo, args)


def grid_cells(holes: Sequence[tuple[int, int]]) -> list[int] | None:
    """Each hole's bit on the grid the kernel shifts, or None when none fits 64 bits.

    Row by row when the picture's rows fit (the English and French boards);
    else the map ``a * row + b * column`` one to one on the holes that spans
    the fewest bits (at most 64): a linear map keeps every line of three holes a
    line of three bits with one offset a direction, which is all the kernel
    asks. The 41-hole diamond's 9 rows of 9 columns need 81 bits row by row;
    ``5 * row - 4 * column`` (in hole steps) lays its 41 holes on 41 bits.
    """
    r0, c0 = min(r for r, _ in holes), min(c for _, c in holes)
    step = math.gcd(*(c - c0 for _, c in holes)) or 1
    rc = [(r - r0, (c - c0) // step) for r, c in holes]
    width = max(c for _, c in rc) + 1
    if (max(r for r, _ in rc) + 1) * width <= 64:
        return [r * width + c for r, c in rc]
    maps = ([a * r + b * c for r, c in rc] for a in range(1, 64) for b in range(-63, 64))
    fits = [m for m in maps if max(m) - min(m) < 64 and len(set(m)) == len(m)]
    if not fits:
        return None
    best = min(fits, key=lambda m: max(m) - min(m))
    return [x - min(best) for x in best]


def peg_moves(
    holes: Sequence[tuple[int, int]], jumps: Sequence[tuple[int, int, int]]
) -> Kernels | None:
    """The kernels for ``jumps`` (from, over, to) between ``holes`` at (row, column)
    of a picture, or None when a key or the grid would not fit in 64 bits."""
    n = len(holes)
    if len(jumps) > 1 << TAG_BITS or n + TAG_BITS > 64:
        return None
    cell = grid_cells(holes)
    if cell is None:
        return None
    to_grid = np.zeros(((n + 7) // 8, 256), np.uint64)
    for b in range(to_grid.shape[0]):
        for v in range(256):
            bits = 0
            for k in range(8):
                if v >> k & 1 and 8 * b + k < n:
                    bits |= 1 << cell[8 * b + k]
            to_grid[b, v] = bits
    # One direction per grid offset from a jump's 'over' to its 'to'.
    offsets = sorted({cell[t] - cell[o] for _, o, t in jumps})
    left = np.array([max(0, d) for d in offsets], np.int64)
    right = np.array([max(0, -d) for d in offsets], np.int64)
    lines = np.zeros(len(offsets), np.uint64)
    jump_at = np.full((len(offsets), 64), -1, np.int64)
    for j, (f, o, t) in enumerate(jumps):
        d = offsets.index(cell[t] - cell[o])
        if cell[o] - cell[f] != offsets[d]:
            return None  # not a straight line on the grid
        lines[d] |= np.uint64(1 << cell[t])
        jump_at[d, cell[t]] = j
    flip = np.array([(1 << f) | (1 << o) | (1 << t) for f, o, t in jumps], np.uint64)
    grid = np.uint64(sum(1 << c for c in cell))
    most = len(jumps)  # keys one state may write at most
    args = (to_grid, grid, left, right, lines, jump_at, flip, BIT_INDEX, most)
    bits = n + TAG_BITS
    return Kernels(TAG_BITS, _peg_keys, args, _peg_resolve, weigher=_peg_weigh, key_bits=bits)
