"""The 15 puzzle's packed moves: 60-bit children (cell 0 left out) plus the tag.

Checked against the reference search on the first 20 levels, whose counts are
the published ones (OEIS A089473: positions of the 15 puzzle by distance).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from pipeline.engine import reference
from pipeline.engine.buffers import Pool
from pipeline.engine.core import Level
from pipeline.engine.level import InMemory
from pipeline.engine.rows import MoveRules
from pipeline.executors.base import LevelJob
from pipeline.executors.local.executor import LocalExecutor
from pipeline.puzzles import registry as puzzles

#: Positions of the 15 puzzle at depths 0..20 (OEIS A089473).
COUNTS_15 = [
    1, 2, 4, 10, 24, 54, 107, 212, 446, 946, 1948, 3938, 7808, 15544, 30821,
    60842, 119000, 231844, 447342, 859744, 1637383,
]  # fmt: skip


@pytest.fixture(scope="module")
def levels() -> list[Level]:
    """The first 21 levels of 4x4 (depths 0..20) by the reference search (about 2 s)."""
    p = puzzles.get("4x4")
    return list(itertools.islice(reference.search(p.roots(), p.expand, p.graph), 21))


def test_reference_search_gives_the_published_counts(levels: list[Level]) -> None:
    assert [len(level) for level in levels] == COUNTS_15
    assert sum(COUNTS_15) == 3_418_020


def test_packed_4x4_kernels_give_the_reference_rows_for_20_levels(levels: list[Level]) -> None:
    k = puzzles.get("4x4").kernels
    assert k.drop == 4 and k.tag_bits == 2  # 60-bit children and a 2-bit tag
    for d in range(1, 21):
        cur = levels[d - 1]
        keys = k.keys(cur.states, cur.parents if d > 1 else None)
        assert int(keys.max()) < 1 << 62
        keys.sort()
        assert np.isin(levels[d].states, k.children(keys)).all(), d
        exclude = (levels[d - 2].states,) if d > 1 else ()
        children, parents = k.resolve(keys, exclude)
        assert np.array_equal(children, levels[d].states), d
        assert np.array_equal(parents, levels[d].parents), d


def test_key_bounds_cut_packed_keys_where_states_cut(levels: list[Level]) -> None:
    # Any state range [lo, hi) maps to the key range [bound(lo), bound(hi)): at
    # states of the level (where the packed value's own state decides) and between.
    k = puzzles.get("4x4").kernels
    cur = levels[19]
    keys = np.sort(k.keys(cur.states, cur.parents))
    children = k.children(keys)
    assert np.all(children[1:] >= children[:-1])  # packing keeps the order
    picks = levels[20].states[:: len(levels[20]) // 50]
    for cut in [0, 1, *(int(s) + e for s in picks for e in (-1, 0, 1)), (1 << 64) - 1, 1 << 64]:
        at = int(np.searchsorted(keys, np.uint64(min(k.key_bound(cut), (1 << 64) - 1))))
        if k.key_bound(cut) >= 1 << 64:
            at = len(keys)
        want = int(np.searchsorted(children, np.uint64(cut))) if cut < 1 << 64 else len(keys)
        assert at == want, cut


@pytest.mark.parametrize("buckets", [1, 3, 9])  # in memory (two lanes), lanes by range, spilled
def test_local_executor_builds_4x4_levels_through_packed_keys(
    levels: list[Level], buckets: int, tmp_path: Path
) -> None:
    p = puzzles.get("4x4")
    rules = MoveRules(p.expand, p.kernels)
    executor = LocalExecutor(tmp_path / "spill", Pool(1 << 30))
    done = [InMemory(d, levels[d].states, levels[d].parents) for d in (14, 15)]
    runs: list[tuple[np.ndarray, np.ndarray]] = []
    executor.run_level(
        LevelJob(done[1], done[:1], rules, 1 << 30, buckets=buckets),
        lambda s, q, _w: runs.append((s.copy(), q.copy())) or True,
    )
    assert np.array_equal(np.concatenate([r[0] for r in runs]), levels[16].states)
    assert np.array_equal(np.concatenate([r[1] for r in runs]), levels[16].parents)
