"""Buckets without packed threads: the frontier expanded again per bucket, or spilled.

Up to a few buckets, the frontier is expanded once per bucket, keeping the
moves of that bucket's child range. Beyond that, the frontier is read in
chunks and each move is appended to its bucket's spill file (8 bytes a key,
16 or 24 a row); then bucket by bucket the moves are loaded, sorted, resolved
against the same range of the excluded levels and handed to the sink.
"""

from __future__ import annotations

import contextlib
import math
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pipeline.engine.executor import LevelJob, Sink, StepStats
from pipeline.engine.rows import Rows


def _chunk_rows(job: LevelJob, rows: Rows, branching: float) -> int:
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
    per = max(1024, min(_chunk_rows(job, rows, branching) // k, 1 << 21))
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


#: Most bytes of moves in spill files at once: a level with more is spilled in
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
    folder: Path,
) -> StepStats:
    """Every move to its bucket's spill file, then bucket by bucket resolved (in passes
    over runs of buckets when the moves would pass SPILL_BYTES on disk)."""
    k = len(edges) - 1
    stats.buckets, stats.pairs = k, 0
    on_disk = len(job.frontier) * max(1.0, branching) * 8 * rows.width  # as spilled: uint64s
    passes = min(k, max(1, math.ceil(on_disk / SPILL_BYTES)))
    for run in np.array_split(np.arange(k), passes):
        _spill_run(
            job, rows, sink, edges, (int(run[0]), int(run[-1]) + 1), branching, stats, folder
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
    folder: Path,
) -> None:
    """The buckets ``run[0] <= b < run[1]``: their moves spilled, then resolved in order."""
    clock = time.perf_counter()
    first, last = run
    cut_keys = np.array([rows.key_bound(e) for e in edges[1:-1]], np.uint64)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    with contextlib.ExitStack() as stack:
        files = {
            b: stack.enter_context(open(folder / f"b{b:05d}.bin", "wb")) for b in range(first, last)
        }
        scratch = _Scratch()
        share = branching * (last - first) / (len(edges) - 1)
        make = _maker(rows, (edges[first], edges[last]), share, scratch)
        for chunk in job.frontier.chunks(_chunk_rows(job, rows, branching), *rows.want):
            moves, bounds = _by_bucket(make(*chunk), rows, cut_keys)
            for b in range(first, last):
                if bounds[b + 1] > bounds[b]:
                    moves[bounds[b] : bounds[b + 1]].tofile(files[b])
            stats.pairs += bounds[last] - bounds[first]
            del moves
    stats.expand += time.perf_counter() - clock
    for b in range(first, last):
        clock = time.perf_counter()
        path = folder / f"b{b:05d}.bin"
        moves = scratch.load(path) if rows.width == 1 else rows.load(path)
        path.unlink()
        _resolve_bucket(job, rows, moves, edges[b], edges[b + 1], sink, stats, clock)
    shutil.rmtree(folder, ignore_errors=True)


class _Scratch:
    """One uint64 buffer a pass reuses for each chunk's keys, then each bucket's: pages
    written before are several times quicker to write than fresh ones (buffers.py)."""

    def __init__(self) -> None:
        self.buffer = np.empty(0, np.uint64)

    def take(self, n: int) -> np.ndarray:
        if len(self.buffer) < n:
            self.buffer = np.empty(int(n * 1.25) + 1024, np.uint64)
        return self.buffer[:n]

    def load(self, path: Path) -> np.ndarray:
        """A bucket's spilled keys, read into the buffer."""
        keys = self.take(path.stat().st_size // 8)
        with open(path, "rb") as f:
            got = f.readinto(keys)
        assert got == keys.nbytes, path
        return keys


def _maker(
    rows: Rows, span: tuple[int, int], share: float, scratch: _Scratch
) -> Callable[..., np.ndarray]:
    """How a pass makes a chunk's moves: packed keys of the pass's child range ``span``
    only (``share`` of them a state, about), written into the scratch buffer. A pass
    over half the buckets then sorts half the keys, and no key buffer is grown twice
    (from 4 keys a state to french37's 11) in fresh pages: 2.1 s against 6 to 12 s
    for 10 million states of french37's depth 17, at load 9."""
    kernels = rows.kernels
    if kernels is None:
        return rows.make
    expect = max(1.0, share) * 1.1

    def make(states: np.ndarray, parents: np.ndarray | None, _counts: object) -> np.ndarray:
        buffer = scratch.take(int(len(states) * expect) + 1024)
        keys = kernels.keys(states, parents, *span, expect, buffer)
        if not np.may_share_memory(keys, buffer):  # the kernel grew it: larger next time
            scratch.take(len(keys))
        return keys

    return make


def _by_bucket(moves: np.ndarray, rows: Rows, cut_keys: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """A chunk's moves grouped by bucket, buckets in order, and where each begins
    (keys are simply sorted; rows go by a radix sort of their bucket numbers)."""
    if moves.ndim == 1:
        moves.sort()
        return moves, [0, *np.searchsorted(moves, cut_keys).tolist(), len(moves)]
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
