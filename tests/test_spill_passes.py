"""Spilling a level in passes (spill.SPILL_BYTES): the same rows as in memory, less on disk."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
import pytest

from pipeline.engine import radix, reference
from pipeline.engine.buffers import Pool
from pipeline.engine.core import Level
from pipeline.engine.level import InMemory
from pipeline.executors.base import LevelJob, MoveRules
from pipeline.executors.local import spill
from pipeline.executors.local.executor import LocalExecutor
from pipeline.puzzles import registry as puzzles


@pytest.mark.parametrize("limit", [1, 20_000, 1 << 40])  # a pass a bucket, a few, one
@pytest.mark.parametrize("name", ["french37", "3x3"])
@pytest.mark.parametrize("narrow", [True, False])  # keys in 5 bytes where they fit, or 8
def test_spilling_in_passes_gives_the_same_rows(
    name: str, limit: int, narrow: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spill, "SPILL_BYTES", limit)
    if not narrow:
        monkeypatch.setattr(radix, "NARROW_SPAN", 0)
    p = puzzles.get(name)
    want = list(itertools.islice(reference.search(p.roots(), p.expand, p.graph), 7))
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"spill-passes-{os.getpid()}-{name}"
    executor = LocalExecutor(folder, Pool(1 << 30))
    rules = MoveRules(p.expand, p.kernels, skip_back=name == "3x3")
    assert p.kernels is not None  # keys, as french37's build spills them
    done = [InMemory(0, want[0].states, want[0].parents)]
    for level in want[1:]:
        runs: list[tuple[np.ndarray, np.ndarray]] = []
        stats = executor.run_level(
            LevelJob(done[-1], done[-2:-1] if name == "3x3" else [], rules, 1 << 30, buckets=9),
            lambda s, q, _w, runs=runs: runs.append((s.copy(), q.copy())) or True,
        )
        assert stats.buckets == 9 or len(done[-1]) < 20  # small levels: fewer cuts
        got = Level(level.depth, *(np.concatenate(c) for c in zip(*runs, strict=True)))
        assert np.array_equal(got.states, level.states)
        assert np.array_equal(got.parents, level.parents)
        if name == "french37":  # layered: every move is a pair, whatever the passes
            assert stats.pairs == len(p.expand(done[-1].states)[1])
        done.append(InMemory(level.depth, got.states, got.parents))
    assert any(folder.glob("slot*.top")) == narrow  # some buckets went in 5 bytes
    executor.close()  # the spill slots are kept from level to level until then
    assert not folder.exists()
