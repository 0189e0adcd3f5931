"""The sequential executor: the reference semantics of a level step, nothing else.

One child range at a time, no threads, no spill, no buffers kept: for each
range the whole frontier is expanded, the moves into the range are sorted and
resolved against the same range of the excluded levels. Slow and plain; it
exists so that every other executor can be checked against it row for row.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from pipeline.engine.rows import Rows
from pipeline.executors import closing
from pipeline.executors.base import LevelJob, Sink, StepStats


class SequentialExecutor:
    """Cuts the child states into ``ranges`` equal spans of the key space."""

    def __init__(self, ranges: int = 4) -> None:
        self.ranges = ranges

    def run_level(self, job: LevelJob, sink: Sink) -> StepStats:
        if job.rules.free is not None:  # zero-cost moves: rounds of this same step
            return closing.run(self.run_level, job, sink, None)
        rows = Rows(job.rules)
        clock = time.perf_counter()
        stats = StepStats(buckets=self.ranges)
        step = -(-(1 << 64) // self.ranges)
        for lo, hi in itertools.pairwise([*range(0, 1 << 64, step), 1 << 64]):
            moves = self._moves(job, rows)
            child = rows.children(rows.lead(moves))
            inside = (child >= np.uint64(lo)) & (child <= np.uint64(hi - 1))
            stats.pairs += int(inside.sum())
            result = rows.resolve(
                rows.order(moves[inside]), [e.between(lo, hi) for e in job.excluded]
            )
            if len(result[0]):
                sink(*result)
        stats.dedup = time.perf_counter() - clock
        return stats

    @staticmethod
    def _moves(job: LevelJob, rows: Rows) -> np.ndarray:
        made = [rows.make(*c) for c in job.frontier.chunks(1 << 62, *rows.want)]
        return np.concatenate(made) if made else rows.empty()
