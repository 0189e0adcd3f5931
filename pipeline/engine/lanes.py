"""Packed keys on two threads: the local executor's fast path.

For each child range (bucket), two threads expand the two halves of the
frontier, keeping only the keys of the range (the kernel filters them), and
sort their runs; then each resolves one half of the range from both runs.
The kernels and np.sort release the GIL, and the rows reach the sink in range
order: the same rows as one thread would make. Big buffers come from a pool
and go back to it (fresh pages cost: buffers.py).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.engine.buffers import Pool
from pipeline.engine.core import States, unique
from pipeline.engine.executor import LevelJob, Sink, StepStats
from pipeline.engine.level import Chunk, InMemory
from pipeline.engine.rows import Rows

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels

#: A level of at least this many states is worked in two lanes (threads).
LANE_MIN = 1 << 14


def run(
    job: LevelJob,
    rows: Rows,
    sink: Sink,
    k: int,
    sample: np.ndarray,
    branching: float,
    stats: StepStats,
    buffers: Pool,
) -> StepStats:
    """The level in ``k`` child ranges, each on two threads (see the module docstring)."""
    assert rows.kernels is not None
    current = job.frontier
    edges = rows.cuts(sample, k)
    stats.buckets = len(edges) - 1
    children = unique(rows.children(rows.lead(sample)))
    share = branching / stats.buckets  # keys a state gives one bucket, about
    chunk = max(1, (len(current) + 1) // 2) if isinstance(current, InMemory) else 1 << 20
    two = len(current) >= LANE_MIN
    stats.pairs = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        for lo, hi in itertools.pairwise(edges):
            clock = time.perf_counter()
            parts = _bounded_map(
                pool,
                lambda part, lo=lo, hi=hi: _chunk_keys(rows.kernels, buffers, part, lo, hi, share),
                current.chunks(chunk, *rows.want),
            )
            runs, taken = _two_runs(parts, int(len(current) * share * 0.55) + 1024, buffers)
            list(pool.map(np.ndarray.sort, runs))
            made = time.perf_counter()
            stats.expand += made - clock
            stats.pairs += len(runs[0]) + len(runs[1])
            inside = children[(children >= np.uint64(lo)) & (children <= np.uint64(hi - 1))]
            splits = [lo, hi]
            if two and len(inside) > 1:
                splits = [lo, int(inside[len(inside) // 2]), hi]
            spans = [
                (_key_range(runs, a, b, rows), tuple(e.between(a, b) for e in job.excluded))
                for a, b in itertools.pairwise(splits)
            ]
            resolve = _span_resolver(rows.kernels, runs, buffers)
            for states, parents, out in pool.map(resolve, spans):
                copied = sink(states, parents, None)
                del states, parents
                if copied:
                    buffers.give(*out)
            del runs, spans
            buffers.give(*taken)
            stats.dedup += time.perf_counter() - made
    return stats


def _key_range(runs: tuple[States, States], lo: int, hi: int, rows: Rows) -> list[tuple[int, int]]:
    """Where the keys of children in ``[lo, hi)`` sit in each sorted run."""
    top = (1 << 64) - 1
    first, last = rows.key_bound(lo), rows.key_bound(hi)
    out = []
    for r in runs:
        a = int(np.searchsorted(r, np.uint64(first))) if lo else 0
        b = int(np.searchsorted(r, np.uint64(last))) if last <= top else len(r)
        out.append((a, b))
    return out


def _chunk_keys(
    moves: Kernels, buffers: Pool, part: Chunk, lo: int, hi: int, expect: float
) -> tuple[States, States]:
    """The keys of one chunk of the frontier, and the pooled buffer they were written to."""
    states, parents, _ = part
    buffer = buffers.take(int(len(states) * expect * 1.1) + 1024)
    return moves.keys(states, parents, lo, hi, expect, buffer), buffer


def _span_resolver(moves: Kernels, runs: tuple[States, States], buffers: Pool) -> Callable:
    """Resolves one child range of both runs into pooled buffers (returned to give back)."""

    def resolve(span: tuple[list[tuple[int, int]], tuple[States, ...]]) -> tuple:
        ((a0, b0), (a1, b1)), exclude = span
        n = (b0 - a0) + (b1 - a1)
        out = (buffers.take(n), buffers.take(n))
        children, parents = moves.resolve(runs[0][a0:b0], exclude, runs[1][a1:b1], out)
        return children, parents, out

    return resolve


def _two_runs(
    parts: Iterator[tuple[States, States]], estimate: int, buffers: Pool
) -> tuple[tuple[States, States], list[States]]:
    """The keys of a frontier's chunks as two runs, chunk i going to run i % 2, and
    the pooled buffers they sit in (to give back once the runs are resolved).

    Two chunks (a frontier in memory, in halves) are the runs themselves; more
    (a frontier read from files) are copied in as they come, so only the runs
    and the chunks in flight are in memory at once.
    """
    got = [next(parts, None), next(parts, None)]
    rest = next(parts, None)
    if rest is None:
        empty = (np.empty(0, np.uint64), None)
        (a, buf_a), (b, buf_b) = (g if g is not None else empty for g in got)
        return (a, b), [x for x in (buf_a, buf_b) if x is not None]
    runs = [buffers.take(max(estimate, 1024)) for _ in range(2)]
    taken = list(runs)
    fill = [0, 0]
    for i, (part, buffer) in enumerate(itertools.chain(got, [rest], parts)):
        r = i % 2
        if fill[r] + len(part) > len(runs[r]):
            bigger = buffers.take(max(2 * len(runs[r]), fill[r] + len(part)))
            bigger[: fill[r]] = runs[r][: fill[r]]
            buffers.give(runs[r])
            taken = [t for t in taken if t is not runs[r]]
            runs[r] = bigger
            taken.append(bigger)
        runs[r][fill[r] : fill[r] + len(part)] = part
        fill[r] += len(part)
        buffers.give(buffer)
    return (runs[0][: fill[0]], runs[1][: fill[1]]), taken


def _bounded_map(
    pool: ThreadPoolExecutor, fn: Callable[..., Any], items: Iterator[Any]
) -> Iterator[Any]:
    """``pool.map`` that reads at most two items ahead (chunks read from files)."""
    pending: list[Any] = []
    for item in items:
        pending.append(pool.submit(fn, item))
        if len(pending) > 2:
            yield pending.pop(0).result()
    for f in pending:
        yield f.result()
