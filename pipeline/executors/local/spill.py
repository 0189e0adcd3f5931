"""Buckets of moves as rows ``(child, parent[, count])``, for puzzles without kernels.

Up to :data:`REEXPAND_ROWS` buckets, the frontier is expanded once per bucket,
keeping the moves of that bucket's child range. Beyond that, the frontier is
read in chunks and each move is appended to its bucket's scratch file (16 or
24 bytes a row: storage/scratch.py); then bucket by bucket the moves are
loaded, sorted, resolved against the same range of the excluded levels and
handed to the sink. (Packed keys
take the two-thread path of lanes.py, which spills in the same passes.)
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from pipeline.engine.rows import Rows
from pipeline.executors.base import LevelJob, Sink, StepStats
from pipeline.storage.scratch import Buckets


def _chunk_states(job: LevelJob, rows: Rows, branching: float) -> int:
    """Frontier states expanded at a time so that their moves fit the work."""
    room = max(job.work - job.held, job.work // 4)
    return max(1024, int(room / (max(1.0, branching) * rows.bytes)))


def reexpand(
    job: LevelJob, rows: Rows, sink: Sink, edges: list[int], branching: float, stats: StepStats
) -> StepStats:
    """Each bucket from the whole frontier again, keeping its own range's moves."""
    k = len(edges) - 1
    stats.buckets, stats.pairs = k, 0
    cut_keys = np.array([rows.key_bound(e) for e in edges[1:-1]], np.uint64)
    per = max(1024, min(_chunk_states(job, rows, branching) // k, 1 << 21))
    for b in range(k):
        clock = time.perf_counter()
        kept_moves = []
        for chunk in job.frontier.chunks(per, *rows.want):
            moves = rows.make(*chunk)
            lead = rows.lead(moves)
            inside = lead >= (cut_keys[b - 1] if b else np.uint64(0))
            if b < k - 1:
                inside &= lead < cut_keys[b]
            kept_moves.append(moves[inside])
            stats.pairs += int(inside.sum())
            del moves, lead, inside
        moves = np.concatenate(kept_moves) if kept_moves else rows.empty()
        del kept_moves
        stats.expand += time.perf_counter() - clock
        _resolve_bucket(job, rows, moves, edges[b], edges[b + 1], sink, stats)
    return stats


#: Up to this many buckets of rows, each re-expands the frontier instead of spilling
#: (packed keys: lanes.REEXPAND_KEYS).
REEXPAND_ROWS = 4
#: Most bytes of moves in scratch files at once: a level with more is spilled in
#: passes over runs of its buckets, each pass expanding the whole frontier again
#: (french37's widest step has about 35 GB of moves: disk traded for expansion).
SPILL_BYTES = 16 << 30


def spill(
    job: LevelJob,
    rows: Rows,
    sink: Sink,
    edges: list[int],
    branching: float,
    stats: StepStats,
    scratch: Path,
) -> StepStats:
    """Every move to its bucket's scratch file, then bucket by bucket resolved (in passes
    over runs of buckets when the moves would pass SPILL_BYTES on disk)."""
    k = len(edges) - 1
    stats.buckets, stats.pairs = k, 0
    on_disk = len(job.frontier) * max(1.0, branching) * 8 * rows.width  # as spilled: uint64s
    passes = min(k, max(1, math.ceil(on_disk / SPILL_BYTES)))
    for run in np.array_split(np.arange(k), passes):
        _spill_run(
            job, rows, sink, edges, (int(run[0]), int(run[-1]) + 1), branching, stats, scratch
        )
    return stats


def _spill_run(
    job: LevelJob,
    rows: Rows,
    sink: Sink,
    edges: list[int],
    run: tuple[int, int],
    branching: float,
    stats: StepStats,
    scratch: Path,
) -> None:
    """The buckets ``run[0] <= b < run[1]``: their moves spilled, then resolved in order."""
    clock = time.perf_counter()
    assert stats.pairs is not None  # the level step counts its moves (from 0)
    first, last = run
    cut_keys = np.array([rows.key_bound(e) for e in edges[1:-1]], np.uint64)
    with Buckets(scratch, first, last, rows.width) as buckets:
        for chunk in job.frontier.chunks(_chunk_states(job, rows, branching), *rows.want):
            moves, bounds = _by_bucket(rows.make(*chunk), rows, cut_keys)
            for b in range(first, last):
                if bounds[b + 1] > bounds[b]:
                    buckets.add(b, moves[bounds[b] : bounds[b + 1]])
            stats.pairs += bounds[last] - bounds[first]
            del moves
        buckets.close()
        stats.expand += time.perf_counter() - clock
        for b in range(first, last):
            clock = time.perf_counter()
            moves = buckets.take(b)
            _resolve_bucket(job, rows, moves, edges[b], edges[b + 1], sink, stats, clock)


def _by_bucket(moves: np.ndarray, rows: Rows, cut_keys: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """A chunk's moves grouped by bucket, buckets in order, and where each begins
    (a radix sort of their bucket numbers)."""
    bucket = np.searchsorted(cut_keys, rows.lead(moves), side="right")
    if len(cut_keys) < 1 << 16:  # numpy's stable sort of 16-bit keys is a radix sort
        bucket = bucket.astype(np.uint16)
    counts = np.bincount(bucket, minlength=len(cut_keys) + 1)
    return moves[np.argsort(bucket, kind="stable")], [0, *np.cumsum(counts).tolist()]


def _resolve_bucket(
    job: LevelJob,
    rows: Rows,
    moves: np.ndarray,
    lo: int,
    hi: int,
    sink: Sink,
    stats: StepStats,
    clock: float | None = None,
) -> None:
    """One bucket's moves: sorted unique children, smallest parent, minus the excluded."""
    clock = time.perf_counter() if clock is None else clock
    if len(moves):
        result = rows.resolve(rows.order(moves), [e.between(lo, hi) for e in job.excluded])
        stats.dedup += time.perf_counter() - clock
        sink(*result)
