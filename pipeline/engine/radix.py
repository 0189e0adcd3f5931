"""Sorting and bucketing moves by key with compiled radix passes.

numpy's ``np.sort`` of uint64 keys measured 55 to 68 ns a key here (2 to 20
million keys; no SIMD sort on this build), and ``argsort``, the only way numpy
carries a second column along, ten times more. A least-significant-digit
radix sort moves each key (or each row ``(key, count)``) whole, one pass per
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
    """Keys (1-D) or rows ``(key, count)`` (n, 2) sorted by key, stably; returns
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


def partition(
    moves: np.ndarray,
    cuts: np.ndarray,
    out: np.ndarray,
    bits: int = 0,
    narrow: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[int]:
    """``moves`` (keys, or rows led by their key) into ``out`` grouped by range: range
    ``r`` holds the keys in ``[cuts[r-1], cuts[r])`` (``cuts`` sorted; the first
    range starts at 0, the last runs to the top). Returns where each range starts
    in ``out``, and its end. The order inside a range is the order in ``moves``.
    ``bits`` > 0: rows ``(key, i)`` go into ``out`` as one word, ``key << bits | i``.
    ``narrow`` (a flag and a base key a range): the keys of a flagged range go in
    as 5 bytes, their offset from its base (below 2**40): :func:`narrowed`."""
    w = 1 if moves.ndim == 1 else moves.shape[1]
    grouped = out[: len(moves)].reshape(-1, 1 if bits else w)
    flags, bases = narrow if narrow is not None else (_NONE, _NO_KEYS)
    wide = grouped.reshape(-1)  # keys of a narrow range go in through its bytes
    starts = _partition(
        moves.reshape(-1, w), cuts, grouped, np.uint64(bits), flags, bases, wide.view(np.uint8)
    )
    return starts.tolist()


def narrowed(out: np.ndarray, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """The 5-byte keys :func:`partition` wrote to ``out[a:b]`` of a narrow range: their
    low 4 bytes, then their fifth (their offsets from the range's base)."""
    n = b - a
    return out[a:b].view(np.uint32)[:n], out[a:b].view(np.uint8)[4 * n : 5 * n]


def widen(flat: np.ndarray, top: np.ndarray, base: int) -> np.ndarray:
    """Keys back from 5 bytes, in place: ``flat`` (n uint64) holds their low 4 bytes
    in its second half, ``top`` their fifth; each key is ``base`` plus the offset."""
    _widen(flat, top, np.uint64(base))
    return flat


#: Spans a narrow key's offset may take (4 bytes and 1).
NARROW_SPAN = 1 << 40
_NONE = np.zeros(0, np.bool_)
_NO_KEYS = np.zeros(0, np.uint64)


@njit(nogil=True, cache=True)
def _widen(flat, top, base):
    n = len(flat)
    low = flat.view(np.uint32)
    block = 4096
    temp = np.empty(block, np.uint32)
    for i in range(0, n, block):  # key i (bytes 8i..) is written only once the low
        m = min(block, n - i)  # bytes of every key from i on (4n + 4i..) are read
        temp[:m] = low[n + i : n + i + m]
        for k in range(m):
            flat[i + k] = base + ((np.uint64(top[i + k]) << np.uint64(32)) | np.uint64(temp[k]))


#: Bits of the table that finds a key's range (a binary search per key, a chain
#: of dependent loads, took 15 to 30 ns a key; the table and a step or two, 5).
TABLE_BITS = 12


@njit(nogil=True, cache=True)
def _partition(moves, cuts, out, bits, flags, bases, raw):
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
    low = raw.view(np.uint32)
    for i in range(n):  # the range found again: cheaper than a fresh array to keep it in
        r = _range_of(moves[i, 0], lo, shift, table, cuts)
        j = at[r]
        at[r] = j + 1
        if bits:
            out[j, 0] = (moves[i, 0] << bits) | moves[i, 1]
        elif len(flags) > 0 and flags[r]:  # 4 bytes at 2a + k, 1 at 8a + 4c + k
            a, c = starts[r], starts[r + 1] - starts[r]
            off = moves[i, 0] - bases[r]
            low[a + j] = np.uint32(off & np.uint64(0xFFFFFFFF))
            raw[8 * a + 4 * c + (j - a)] = np.uint8(off >> np.uint64(32))
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
