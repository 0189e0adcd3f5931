"""The radix sort and the bucket partition against numpy's own sort and search."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pipeline.engine import radix

TOP = np.iinfo(np.uint64).max


def _keys(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "equal":
        return np.full(n, 12345, np.uint64)
    if kind == "top":  # the whole 64-bit span, the largest key included
        keys = rng.integers(0, TOP, n, dtype=np.uint64, endpoint=True)
        keys[: min(n, 3)] = [TOP, 0, TOP - 1][: min(n, 3)]
        return keys
    bits = {"narrow": 9, "french": 44, "wide": 61}[kind]
    return rng.integers(1 << 40, (1 << 40) + (1 << bits), n, dtype=np.uint64)


@pytest.mark.parametrize("kind", ["equal", "top", "narrow", "french", "wide"])
@pytest.mark.parametrize("n", [0, 1, 2, 1000, 100_003])
def test_sort_keys_orders_keys_and_carries_weights_stably(kind: str, n: int) -> None:
    rng = np.random.default_rng(n)
    keys = _keys(kind, n, rng)
    got = radix.sort_keys(keys.copy(), np.empty(n, np.uint64))
    assert np.array_equal(got, np.sort(keys))
    rows = np.stack([keys, np.arange(n, dtype=np.uint64)], axis=1)
    got_rows = radix.sort_keys(rows.copy())
    assert np.array_equal(got_rows, rows[np.argsort(keys, kind="stable")])


@pytest.mark.parametrize("ranges", [1, 2, 48, 300])
def test_partition_groups_moves_by_range_in_their_order(ranges: int) -> None:
    rng = np.random.default_rng(ranges)
    keys = _keys("french", 50_000, rng)
    keys[:10] = keys[0]  # a run of equal keys
    cuts = keys[:0]
    if ranges > 1:  # cut on keys (a key on a cut opens the range above), one on the run
        cuts = np.unique([keys[0], *rng.choice(keys, ranges - 2, replace=False)])
    which = np.searchsorted(cuts, keys, side="right")
    order = np.argsort(which, kind="stable")
    want_starts = [0, *np.cumsum(np.bincount(which, minlength=len(cuts) + 1)).tolist()]
    out = np.empty_like(keys)
    assert radix.partition(keys, cuts, out) == want_starts
    assert np.array_equal(out, keys[order])
    rows = np.stack([keys, np.arange(len(keys), dtype=np.uint64)], axis=1)
    out_rows = np.empty_like(rows)
    assert radix.partition(rows, cuts, out_rows) == want_starts
    assert np.array_equal(out_rows, rows[order])


@pytest.mark.parametrize(("ranges", "bits"), [(1, 39), (5, 41), (48, 44)])
def test_narrow_ranges_go_in_five_bytes_and_widen_back(ranges: int, bits: int) -> None:
    """Flagged ranges hold each key as its offset from the range's base in 5 bytes
    (a spill slot's file and its .top); widening them in place gives the keys back,
    in their order, and unflagged ranges are whole keys as before."""
    rng = np.random.default_rng(ranges)
    base, end = 1 << 40, (1 << 40) + (1 << bits)
    keys = rng.integers(base, end, 200_001, dtype=np.uint64)
    keys[:7] = end - 1  # the top of the span: offsets past 32 bits
    cuts = np.unique(rng.choice(keys, ranges - 1, replace=False)) if ranges > 1 else keys[:0]
    bases = np.array([base, *cuts], np.uint64)
    spans = np.diff([base, *(int(c) for c in cuts), end])
    flags = spans <= radix.NARROW_SPAN
    flags[1::3] = False  # some ranges whole whatever their span
    assert flags.any()
    which = np.searchsorted(cuts, keys, side="right")
    out = np.empty_like(keys)
    starts = radix.partition(keys, cuts, out, narrow=(flags, bases))
    assert starts == [0, *np.cumsum(np.bincount(which, minlength=ranges)).tolist()]
    for r, (a, b) in enumerate(itertools.pairwise(starts)):
        want = keys[which == r]
        if not flags[r]:
            assert np.array_equal(out[a:b], want)
            continue
        low, top = radix.narrowed(out, a, b)
        n = b - a
        flat = np.empty(n + (n + 7) // 8, np.uint64)  # as a slot is read back
        flat[:n].view(np.uint32)[n:] = low
        flat[n:].view(np.uint8)[:n] = top
        high = flat[n:].view(np.uint8)[:n]
        assert np.array_equal(radix.widen(flat[:n], high, int(bases[r])), want)
