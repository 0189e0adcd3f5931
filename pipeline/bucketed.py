"""The level step under a memory budget: buckets of child states, spilled to disk.

A level whose expansion fits in the budget is one :func:`bfs.step`. A larger
one is split by child-state range into buckets (boundaries from the children
of a strided sample, so buckets come out about equal): the frontier is read in
chunks, expanded, and each (child, parent) pair appended to its bucket's spill
file; then each bucket in turn is loaded, sorted, deduplicated (smallest
parent), checked against the same range of the levels the graph needs, and
handed to the writer. Every child of a state lands in one bucket and the
buckets cover increasing ranges, so the rows are exactly those of the
in-memory step, in the same order, whatever the number of buckets.

Like bfs.py it knows no puzzle; unlike bfs.py it reads finished levels back
from their files (store.py) when they are not kept in memory.
"""

from __future__ import annotations

import contextlib
import math
import re
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pipeline import bfs, store
from pipeline.bfs import States
from pipeline.errors import PuzzleDBError

#: Peak bytes per (src, child) pair while a chunk is expanded, sorted and
#: deduplicated (measured on 3x4; numpy temporaries included).
PAIR_BYTES = 56
#: Bytes per state of a level kept in memory (states only; parents go to disk).
STATE_BYTES = 8
#: Bytes a spilled pair takes on disk.
SPILL_PAIR_BYTES = 16
#: Up to this many buckets, each re-expands the frontier instead of spilling.
REEXPAND = 4
#: States expanded for the sample that sets the bucket boundaries.
SAMPLE = 1 << 16
DEFAULT_MEMORY = "3GB"


class BadMemory(PuzzleDBError):
    """A memory budget that cannot be parsed or is too small to work in."""


def parse_memory(text: str | int) -> int:
    """'3GB', '512MB', '1.5G', '800M' or a number of bytes, as bytes (powers of 1024)."""
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(I?B)?\s*", text.upper())
    if not m:
        raise BadMemory(f"memory budget {text!r} not understood (examples: 3GB, 512MB)")
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2)]
    return int(float(m.group(1)) * scale)


