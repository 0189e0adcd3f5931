"""The states seen of a general graph, merged in place (engine/seen.py)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.engine.seen import Seen


@pytest.mark.parametrize("reserve", [0, 8 * 10_000, 8 * 1_000_000])
def test_levels_merged_in_runs_equal_their_sorted_union(reserve: int) -> None:
    """Levels drawn at random from one pool of states (so disjoint), each cut into
    sorted runs in order, merge into the sorted union, within the reservation
    or past it."""
    rng = np.random.default_rng(3)
    pool = rng.permutation(rng.choice(1 << 40, 60_000, replace=False).astype(np.uint64))
    seen = Seen(reserve)
    at = 0
    for size in [1, 0, 7, 5_000, 20_000, 3, 34_989]:
        level = np.sort(pool[at : at + size])
        at += size
        runs = np.array_split(level, rng.integers(1, 5)) if size else []
        seen.add(runs)
        assert np.array_equal(seen.states, np.sort(pool[:at]))
    assert len(seen) == 60_000


def test_states_at_both_ends_of_the_range() -> None:
    seen = Seen()
    seen.add([np.array([5, 9], np.uint64)])
    seen.add([np.array([0], np.uint64), np.array([7, 2**64 - 1], np.uint64)])
    assert seen.states.tolist() == [0, 5, 7, 9, 2**64 - 1]
