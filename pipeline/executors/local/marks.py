"""The level step over a dense rank, on two threads: marks, not a sort (engine/marks.py).

For a puzzle whose kernels rank its states (``Kernels.ranks``) in a build that
affords the marks (the build decides: ``Builder._ranked``), a level is made in
two passes:

1. the threads expand chunks of the frontier into keys ``rank(child) << 2 |
   tag``, leaving out the moves back to a parent, each chunk's keys grouped by
   range of ranks into one buffer kept for the build;
2. the threads take runs of ranges in turn: mark their keys (a bit a tag at
   the child's rank), then scan those ranks in order into rows, dropping the
   ranks ``seen`` holds (the levels before) and adding the new ones to it.
   This thread hands the runs to the sink in order (so the rows are sorted)
   and keeps the new level's states and tags: the next step's frontier, so
   the build need not keep the level (``StepStats.holds``).

``seen`` holds every level made since the step last started it afresh, which
for every graph kind excludes what :func:`core.excluded_depths` asks and no
more: a level's moves land in no other finished level (the promise of the
graph kind, which verify checks). A step whose
frontier is not the level the space holds (a resumed build, a level made by
another path) marks the frontier and the excluded levels anew and expands
the frontier as given, leaving out each state's move to its parent.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from pipeline.engine import marks as engine_marks
from pipeline.engine.core import States
from pipeline.engine.level import Chunk
from pipeline.engine.marks import RankSpace
from pipeline.engine.packed import Ranks
from pipeline.engine.rows import Rows
from pipeline.executors.base import LevelJob, Sink, StepStats

#: Frontier states a thread expands into keys at a time.
CHUNK = 1 << 16
#: Keys of one task of the second pass (a run of ranges), about: its rows' buffers.
BATCH_KEYS = 1 << 20
_NONE = np.empty(0, np.uint64)
_NO_BACK = np.empty(0, np.uint8)
#: A thread's own buffers: its chunk's keys before they are grouped.
_local = threading.local()


def fits(ranks: Ranks, job: LevelJob) -> bool:
    """Whether the step may go over the ranks: the level's keys (4 bytes for each of
    a state's moves, those back to a parent included) and the next level it holds
    (9 bytes a state, twice: what the sink has not copied) within the work, beside
    what is held (the build took the marks from the work: Budget.affords)."""
    if job.buckets is not None:
        return False
    return len(job.frontier) * (4 * ranks.most + 18) + job.held <= job.work


def run(
    job: LevelJob,
    rows: Rows,
    sink: Sink,
    stats: StepStats,
    space: RankSpace,
    pool: ThreadPoolExecutor,
) -> StepStats:
    """The level after ``job.frontier`` through ``space``, on ``pool``'s two threads (kept
    for the build, so are their buffers: see the module docstring)."""
    clock = time.perf_counter()
    chunks = _frontier(space, job, rows)
    keys, offsets, starts = _expand(pool, chunks, space, len(job.frontier))
    stats.pairs = int(starts[:, -2].sum())
    stats.buckets = 1
    stats.expand += time.perf_counter() - clock
    clock = time.perf_counter()
    space.clean = False
    space.through = None
    made = _scan(pool, space, keys, offsets, starts, sink)
    space.clean = True
    space.hold(made)
    space.through = job.frontier.depth + 1
    stats.holds = True
    stats.dedup += time.perf_counter() - clock
    return stats


def _frontier(space: RankSpace, job: LevelJob, rows: Rows) -> Iterator[Chunk]:
    """The frontier in chunks ``(states, parents or None, back bits or None)``: the level
    the space holds, or else the one given, once ``seen`` holds it and the levels
    it is checked against (and no mark is left from a step cut short)."""
    if not space.clean:
        space.marks.fill(0)
        space.clean = True
    if space.through == job.frontier.depth:
        states, back = space.level
        skip = rows.want[0]  # a layered graph has no moves back: its tags skip nothing
        return (
            (states[i : i + CHUNK], None, back[i : i + CHUNK] if skip else None)
            for i in range(0, len(states), CHUNK)
        )
    space.forget()
    ranks = space.ranks
    for level in [job.frontier, *job.excluded]:
        for states, _, _ in level.chunks(1 << 20):
            ranks.mark(states, space.seen, ranks.args)
    return ((s, p, None) for s, p, _ in job.frontier.chunks(CHUNK, rows.want[0]))


def _expand(
    pool: ThreadPoolExecutor, chunks: Iterator[Chunk], space: RankSpace, states: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every chunk's keys (of a frontier of ``states`` states) grouped by range into the
    keys buffer; returns it, each chunk's offset in it, and where each chunk's
    ranges start (a row a chunk)."""
    ranks = space.ranks
    buffer = space.keys_for(states * ranks.most)
    fill = [0]
    lock = threading.Lock()

    def expand(chunk: Chunk) -> tuple[int, np.ndarray]:
        states, parents, back = chunk
        n = max(CHUNK, len(states))
        if len(getattr(_local, "keys", _NO_BACK)) < n * ranks.most:
            _local.keys = np.empty(n * ranks.most, np.uint32)
            _local.scratch = np.empty(3 * n, np.uint64)
        skip = _NONE if parents is None else parents
        back = _NO_BACK if back is None else back
        m = ranks.keys(states, skip, back, _local.keys, _local.scratch, ranks.args)
        with lock:
            at = fill[0]
            fill[0] += m
            if fill[0] > len(buffer):
                raise AssertionError("more keys than the frontier's states allow")
        starts = np.empty(space.ranges + 2, np.int64)
        engine_marks.group(_local.keys, m, buffer[at : at + m], starts, np.uint32(space.shift))
        return at, starts

    done = list(pool.map(expand, chunks))
    offsets = np.array([a for a, _ in done], np.int64)
    starts = np.array([s for _, s in done], np.int64).reshape(-1, space.ranges + 2)
    return buffer, offsets, starts


