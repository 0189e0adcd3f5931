"""Zero-cost moves (0-1 breadth-first search) through the bucketed, spilled level step:
the rows of the reference search at any number of buckets and any budget."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from pipeline.engine import reference
from pipeline.engine.buffers import Pool
from pipeline.engine.core import Level, excluded_depths
from pipeline.engine.level import InMemory
from pipeline.engine.rows import MoveRules
from pipeline.executors import closing
from pipeline.executors.base import Executor, LevelJob
from pipeline.executors.local.executor import LocalExecutor
from pipeline.executors.sequential import SequentialExecutor
from pipeline.puzzles import registry as puzzles
from tests.conftest import build_local

#: Bytes of work so small that the rounds of the larger levels go to files.
TINY = 1 << 16


def _levels(name: str, executor: Executor, buckets: int | None, work: int) -> list[Level]:
    """Every level of ``name`` made by ``executor`` from the reference's roots (its
    scratch removed at the end: ``with``)."""
    with executor:
        return _made(name, executor, buckets, work)


def _made(name: str, executor: Executor, buckets: int | None, work: int) -> list[Level]:
    p = puzzles.get(name)
    first = reference.roots_level(p.roots(), p.expand_free)
    got = [first]
    done = [InMemory(0, first.states, first.parents)]
    rules = MoveRules(p.expand, None, p.expand_free)
    while True:
        d = got[-1].depth
        runs: list[tuple[np.ndarray, np.ndarray]] = []
        excluded = [done[e] for e in excluded_depths(p.graph, d)]
        executor.run_level(
            LevelJob(done[-1], excluded, rules, work, buckets=buckets),
            lambda s, q, _w, runs=runs: runs.append((s.copy(), q.copy())) or True,
        )
        if not runs:
            return got
        states = np.concatenate([r[0] for r in runs])
        parents = np.concatenate([r[1] for r in runs])
        assert np.all(states[1:] > states[:-1])  # runs in order, each above the last
        got.append(Level(d + 1, states, parents))
        done.append(InMemory(d + 1, states, parents))


def _same(got: list[Level], want: list[Level]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(a.states, b.states), a.depth
        assert np.array_equal(a.parents, b.parents), a.depth


@pytest.fixture(scope="module", params=["triangle15-moves", "2x5-pdb-5"])
def reference_levels(request: pytest.FixtureRequest) -> tuple[str, list[Level]]:
    p = puzzles.get(request.param)
    assert p.expand_free is not None  # both have zero-cost moves
    return request.param, list(reference.search(p.roots(), p.expand, p.graph, p.expand_free))


@pytest.mark.parametrize("buckets", [1, 3, 9, 40])  # whole, re-expanded, spilled, many
def test_local_executor_closes_levels_bucket_by_bucket(
    reference_levels: tuple[str, list[Level]], buckets: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, want = reference_levels
    spill = Path(os.environ.get("TMPDIR", "/tmp")) / f"zc-{os.getpid()}-{buckets}" / "spill"
    spilled = []
    finish = closing._Collector.finish

    def counted(self: closing._Collector, depth: int) -> InMemory:
        spilled.append(bool(self.files))
        return finish(self, depth)

    monkeypatch.setattr(closing._Collector, "finish", counted)
    got = _levels(name, LocalExecutor(spill, Pool(1 << 26)), buckets, TINY)
    _same(got, want)
    assert any(spilled) and not all(spilled)  # some rounds went to files, some not
    assert not spill.with_name("spill-rounds").exists()  # the rounds' files are gone
    assert not spill.exists()  # and the spill files, once the executor is left


def test_sequential_executor_closes_levels_too(reference_levels: tuple[str, list[Level]]) -> None:
    name, want = reference_levels
    _same(_levels(name, SequentialExecutor(ranges=5), None, 1 << 30), want)


def _shas(folder: Path) -> list[str]:
    return [f["sha256"] for f in json.loads((folder / "_manifest.json").read_text())["files"]]


@pytest.mark.parametrize("name", ["triangle15-moves", "2x5-pdb-5"])
def test_build_at_a_tiny_budget_writes_the_files_of_a_whole_level_build(
    tmp_path: Path, name: str
) -> None:
    p = puzzles.get(name)
    whole = build_local(p, tmp_path / "whole")
    small = build_local(p, tmp_path / "small", work=TINY // 2)
    assert small.total == whole.total
    if name == "2x5-pdb-5":  # every placement of the 5 tiles and the blank: 10!/4!
        assert whole.total == 151_200
    assert _shas(tmp_path / "small" / name) == _shas(tmp_path / "whole" / name)
    # More than one bucket somewhere: the small build did cut its levels.
    assert max(lv.stats.get("buckets", 1) for lv in small.levels) > 1
    assert not (tmp_path / "small" / ".staging" / name).exists()  # no spill left
