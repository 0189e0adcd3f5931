"""The sequential executor: the reference semantics of a level step, and the example
to copy when adding an executor.

One child range at a time, no threads, no spill, no buffers kept: for each
range the whole frontier is expanded, the moves into the range are sorted and
resolved against the same range of the excluded levels. Slow and plain; it
exists so that every other executor can be checked against it row for row.

Adding an executor (Dask, a GPU) takes one module and one line:

1. A class like this one: a ``name``; the lifecycle of base.Executor
   (``bind``, ``__enter__``, ``__exit__``: inherit base.Lifecycle, and start a
   session or check a cluster in ``__enter__`` if it needs one); and
   ``run_level(job, sink)``, which hands the new level to ``sink`` in runs
   sorted by state, each above the last, with the smallest parent of each
   child. ``Rows`` (engine/rows.py) makes, orders and resolves the moves;
   the excluded levels give their states by range (``between``).
2. Zero-cost moves (``job.rules.free``): hand the job to ``closing.run``
   with your own step, as below; it runs the rounds through it.
3. An executor that writes the level's files itself (spark/) asks
   ``job.table`` for the levels as files and hands it the files' entries; a
   level it cannot make it hands to a ``LocalExecutor`` it holds.
4. One line in registry.EXECUTORS. tests/test_executors.py then builds every
   default table with it and compares the files with the local build's,
   byte for byte.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from pipeline.engine.rows import Rows
from pipeline.executors import closing
from pipeline.executors.base import LevelJob, Lifecycle, Sink, StepStats


class SequentialExecutor(Lifecycle):
    """Cuts the child states into ``ranges`` equal spans of the key space."""

    name = "sequential"

    def __init__(self, ranges: int = 4) -> None:
        self.ranges = ranges

    def run_level(self, job: LevelJob, sink: Sink) -> StepStats:
        if job.rules.free is not None:  # zero-cost moves: rounds of this same step
            return closing.run(self.run_level, job, sink, None)
        rows = Rows(job.rules)
        clock = time.perf_counter()
        pairs = 0
        step = -(-(1 << 64) // self.ranges)
        for lo, hi in itertools.pairwise([*range(0, 1 << 64, step), 1 << 64]):
            moves = self._moves(job, rows)
            child = rows.children(rows.lead(moves))
            inside = (child >= np.uint64(lo)) & (child <= np.uint64(hi - 1))
            pairs += int(inside.sum())
            result = rows.resolve(
                rows.order(moves[inside]), [e.between(lo, hi) for e in job.excluded]
            )
            if len(result[0]):
                sink(*result)
        return StepStats(pairs=pairs, buckets=self.ranges, dedup=time.perf_counter() - clock)

    @staticmethod
    def _moves(job: LevelJob, rows: Rows) -> np.ndarray:
        made = [rows.make(*c) for c in job.frontier.chunks(1 << 62, *rows.want)]
        return np.concatenate(made) if made else rows.empty()