def _batches(per_range: np.ndarray) -> Iterator[tuple[int, int]]:
    """Runs of consecutive ranges with keys, of about :data:`BATCH_KEYS` keys each."""
    g, n = 0, len(per_range)
    while g < n:
        if not per_range[g]:
            g += 1
            continue
        first, total = g, 0
        while g < n and per_range[g] and (total == 0 or total + per_range[g] <= BATCH_KEYS):
            total += per_range[g]
            g += 1
        yield first, g


def _scan(
    pool: ThreadPoolExecutor,
    space: RankSpace,
    keys: np.ndarray,
    offsets: np.ndarray,
    starts: np.ndarray,
    sink: Sink,
) -> int:
    """The second pass: runs of ranges marked and scanned on the threads, their rows
    handed to ``sink`` in order and their states and back bits kept as the next
    level; returns its size."""
    per_range = (starts[:, 1:-1] - starts[:, :-2]).sum(axis=0)
    batches = list(_batches(per_range))
    if not batches:
        return 0
    most = max(int(per_range[a:b].sum()) for a, b in batches) + 2  # scan_core writes 2 ahead
    level_states, level_back = space.next_level(int(per_range.sum()))
    free: queue.SimpleQueue = queue.SimpleQueue()
    for buffers in space.row_buffers(4, most):
        free.put(buffers)
    ranks = space.ranks

    def task(batch: tuple[int, int]) -> tuple[States, States, np.ndarray, tuple]:
        g0, g1 = batch
        out = free.get()
        engine_marks.mark(keys, offsets, starts, g0, g1, space.marks)
        w0, w1 = space.words(g0, g1)
        m = ranks.scan(space.marks, space.seen, w0, w1, *out, ranks.args)
        return out[0][:m], out[1][:m], out[2][:m], out

    made = 0

    def hand(done: Future) -> None:
        nonlocal made
        states, parents, back, out = done.result()
        level_states[made : made + len(states)] = states
        level_back[made : made + len(states)] = back
        made += len(states)
        if not sink(states, parents, None):  # the sink keeps the rows: new buffers
            kept, out = out, tuple(np.empty_like(b) for b in out)
            space.rows = [out if r is kept else r for r in space.rows]
        free.put(out)

    pending: list[Future] = []
    for batch in batches:
        pending.append(pool.submit(task, batch))
        if len(pending) > 2:
            hand(pending.pop(0))
    for done in pending:
        hand(done)
    return made
