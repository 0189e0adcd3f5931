"""The buffer pool: best fit, bounded, and never the same buffer to two users."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.engine.buffers import Columns, Pool


def test_take_reuses_the_smallest_free_buffer_that_fits() -> None:
    pool = Pool(1 << 30)
    small, big = pool.take(2000), pool.take(8000)
    small_base, big_base = small.base, big.base
    pool.give(small, big)
    again = pool.take(1500)
    assert again.base is small_base and len(again) == 1500
    assert pool.take(2500).base is big_base  # the small one is in use
    assert pool.take(100).base is not small_base  # nothing free fits: a new one


def test_free_buffers_stay_within_the_limit_smallest_dropped_first() -> None:
    a, b, c = (np.empty(n, np.uint64) for n in (5000, 6000, 7000))
    pool = Pool(100_000)
    pool.give(a, b, c)
    # 40,000, 48,000 and 56,000 bytes, kept largest first: the second
    # would pass the limit, so it and the smallest are dropped.
    assert pool.held == c.nbytes
    pool.trim(50_000)
    assert pool.held == 0  # the largest alone is over it
    pool.trim(1 << 30)
    d = pool.take(3000)
    pool.give(d)
    assert pool.held == d.base.nbytes
    pool.trim(0)
    assert pool.held == 0


def test_a_buffer_given_back_twice_is_refused() -> None:
    pool = Pool(1 << 30)
    a = pool.take(4096)
    pool.give(a)
    with pytest.raises(ValueError):
        pool.give(a)


def test_columns_copy_runs_and_grow_keeping_earlier_views_valid() -> None:
    pool = Pool(1 << 30)
    cols = Columns(pool, 2, 1500)
    first = cols.add(np.arange(1000, dtype=np.uint64), np.arange(1000, dtype=np.uint64) * 2)
    cols.add(np.arange(1000, 3000, dtype=np.uint64), np.arange(1000, 3000, dtype=np.uint64) * 2)
    states, parents = cols.arrays()
    assert np.array_equal(states, np.arange(3000, dtype=np.uint64))
    assert np.array_equal(parents, 2 * states)
    assert np.array_equal(first[0], np.arange(1000, dtype=np.uint64))  # still the first run
    assert len(cols.owned) == 4  # two columns, grown once
