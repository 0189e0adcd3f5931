"""Arrangement ranks in compiled loops, for filling a set's move tables (tables.py).

The same ranks as :class:`pack.SetCode` (a multiset's lexicographic rank,
halved for a set of even moves), a row at a time: numpy's whole-array form
spent most of its time dividing uint64 arrays (a 1.8-million-row table took 5
s). Imported on first use: numba takes 0.4 s to load, which reading a
position should not pay.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.puzzles.twisty.pack import SetCode, multinomial


@njit(inline="always")
def _times(total, c, m):
    """``total * c // m`` exactly, the result known to be an integer that fits."""
    return (total // m) * c + (total % m) * c // m


@njit(cache=True)
def _rank(seq, counts, work, total0, even):
    r = np.uint64(0)
    total = total0
    work[:] = counts
    n = len(seq)
    for j in range(n):
        m = np.uint64(n - j)
        v = seq[j]
        below = np.uint64(0)
        for x in range(v):
            below += work[x]
        r += _times(total, below, m)
        total = _times(total, work[v], m)
        work[v] -= np.uint64(1)
    return r >> np.uint64(1) if even else r


@njit(cache=True)
def _unrank(r, counts, work, total0, out):
    total = total0
    work[:] = counts
    n = len(out)
    for j in range(n):
        m = np.uint64(n - j)
        for x in range(len(work)):
            t = _times(total, work[x], m)
            if r < t:
                out[j] = x
                total = t
                work[x] -= np.uint64(1)
                break
            r -= t


@njit(cache=True)
def _odd(seq):
    odd = 0
    for i in range(len(seq)):
        for j in range(i + 1, len(seq)):
            odd ^= seq[i] > seq[j]
    return odd


@njit(cache=True)
def _arrangement(r, counts, work, total0, even, parity, out):
    """The label indices of arrangement ``r`` (the reachable parity's when ``even``)."""
    if not even:
        _unrank(r, counts, work, total0, out)
        return
    _unrank(r * np.uint64(2), counts, work, total0, out)
    if _odd(out) != parity:
        _unrank(r * np.uint64(2) + np.uint64(1), counts, work, total0, out)


@njit(cache=True)
def _arranged(rows, perms, forbid, counts, total0, even, parity, blocked):
    """``out[r, t]``: the rank of arrangement r after move t (``perms[t]``: each
    position's source), ``blocked`` where ``forbid[position, label]``."""
    n = perms.shape[1]
    out = np.empty((rows, len(perms)), np.uint32)
    seq = np.empty(n, np.int64)
    moved = np.empty(n, np.int64)
    work = np.empty(len(counts), np.uint64)
    for r in range(rows):
        _arrangement(np.uint64(r), counts, work, total0, even, parity, seq)
        for t in range(len(perms)):
            ok = True
            for j in range(n):
                moved[j] = seq[perms[t, j]]
                ok &= not forbid[j, moved[j]]
            out[r, t] = _rank(moved, counts, work, total0, even) if ok else blocked
    return out


@njit(cache=True)
def _whole(size, twists, o, digits, implied, total_twist, perms, adds, wild, forbid, counts,
           total0, even, parity, blocked):  # fmt: skip
    """``out[c, t]``: coordinate c (arrangement and orientations together, wild pieces
    keeping none) after move t (``adds[t]``: the twist each position's arrival gets)."""
    n = perms.shape[1]
    out = np.empty((size, len(perms)), np.uint32)
    seq = np.empty(n, np.int64)
    tw = np.empty(n, np.int64)
    moved = np.empty(n, np.int64)
    work = np.empty(len(counts), np.uint64)
    for c in range(size):
        r, q = c // twists, c % twists
        _arrangement(np.uint64(r), counts, work, total0, even, parity, seq)
        for j in range(digits - 1, -1, -1):
            tw[j] = q % o
            q //= o
        if implied:
            tw[n - 1] = (total_twist - tw[: n - 1].sum()) % o
        for t in range(len(perms)):
            ok = True
            for j in range(n):
                moved[j] = seq[perms[t, j]]
                ok &= not forbid[j, moved[j]]
            if not ok:
                out[c, t] = blocked
                continue
            value = 0
            for j in range(digits):
                d = 0 if wild[moved[j]] else (tw[perms[t, j]] + adds[t, j]) % o
                value = value * o + d
            out[c, t] = _rank(moved, counts, work, total0, even) * np.uint64(twists) + value
    return out


def arranged(code: SetCode, perms: np.ndarray, forbid: np.ndarray, blocked: int) -> np.ndarray:
    """The arrangement table of a set: a row an arrangement, a column a move."""
    counts = np.asarray(code.counts, np.uint64)
    total = np.uint64(multinomial(code.counts))
    args = (counts, total, code.even, code.parity, np.uint32(blocked))
    return _arranged(code.arrangements, perms, forbid, *args)


def whole(
    code: SetCode, perms: np.ndarray, adds: np.ndarray, forbid: np.ndarray, blocked: int
) -> np.ndarray:
    """The table of a set's whole coordinate (a set with ``?`` pieces)."""
    counts = np.asarray(code.counts, np.uint64)
    total = np.uint64(multinomial(code.counts))
    wild = np.asarray(code.wild, np.bool_)
    return _whole(
        code.size, code.twists, code.o, code.digits, code.implied, code.total, perms, adds,
        wild, forbid, counts, total, code.even, code.parity, np.uint32(blocked),
    )  # fmt: skip
