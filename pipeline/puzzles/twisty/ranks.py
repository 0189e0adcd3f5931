"""Arrangement ranks in compiled loops, for filling a set's move tables (tables.py).

The same ranks as :class:`pack.SetCode` (a multiset's lexicographic rank,
halved for a set of even moves), a row at a time: numpy's whole-array form
spends most of its time dividing uint64 arrays. Imported on first use: loading
numba is a cost that reading a position should not pay.
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


@njit(inline="always")
def twists_into(q, seq, counted, o, digits, implied, total, tw):
    """Every position's twist of orientation value ``q`` into ``tw`` (pack.py's digits:
    the positions of counted labels, in order, the first most significant; the last
    position's twist from the sum when ``implied``). ``seq``: label indices."""
    n = len(seq)
    kept = 0
    for j in range(n):
        tw[j] = 0
        if kept < digits and counted[seq[j]]:
            tw[j] = -1
            kept += 1
    for j in range(n - 1, -1, -1):
        if tw[j] == -1:
            tw[j] = np.int64(q % np.uint64(o))
            q //= np.uint64(o)
    if implied:
        tw[n - 1] = (total - tw[: n - 1].sum()) % o


@njit(inline="always")
def orientation(seq, tw, counted, wild, o, digits):
    """The orientation value of label indices ``seq`` twisted ``tw`` (a wild piece's 0)."""
    q = np.uint64(0)
    kept = 0
    for j in range(len(seq)):
        if kept == digits:
            break
        v = seq[j]
        if counted[v]:
            q = q * np.uint64(o) + np.uint64(0 if wild[v] else tw[j])
            kept += 1
    return q


@njit(cache=True)
def _whole(size, twists, o, digits, implied, total_twist, perms, adds, counted, wild, forbid,
           counts, total0, even, parity, blocked):  # fmt: skip
    """``out[c, t]``: coordinate c (arrangement and orientations together) after move t
    (``adds[t]``: the twist each position's arrival gets)."""
    n = perms.shape[1]
    out = np.empty((size, len(perms)), np.uint32)
    seq = np.empty(n, np.int64)
    tw = np.empty(n, np.int64)
    moved = np.empty(n, np.int64)
    turned = np.empty(n, np.int64)
    work = np.empty(len(counts), np.uint64)
    for c in range(size):
        r, q = c // twists, np.uint64(c % twists)
        _arrangement(np.uint64(r), counts, work, total0, even, parity, seq)
        twists_into(q, seq, counted, o, digits, implied, total_twist, tw)
        for t in range(len(perms)):
            ok = True
            for j in range(n):
                moved[j] = seq[perms[t, j]]
                turned[j] = (tw[perms[t, j]] + adds[t, j]) % o
                ok &= not forbid[j, moved[j]]
            if not ok:
                out[c, t] = blocked
                continue
            value = orientation(moved, turned, counted, wild, o, digits)
            out[c, t] = _rank(moved, counts, work, total0, even) * np.uint64(twists) + value
    return out


@njit(cache=True)
def _labels(rows, n, counts, total0, even, parity):
    """``out[r]``: the label indices of arrangement r."""
    out = np.empty((rows, n), np.uint8)
    seq = np.empty(n, np.int64)
    work = np.empty(len(counts), np.uint64)
    for r in range(rows):
        _arrangement(np.uint64(r), counts, work, total0, even, parity, seq)
        out[r] = seq
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
    counted = np.asarray(code.counted, np.bool_)
    wild = np.asarray(code.wild, np.bool_)
    return _whole(
        code.size, code.twists, code.o, code.digits, code.implied, code.total, perms, adds,
        counted, wild, forbid, counts, total, code.even, code.parity, np.uint32(blocked),
    )  # fmt: skip


def labels(code: SetCode) -> np.ndarray:
    """Each arrangement's label indices, a row an arrangement (uint8)."""
    counts = np.asarray(code.counts, np.uint64)
    total = np.uint64(multinomial(code.counts))
    return _labels(code.arrangements, code.n, counts, total, code.even, code.parity)