def rss() -> int:
    """Resident memory of this process now, in bytes."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096
    except OSError:  # not Linux: fall back to the peak
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class Stored:
    """A finished level: its files, and its states in memory when small enough."""

    depth: int
    directory: Path
    files: list[dict[str, Any]]
    states: States | None = None

    def __len__(self) -> int:
        if self.states is not None:
            return len(self.states)
        return sum(f["rows"] for f in self.files)

    def all(self) -> States:
        if self.states is not None:
            return self.states
        parts = list(store.iter_states(self.directory, self.files, 1 << 62))
        return np.concatenate(parts) if parts else np.empty(0, np.uint64)

    def chunks(self, rows: int) -> Iterator[States]:
        if self.states is not None:
            for i in range(0, len(self.states), rows):
                yield self.states[i : i + rows]
        else:
            yield from store.iter_states(self.directory, self.files, rows)

    def between(self, lo: int, hi: int) -> States:
        """States in [lo, hi); ``hi`` beyond 2**64-1 means no upper end."""
        if self.states is not None:
            a = np.searchsorted(self.states, np.uint64(lo))
            b = (
                len(self.states)
                if hi > int(bfs.NO_PARENT)
                else np.searchsorted(self.states, np.uint64(hi))
            )
            return self.states[a:b]
        return store.read_states_between(self.directory, self.files, lo, hi)

    def sample(self, count: int) -> States:
        """About ``count`` states spread evenly over the level."""
        n = len(self)
        stride = max(1, n // count)
        if self.states is not None:
            return self.states[::stride]
        out, offset = [], 0
        for chunk in self.chunks(1 << 22):
            out.append(chunk[(-offset) % stride :: stride])
            offset += len(chunk)
        return np.concatenate(out) if out else np.empty(0, np.uint64)


@dataclass
class StepStats:
    """What one level step did and where its time went."""

    pairs: int = 0
    buckets: int = 1
    expand: float = 0.0
    dedup: float = 0.0
    spill_bytes: int = 0
    extra: dict[str, float] = field(default_factory=dict)


def plan(n: int, branching: float, kept: int, work: int) -> int:
    """How many buckets a level of ``n`` states needs within ``work`` bytes."""
    pairs = n * branching
    need = pairs * PAIR_BYTES + kept
    if need <= work:
        return 1
    room = max(work - kept, work // 4)
    # Spilling, a bucket holds its pairs (child, parent) plus the sort's temporaries.
    return max(2, math.ceil(pairs * PAIR_BYTES * 1.25 / room))


def next_level(
    current: Stored,
    exclude: Sequence[Stored],
    expand: bfs.Expander,
    work: int,
    spill: Path,
    sink: Callable[[States, States], None],
    kept: int = 0,
    buckets: int | None = None,
) -> StepStats:
    """Hand the next level to ``sink`` in sorted runs, within ``work`` bytes.

    ``exclude`` are the finished levels the new one is checked against; ``kept``
    the bytes of levels the caller holds in memory meanwhile; ``buckets``
    forces a bucket count (tests).
    """
    stats = StepStats()
    n = len(current)
    if n == 0:
        return stats
    clock = time.perf_counter()
    sample = current.sample(SAMPLE)
    _, sample_children = expand(sample)
    branching = len(sample_children) / max(1, len(sample))
    k = buckets or plan(n, branching, kept, work)
    stats.buckets = k
    stats.expand += time.perf_counter() - clock
    if k == 1:
        clock = time.perf_counter()
        states = current.all()
        done = [e.all() for e in exclude]
        spent = [0.0]

        def timed(chunk: States) -> tuple[np.ndarray, States]:
            start = time.perf_counter()
            out = expand(chunk)
            spent[0] += time.perf_counter() - start
            return out

        children, parents = bfs.step(states, timed, done)
        stats.pairs = int(n * branching)
        stats.expand += spent[0]
        stats.dedup += time.perf_counter() - clock - spent[0]
        sink(children, parents)
        return stats
    return _bucketed(current, exclude, expand, work, spill, sink, kept, k, sample_children, stats)


def _bucketed(
    current: Stored,
    exclude: Sequence[Stored],
    expand: bfs.Expander,
    work: int,
    spill: Path,
    sink: Callable[[States, States], None],
    kept: int,
    k: int,
    sample_children: States,
    stats: StepStats,
) -> StepStats:
    clock = time.perf_counter()
    uniq = np.unique(sample_children)
    cuts = np.unique(uniq[(np.arange(1, k) * len(uniq)) // k]) if len(uniq) else uniq
    k = len(cuts) + 1
    stats.buckets = k
    branching = max(1.0, len(sample_children) / max(1, min(len(current), SAMPLE)))
    chunk_rows = max(1024, int(max(work - kept, work // 4) / (branching * PAIR_BYTES)))
    stats.expand += time.perf_counter() - clock
    if k <= REEXPAND:
        # Few buckets: expanding the frontier again for each is cheaper than a spill.
        edges = [0, *(int(c) for c in cuts), 1 << 64]
        rows = max(1024, min(chunk_rows // k, 1 << 21))
        for b in range(k):
            clock = time.perf_counter()
            lo, hi = np.uint64(edges[b]), edges[b + 1]
            kids, pars = [], []
            for chunk in current.chunks(rows):
                src, child = expand(chunk)
                inside = child >= lo
                if hi <= int(bfs.NO_PARENT):
                    inside &= child < np.uint64(hi)
                kids.append(child[inside])
                pars.append(chunk[src[inside]])
                stats.pairs += int(inside.sum())
                del src, child, inside
            child = np.concatenate(kids) if kids else np.empty(0, np.uint64)
            parent = np.concatenate(pars) if pars else np.empty(0, np.uint64)
            del kids, pars
            stats.expand += time.perf_counter() - clock
            _dedup(child, parent, exclude, edges[b], edges[b + 1], sink, stats)
        return stats
    shutil.rmtree(spill, ignore_errors=True)
    spill.mkdir(parents=True)
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(spill / f"b{b:05d}.bin", "wb")) for b in range(k)]
        for chunk in current.chunks(chunk_rows):
            src, child = expand(chunk)
            bucket = np.searchsorted(cuts, child, side="right")
            if k <= 1 << 16:  # numpy's stable sort of 16-bit keys is a radix sort
                bucket = bucket.astype(np.uint16)
            order = np.argsort(bucket, kind="stable")
            pairs = np.empty((len(child), 2), np.uint64)
            pairs[:, 0] = child[order]
            pairs[:, 1] = chunk[src[order]]
            del src, child, order
            bounds = np.concatenate(([0], np.cumsum(np.bincount(bucket, minlength=k))))
            del bucket
            for b in range(k):
                if bounds[b + 1] > bounds[b]:
                    pairs[bounds[b] : bounds[b + 1]].tofile(files[b])
            stats.pairs += len(pairs)
            del pairs
    stats.spill_bytes = stats.pairs * SPILL_PAIR_BYTES
    stats.expand += time.perf_counter() - clock

    edges = [0, *(int(c) for c in cuts), 1 << 64]
    for b in range(k):
        clock = time.perf_counter()
        path = spill / f"b{b:05d}.bin"
        pairs = np.fromfile(path, dtype=np.uint64).reshape(-1, 2)
        path.unlink()
        child = np.ascontiguousarray(pairs[:, 0])
        parent = np.ascontiguousarray(pairs[:, 1])
        del pairs
        _dedup(child, parent, exclude, edges[b], edges[b + 1], sink, stats, clock)
    shutil.rmtree(spill, ignore_errors=True)
    return stats


def _dedup(
    child: States,
    parent: States,
    exclude: Sequence[Stored],
    lo: int,
    hi: int,
    sink: Callable[[States, States], None],
    stats: StepStats,
    clock: float | None = None,
) -> None:
    """One bucket's pairs: sorted unique children, smallest parent, minus ``exclude``."""
    clock = time.perf_counter() if clock is None else clock
    if not len(child):
        return
    order = np.argsort(child)  # min parent by reduceat: any order of ties
    child = child[order]
    parent = parent[order]
    del order
    starts = np.flatnonzero(np.concatenate(([True], child[1:] != child[:-1])))
    children = child[starts]
    del child
    best = np.minimum.reduceat(parent, starts)
    del parent, starts
    keep = np.ones(len(children), dtype=bool)
    for done in exclude:
        keep &= bfs._absent(children, done.between(lo, hi))
    children, best = children[keep], best[keep]
    stats.dedup += time.perf_counter() - clock
    sink(children, best)
