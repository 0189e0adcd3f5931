"""The radix sort and the bucket partition against numpy's own sort and search."""

from __future__ import annotations

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
