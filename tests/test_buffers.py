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
    assert pool.take(5000).base is big_base  # the small one is in use
    assert pool.take(100).base is not small_base  # nothing free fits: a new one


def test_a_buffer_is_not_spent_on_a_request_under_half_its_size() -> None:
    pool = Pool(1 << 30)
    big = pool.take(100_000)
    pool.give(big)
    small = pool.take(20_000)
    assert small.base is not big.base  # made anew: the big one waits for its like
    assert pool.take(90_000).base is big.base


def test_the_buffer_unused_longest_goes_first() -> None:
    stale, a, b = (np.empty(n, np.uint64) for n in (9000, 5000, 5000))
    pool = Pool(200_000)  # room for 25,000 uint64
    pool.give(stale)
    pool.give(a, b)
    assert pool.held == 8 * 19_000
    c, d = pool.take(5000), pool.take(5000)  # best fit: a and b
    assert {id(c.base), id(d.base)} == {id(a), id(b)}
    pool.give(c, d, np.empty(7000, np.uint64))
    # 9,000 + 17,000 would pass the limit: the stale buffer goes, not a recent one.
    assert pool.held == 8 * 17_000
    # A miss makes room for its new buffer (15,000 with headroom) the same way,
    # after dropping what it outgrew (under half its size).
    pool.take(12_000)
    assert pool.held == 8 * 7000


def test_free_buffers_stay_within_the_limit_smallest_dropped_first() -> None:
    """Of buffers given back together, the smallest go first."""
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
