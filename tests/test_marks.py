"""The dense engine's marks (a level over a dense rank: engine/marks.py, engine/dense.py).

The sliding tiles of up to 12 cells rank their states (puzzles/tiles/moves.py):
the rank numbers every arrangement, in the order of the states, and the step
over it gives the reference search's rows, whether the executor holds the
frontier it made or is handed one (a resumed build), and a build over it the
files of the other steps.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pipeline.build import loop as build
from pipeline.engine import reference
from pipeline.engine import rows as row_rules
from pipeline.engine.bitmaps import Bitmaps
from pipeline.engine.budget import Budget
from pipeline.engine.buffers import Pool
from pipeline.engine.core import Graph, Level
from pipeline.engine.level import InMemory
from pipeline.engine.marks import Marks
from pipeline.engine.rows import MoveRules
from pipeline.executors.base import LevelJob
from pipeline.executors.local.executor import LocalExecutor
from pipeline.puzzles import registry as puzzles
from tests.conftest import build_local


def _states(cells: list[list[int]]) -> np.ndarray:
    """Boards (tile of each cell) as states: cell i in bits 4i..4i+3."""
    return np.array([sum(t << (4 * i) for i, t in enumerate(c)) for c in cells], np.uint64)


def _ranks(name: str, states: np.ndarray) -> np.ndarray:
    """The rank of each state, one at a time (the bit each sets in a cleared array)."""
    space = puzzles.get(name).kernels.space  # type: ignore[union-attr]
    ranks = space.marks
    seen = np.zeros(-(-space.size // 64), np.uint64)
    out = []
    for s in states:
        ranks.mark(np.array([s], np.uint64), seen, ranks.args)
        (word,) = np.flatnonzero(seen)
        (bit,) = np.flatnonzero(
            np.unpackbits(seen[word : word + 1].view(np.uint8), bitorder="little")
        )
        out.append(64 * int(word) + int(bit))
        seen[word] = 0
    return np.array(out)


def test_a_board_s_rank_numbers_every_arrangement_in_the_order_of_the_states() -> None:
    # 2x3: 6! = 720 arrangements (both halves: the rank does not know which are reachable).
    states = np.sort(_states([list(p) for p in itertools.permutations(range(6))]))
    assert puzzles.get("2x3").kernels.space.size == 720  # type: ignore[union-attr]
    assert np.array_equal(_ranks("2x3", states), np.arange(720))


def test_ranks_of_a_12_cell_board_unrank_to_their_states_in_order() -> None:
    # 3x4's ranks go to 12! - 1 (28.8 bits): the first board, the last and random ones,
    # marked together (a bit each, distinct), then scanned back in rank order (tag 0).
    rng = np.random.default_rng(46)
    boards = [list(range(12)), list(range(11, -1, -1))]
    boards += [list(rng.permutation(12)) for _ in range(2000)]
    states = np.unique(_states(boards))
    space = puzzles.get("3x4").kernels.space  # type: ignore[union-attr]
    ranks = space.marks
    seen = np.zeros(-(-space.size // 64), np.uint64)
    marks = np.zeros(4 * len(seen), np.uint64)  # four bits a rank
    ranks.mark(states, seen, ranks.args)
    words = np.flatnonzero(seen)
    bits = np.unpackbits(seen[words].view(np.uint8), bitorder="little").reshape(-1, 64)
    marked = (64 * words[:, None] + np.arange(64))[bits.astype(bool)]
    assert len(marked) == len(states) and marked[0] == 0 and marked[-1] == math.factorial(12) - 1
    seen[:] = 0
    for r in marked:
        marks[r >> 4] |= np.uint64(1) << np.uint64(4 * (r & 15))  # tag 0
    out = [np.empty(len(states) + 2, np.uint64) for _ in range(2)]
    back = np.empty(len(states) + 2, np.uint8)
    m = ranks.scan(marks, seen, 0, len(marks), *out, back, ranks.args)
    assert m == len(states) and np.array_equal(out[0][:m], states)  # in the order of states
    assert not marks.any() and int(np.unpackbits(seen.view(np.uint8)).sum()) == m
    assert np.all(back[:m] == 1)


def _step_levels(name: str, graph: Graph, fresh: bool) -> tuple[list[Level], list[Level]]:
    """The reference search's levels, and the marks step's, level by level: one
    executor holding each level it made, or (``fresh``) a new one a level."""
    p = puzzles.get(name)
    want = list(reference.search(p.roots(), p.expand, graph))
    got = [want[0]]
    done = [InMemory(0, want[0].states, want[0].parents)]
    rules = MoveRules(p.expand, p.kernels, skip_back=True)
    executor = None
    while len(got) < len(want):
        d = got[-1].depth
        exclude = {
            Graph.BIPARTITE: done[-2:-1],
            Graph.REVERSIBLE: done[-2:],
            Graph.GENERAL: done,
        }[graph]
        if executor is None or fresh:
            if executor is not None:
                executor.close()
            executor = LocalExecutor(Path("/nonexistent"), Pool(1 << 30))
        runs: list[tuple[np.ndarray, np.ndarray]] = []
        stats = executor.run_level(
            LevelJob(done[-1], exclude, rules, 1 << 30),
            lambda s, q, _w, runs=runs: runs.append((s.copy(), q.copy())) or True,
        )
        assert stats.holds  # the marks step made it
        states = np.concatenate([r[0] for r in runs]) if runs else np.empty(0, np.uint64)
        parents = np.concatenate([r[1] for r in runs]) if runs else np.empty(0, np.uint64)
        got.append(Level(d + 1, states, parents))
        done.append(InMemory(d + 1, states, parents))
    if executor is not None:
        executor.close()
    return got, want


@pytest.mark.parametrize("fresh", [False, True])  # the frontier held, or handed over
@pytest.mark.parametrize("graph", [Graph.BIPARTITE, Graph.REVERSIBLE, Graph.GENERAL])
def test_the_marks_step_gives_the_reference_rows(
    monkeypatch: pytest.MonkeyPatch, graph: Graph, fresh: bool
) -> None:
    # 2x4 (20,160 positions, 37 levels): each level's states and smallest parents, as the
    # whole-level search makes them, excluding what each graph kind asks (the 2x4 board
    # is bipartite: the other kinds exclude more levels, which changes nothing).
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)
    got, want = _step_levels("2x4", graph, fresh)
    assert len(want) == 37 and sum(len(lv) for lv in want) == 20_160
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(a.states, b.states), (graph, a.depth)
        assert np.array_equal(a.parents, b.parents), (graph, a.depth)


def _shas(folder: Path) -> list[str]:
    return [f["sha256"] for f in json.loads((folder / "_manifest.json").read_text())["files"]]


class _Stop(Exception):
    pass


def test_a_build_over_the_marks_resumes_and_gives_the_files_of_the_other_steps(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2x5 on the marks step from its first level (its levels are below PACKED_MIN):
    # stopped after depth 30, then resumed (the step marks the frontier and the level
    # before it from their files), the files are those of the default build.
    monkeypatch.setattr(row_rules, "PACKED_MIN", 0)

    def stop(done: build.LevelDone) -> None:
        if done.depth == 30:
            raise _Stop

    with pytest.raises(_Stop):
        build_local(puzzles.get("2x5"), tmp_path, on_level=stop)
    seen: list[int] = []
    m = build_local(puzzles.get("2x5"), tmp_path, on_level=lambda d: seen.append(d.depth))
    assert seen[0] == 31  # resumed
    assert _shas(tmp_path / "2x5") == _shas(data / "2x5")
    assert all(lv.stats["pairs"] > 0 for lv in m.levels[1:-1])
    # The executor held the levels it made: the build kept only the first one of each
    # run (then the executor had held none yet).
    assert [lv.depth for lv in m.levels if lv.stats.get("kept")] == [1, 31]


def test_what_the_dense_engine_keeps_is_taken_from_the_work_when_it_affords_it() -> None:
    b = Budget(3 << 30)
    b.set_work(0, strict=False)
    before = b.work
    # The marks may take a quarter of the work (a level's keys need the rest) ...
    assert b.affords(before // 4, Marks.SHARE) and not b.affords(before // 4 + 1, Marks.SHARE)
    # ... the bitmaps all of it (a level costs them nothing more).
    assert b.affords(before, Bitmaps.SHARE) and not b.affords(before + 1, Bitmaps.SHARE)
    b.charge(before // 4)
    assert b.work == before - before // 4
    forced = Budget(1 << 30)
    forced.set_work(0, work=1 << 20)
    assert forced.affords(1 << 40)  # a work given as it is: tests force small ones
