"""The local executor: a level step on this machine, within its memory.

A level whose moves fit in the work is expanded, sorted and resolved whole;
a larger one is cut by child-state range into buckets (boundaries from the
children of a strided sample, so buckets come out about equal) that are made
one after the other: with packed keys on two threads (lanes.py), otherwise on
one (spill.py); either way by expanding the frontier again for each of a few
buckets, or past that by spilling every move to its bucket's file. Every
child of a state lands in one bucket and the buckets cover increasing ranges,
so the rows are exactly those of the whole step, in the same order, whatever
the number of buckets.

A puzzle whose kernels number its states densely (``Kernels.space``, when the
build affords it) has its levels made by the dense engine instead (engine/dense.py:
marks or bitmaps, as the puzzle's moves decide), which holds each level it made
for its next step (``StepStats.holds``).

A puzzle with zero-cost moves has its level closed under them in rounds, each
an ordinary (bucketed, spilled) step of this executor (closing.py).
"""

from __future__ import annotations

import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Self

import numpy as np

from pipeline.engine import budget
from pipeline.engine.buffers import Pool
from pipeline.engine.level import SAMPLE, InMemory, read_all, sample
from pipeline.engine.rows import Rows
from pipeline.executors import closing
from pipeline.executors.base import LevelJob, Lifecycle, Place, Sink, StepStats
from pipeline.executors.local import lanes, spill
from pipeline.storage import scratch
from pipeline.storage.format import FILE_ROWS

if TYPE_CHECKING:
    from pipeline.engine.dense import DenseSearch


class LocalExecutor(Lifecycle):
    """Level steps in this process: two threads for packed keys, spill files for the rest.

    ``spill`` is the folder for spill files; ``pool`` lends the packed path its
    big buffers from one level to the next (fresh pages cost: buffers.py). A
    build binds both to its own (:meth:`bind`); the spill files stay from level
    to level (lanes.py says why) and go when the build ends (``__exit__``).
    """

    name = "local"

    def __init__(self, spill: Path | None = None, pool: Pool | None = None) -> None:
        self.spill = spill
        self.pool = pool if pool is not None else Pool(0)
        #: The dense engine's search of the build's puzzle, and its two threads, kept
        #: from level to level (engine/dense.py).
        self.search: DenseSearch | None = None
        self.threads: ThreadPoolExecutor | None = None

    def working_in(self, place: Place) -> Self:
        self.spill, self.pool = place.scratch, place.pool
        self._let_go()
        return super().working_in(place)

    def _let_go(self) -> None:
        """Let the dense search and its threads go."""
        self.search = None
        if self.threads is not None:
            self.threads.shutdown()
            self.threads = None

    def close(self) -> None:
        """Remove the spill files; let the dense search go."""
        self._let_go()
        if self.spill is not None:
            shutil.rmtree(self.spill, ignore_errors=True)

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_level(self, job: LevelJob, sink: Sink) -> StepStats:
        assert self.spill is not None, "a LocalExecutor needs a spill folder: bind it"
        if job.rules.free is not None:
            return closing.run(self.run_level, job, sink, scratch.rounds_folder(self.spill))
        n = len(job.frontier)
        rows = Rows(job.rules, n)
        stats = StepStats()
        if n == 0:
            return stats
        search = self._dense(job, rows)
        if search is not None:
            return _dense_step(search, job, rows, sink)
        clock = time.perf_counter()
        if n <= SAMPLE:  # the sample is the whole frontier: its moves are reused
            moves = rows.make(*sample(job.frontier, SAMPLE, *rows.want))
        else:  # without the path counts: reading them is a DECIMAL decode of the whole level
            moves = rows.probe(*sample(job.frontier, SAMPLE, rows.want[0])[:2])
        branching = len(moves) / max(1, min(n, SAMPLE))
        beside = sum(len(e) for e in job.excluded if not isinstance(e, InMemory))  # read
        k = job.buckets or budget.buckets(n, branching, job.held, job.work, rows.bytes, beside)
        stats.buckets = k
        stats.expand += time.perf_counter() - clock
        if rows.kernels is not None:
            self._let_go()  # the dense search's memory back to the level step
            return lanes.run(job, rows, sink, k, moves, branching, stats, self.pool, self.spill)
        if k == 1:  # a frontier no larger than the sample: its moves are made
            return _whole(job, rows, sink, stats, moves if n <= SAMPLE else None)
        if k <= spill.REEXPAND_ROWS:
            return spill.reexpand(job, rows, sink, rows.cuts(moves, k), branching, stats)
        return spill.spill(job, rows, sink, rows.cuts(moves, k), branching, stats, self.spill)

    def _dense(self, job: LevelJob, rows: Rows) -> DenseSearch | None:
        """The dense engine's search of the puzzle, when its kernels have a dense space
        (the build left it in: Builder._dense), no path counts are asked, no number
        of ranges is forced, and the level fits the work (engine/dense.py)."""
        space = None if rows.counted or rows.kernels is None else rows.kernels.space
        if space is None or job.buckets is not None:
            return None
        from pipeline.engine import dense  # numba: loaded with the kernels

        if not dense.fits(space, len(job.frontier), job.held, job.work):
            return None
        if self.search is None or self.search.space is not space:
            if self.threads is None:
                self.threads = ThreadPoolExecutor(max_workers=2)
            self.search = dense.DenseSearch(space, self.threads, self.pool, FILE_ROWS)
        return self.search


def _dense_step(search: DenseSearch, job: LevelJob, rows: Rows, sink: Sink) -> StepStats:
    """One level by the dense engine, which holds it for its next step."""
    made = search.step(job.frontier, job.excluded, rows.want[0], sink)
    return StepStats(made.pairs, 1, made.expand, made.rows, holds=True, flags=made.flags)


def _made(job: LevelJob, rows: Rows) -> np.ndarray:
    """Every move out of the frontier, unordered."""
    made = [rows.make(*c) for c in job.frontier.chunks(1 << 62, *rows.want)]
    if not made:
        return rows.empty()
    return made[0] if len(made) == 1 else np.concatenate(made)


def _whole(
    job: LevelJob, rows: Rows, sink: Sink, stats: StepStats, moves: np.ndarray | None = None
) -> StepStats:
    """The whole level in one go (``moves``: every move out of it, when made already)."""
    clock = time.perf_counter()
    moves = _made(job, rows) if moves is None else moves
    stats.pairs = len(moves)
    stats.expand += time.perf_counter() - clock
    clock = time.perf_counter()
    result = rows.resolve(rows.order(moves), [read_all(e) for e in job.excluded])
    del moves
    stats.dedup += time.perf_counter() - clock
    sink(*result)
    return stats
