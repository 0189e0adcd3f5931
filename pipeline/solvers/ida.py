"""IDA* on a sliding puzzle with additive pattern databases, compiled with numba.

The search is the hot loop (tens of millions of nodes for a hard 15-puzzle),
so it runs as one compiled function: an iterative depth-first search with an
explicit stack, the board as a byte array, and the pattern indexes updated
incrementally (a move changes one tile, so one index of the sum and one of
its reflection). The heuristic is the sum of the pattern-database values,
and on square boards the maximum of that sum and the sum for the board
reflected across the main diagonal (the goal is symmetric there).

Everything about a board arrives as plain arrays (see
:class:`~pipeline.solvers.ida_tables.Tables`), so the kernel knows no puzzle
and compiles once for every board.

Solves normally run its twin in C (ida_kernel.c via ida_c.py: no numba to
import or load, same nodes and moves); this one is the fallback when no C
compiler works, and the reference tests/test_ida_c.py compares them against.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: No bound found yet (larger than any depth).
_INF = 1 << 30


@njit(cache=True, inline="always")
def _h(idx: np.ndarray, ridx: np.ndarray, off: np.ndarray, pdb: np.ndarray, use_refl: bool) -> int:
    s = 0
    for g in range(len(idx)):
        s += pdb[off[g] + idx[g]]
    if use_refl:
        r = 0
        for g in range(len(ridx)):
            r += pdb[off[g] + ridx[g]]
        if r > s:
            s = r
    return s


@njit(cache=True)
def heuristic(
    board: np.ndarray,
    grp: np.ndarray,
    w: np.ndarray,
    rgrp: np.ndarray,
    rw: np.ndarray,
    refl: np.ndarray,
    off: np.ndarray,
    pdb: np.ndarray,
    use_refl: bool,
) -> int:
    """The heuristic of one position (for tests and the first bound)."""
    idx = np.zeros(len(off), np.int64)
    ridx = np.zeros(len(off), np.int64)
    for c in range(len(board)):
        t = board[c]
        if t != 0:
            idx[grp[t]] += c * w[t]
            ridx[rgrp[t]] += refl[c] * rw[t]
    return _h(idx, ridx, off, pdb, use_refl)


@njit(cache=True)
def ida(  # noqa: C901  (a compiled kernel: one loop the JIT sees whole)
    board0: np.ndarray,
    nbr: np.ndarray,
    nnbr: np.ndarray,
    grp: np.ndarray,
    w: np.ndarray,
    rgrp: np.ndarray,
    rw: np.ndarray,
    refl: np.ndarray,
    off: np.ndarray,
    pdb: np.ndarray,
    use_refl: bool,
    max_bound: int,
) -> tuple[int, int, np.ndarray]:
    """Optimal solution length, nodes generated, and the blank's cells along it.

    Returns length -1 when no solution is within ``max_bound`` moves.
    """
    board = board0.copy()
    n = len(board)
    idx = np.zeros(len(off), np.int64)
    ridx = np.zeros(len(off), np.int64)
    blank = -1
    for c in range(n):
        t = board[c]
        if t == 0:
            blank = c
        else:
            idx[grp[t]] += c * w[t]
            ridx[rgrp[t]] += refl[c] * rw[t]
    path = np.zeros(max_bound + 1, np.int64)
    h0 = _h(idx, ridx, off, pdb, use_refl)
    nodes = 0
    if h0 == 0:
        return 0, nodes, path[:0]
    blanks = np.zeros(max_bound + 2, np.int64)
    prev = np.zeros(max_bound + 2, np.int64)
    it = np.zeros(max_bound + 2, np.int64)
    bound = h0
    while bound <= max_bound:
        nxt = _INF
        d = 0
        blanks[0] = blank
        prev[0] = -1
        it[0] = 0
        while d >= 0:
            b = blanks[d]
            i = it[d]
            if i < nnbr[b]:
                it[d] = i + 1
                j = nbr[b, i]
                if j == prev[d]:
                    continue
                t = board[j]
                g = grp[t]
                dg = (b - j) * w[t]
                rg = rgrp[t]
                dr = (refl[b] - refl[j]) * rw[t]
                idx[g] += dg
                ridx[rg] += dr
                h = _h(idx, ridx, off, pdb, use_refl)
                nodes += 1
                f = d + 1 + h
                if f > bound:
                    if f < nxt:
                        nxt = f
                    idx[g] -= dg
                    ridx[rg] -= dr
                    continue
                board[b] = t
                board[j] = 0
                path[d] = j
                if h == 0:
                    return d + 1, nodes, path[: d + 1].copy()
                d += 1
                blanks[d] = j
                prev[d] = b
                it[d] = 0
            else:
                if d == 0:
                    break
                j = blanks[d]
                b = blanks[d - 1]
                t = board[b]
                board[j] = t
                board[b] = 0
                idx[grp[t]] -= (b - j) * w[t]
                ridx[rgrp[t]] -= (refl[b] - refl[j]) * rw[t]
                d -= 1
        if nxt == _INF:
            break
        bound = nxt
    return -1, nodes, path[:0]
