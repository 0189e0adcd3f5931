"""Sorting and bucketing moves by key with compiled radix passes.

numpy's ``np.sort`` of uint64 keys measured 55 to 68 ns a key here (2 to 20
million keys; no SIMD sort on this build), and ``argsort``, the only way numpy
carries a second column along, ten times more. A least-significant-digit
radix sort moves each key (or each row ``(key, weight)``) whole, one pass per
digit of the keys' span (the largest key less the smallest, so a bucket of
close keys takes fewer passes), and skips a pass whose digit is the same in
every key: 10 to 13 ns a key. :func:`partition` is the same idea one level
up: a chunk's moves grouped by child range in two linear passes, where a
sort would order them within each range too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Most bits a digit: at most 1,024 counters and write streams a pass (11 bits,
#: 2,048 streams, took twice as long a key for 44-bit keys: 4 passes of 11 bits
#: at 22 ns against 5 passes of 9 at 12 ns).
DIGIT_BITS = 10


def sort_keys(keys: np.ndarray, spare: np.ndarray | None = None, low: int = 0) -> np.ndarray:
    """Keys (1-D) or rows ``(key, weight)`` (n, 2) sorted by key, stably; returns
    ``keys`` or a view of ``spare`` (scratch as large, new when None), whichever
    holds the result. ``low``: 1-D keys sort by their bits above the lowest ``low``
    only (indexed moves ``key << low | r``: no passes spent on ``r``)."""
    if spare is None or len(spare) < len(keys):
        spare = np.empty_like(keys)
    spare = spare[: len(keys)]
    if keys.ndim == 1:
        return _sort_keys(keys, spare, DIGIT_BITS, np.uint64(low))
    return _sort_rows(keys, spare, DIGIT_BITS)


@njit(inline="always")
def _digits(lead, most, low):
    """(smallest key, passes, bits a pass, per-pass digit counts) of the keys ``lead``
    without their lowest ``low`` bits."""
    n = len(lead)
    lo = lead[0] >> low
    hi = lo
    for i in range(n):
        k = lead[i] >> low
        lo = min(lo, k)
        hi = max(hi, k)
    span = hi - lo
    bits = 0
    while bits < 64 and (span >> np.uint64(bits)) != 0:
        bits += 1
    passes = (bits + most - 1) // most
    width = (bits + passes - 1) // passes if passes else 1
    mask = np.uint64((1 << width) - 1)
    counts = np.zeros((max(passes, 1), 1 << width), np.int64)
    for i in range(n):
        k = (lead[i] >> low) - lo
        for p in range(passes):
            counts[p, (k >> np.uint64(p * width)) & mask] += 1
    return lo, passes, width, counts


@njit(inline="always")
def _starts(row, n):
    """Digit counts to where each digit's keys start; False if one digit holds them all
    (the pass would keep the order)."""
    at = 0
    whole = False
    for d in range(len(row)):
        c = row[d]
        whole |= c == n
        row[d] = at
        at += c
    return not whole


@njit(nogil=True, cache=True)
def _sort_keys(keys, spare, most, low):
    n = len(keys)
    if n < 2:
        return keys
    lo, passes, width, counts = _digits(keys, most, low)
    mask = np.uint64((1 << width) - 1)
    src, dst = keys, spare
    for p in range(passes):
        if not _starts(counts[p], n):
            continue
        shift = np.uint64(p * width)
        for i in range(n):
            k = src[i]
            d = (((k >> low) - lo) >> shift) & mask
            j = counts[p, d]
            counts[p, d] = j + 1
            dst[j] = k
        src, dst = dst, src
    return src


@njit(nogil=True, cache=True)
def _sort_rows(rows, spare, most):
    n = rows.shape[0]
    if n < 2:
        return rows
    lo, passes, width, counts = _digits(rows[:, 0], most, np.uint64(0))
    mask = np.uint64((1 << width) - 1)
    src, dst = rows, spare
    for p in range(passes):
        if not _starts(counts[p], n):
            continue
        shift = np.uint64(p * width)
        for i in range(n):
            k = src[i, 0]
            d = ((k - lo) >> shift) & mask
            j = counts[p, d]
            counts[p, d] = j + 1
            dst[j, 0] = k
            dst[j, 1] = src[i, 1]
        src, dst = dst, src
    return src


def partition(moves: np.ndarray, cuts: np.ndarray, out: np.ndarray, bits: int = 0) -> list[int]:
    """``moves`` (keys, or rows led by their key) into ``out`` grouped by range: range
    ``r`` holds the keys in ``[cuts[r-1], cuts[r])`` (``cuts`` sorted; the first
    range starts at 0, the last runs to the top). Returns where each range starts
    in ``out``, and its end. The order inside a range is the order in ``moves``.
    ``bits`` > 0: rows ``(key, i)`` go into ``out`` as one word, ``key << bits | i``."""
    w = 1 if moves.ndim == 1 else moves.shape[1]
    grouped = out[: len(moves)].reshape(-1, 1 if bits else w)
    starts = _partition(moves.reshape(-1, w), cuts, grouped, np.uint64(bits))
    return starts.tolist()


#: Bits of the table that finds a key's range (a binary search per key, a chain
#: of dependent loads, took 15 to 30 ns a key; the table and a step or two, 5).
TABLE_BITS = 12


@njit(nogil=True, cache=True)
def _partition(moves, cuts, out, bits):
    n, w = moves.shape
    m = len(cuts) + 1
    starts = np.zeros(m + 1, np.int64)
    if n == 0:
        return starts
    lo = hi = moves[0, 0]
    for i in range(n):
        lo = min(lo, moves[i, 0])
        hi = max(hi, moves[i, 0])
    shift = np.uint64(0)
    while ((hi - lo) >> shift) >= (1 << TABLE_BITS):
        shift += np.uint64(1)
    slots = np.arange(((hi - lo) >> shift) + 1).astype(np.uint64)
    table = np.searchsorted(cuts, lo + (slots << shift), side="right")
    for i in range(n):
        starts[_range_of(moves[i, 0], lo, shift, table, cuts) + 1] += 1
    for r in range(m):
        starts[r + 1] += starts[r]
    at = starts[:m].copy()
    for i in range(n):  # the range found again: cheaper than a fresh array to keep it in
        r = _range_of(moves[i, 0], lo, shift, table, cuts)
        j = at[r]
        at[r] = j + 1
        if bits:
            out[j, 0] = (moves[i, 0] << bits) | moves[i, 1]
        else:
            for c in range(w):
                out[j, c] = moves[i, c]
    return starts


@njit(inline="always")
def _range_of(key, lo, shift, table, cuts):
    """The range of ``key``: the table's guess, then a step up past each cut at or below."""
    r = table[(key - lo) >> shift]
    while r < len(cuts) and cuts[r] <= key:
        r += 1
    return r


@njit(nogil=True, cache=True)
def lower_bound(rows, key):
    """The first row of ``rows`` (sorted by column 0) whose key is ``key`` or more."""
    lo, hi = 0, rows.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if rows[mid, 0] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo
