"""Packed keys on two threads: the local executor's step for puzzles with kernels.

A level is cut into child ranges (buckets), made one after the other. Up to
:data:`REEXPAND_KEYS` buckets, each is made by expanding the whole frontier
again, keeping only the keys of its range (the kernel filters them). Past
that, a pass expands the frontier once for a run of buckets, groups each
chunk's keys by bucket (radix.partition, linear) and appends them to the
buckets' slots in the scratch folder (storage/scratch.py: 8 bytes a key, or 5
where the bucket's keys span less than 2**40: their offset from its first;
with path counts 16, or 8 where the key has bits to spare for its parent's
row: indexed.py); then the buckets are read back one by one. Either way a
bucket comes as two runs of keys that the two threads sort (a radix sort;
with path counts indexed moves beside a table of counts, rows.py, or rows
``(key, count)``), and each thread resolves one half of the bucket's range
from both runs. The kernels and the sorts release the GIL, and the rows reach
the sink in range order: the same rows as one thread would make. Big buffers
come from a pool and go back to it (fresh pages cost: buffers.py).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from pipeline.engine.buffers import Pool, owner
from pipeline.engine.core import States, unique
from pipeline.engine.level import Chunk, InMemory
from pipeline.engine.rows import INDEX_CHUNK, Rows
from pipeline.executors.base import LevelJob, Sink, StepStats
from pipeline.executors.local import spill
from pipeline.storage.scratch import Slots

if TYPE_CHECKING:
    from pipeline.engine import indexed

T = TypeVar("T")
R = TypeVar("R")

#: A level of at least this many states is worked in two lanes (threads).
LANE_MIN = 1 << 14
#: Up to this many buckets of packed keys, each re-expands the frontier instead of
#: spilling (rows: spill.REEXPAND_ROWS).
#: Re-expanding costs a whole expansion a bucket, spilling about one in all:
#: english33 (levels of 3 and 4 buckets) built in 52.7 to 55.7 s at 1 or 2
#: against 59.4 to 60.8 s at 4 (interleaved, load 2); 2 keeps the levels just
#: past the budget off the disk.
REEXPAND_KEYS = 2
#: A bucket: its child range, its two runs of moves, the pooled buffers they use,
#: and with indexed moves (rows.py) each run's table of counts.
Bucket = tuple[int, int, tuple[States, States], list[States], tuple[States, States] | None]


def run(
    job: LevelJob,
    rows: Rows,
    sink: Sink,
    k: int,
    sample: np.ndarray,
    branching: float,
    stats: StepStats,
    buffers: Pool,
    scratch: Path | None = None,
) -> StepStats:
    """The level in ``k`` child ranges, each on two threads (see the module docstring);
    ``scratch`` takes the slot files (None: every bucket re-expands)."""
    assert rows.kernels is not None
    edges = rows.cuts(sample, k)
    stats.buckets = len(edges) - 1
    children = unique(rows.children(rows.lead(sample)))
    two = len(job.frontier) >= LANE_MIN
    stats.pairs = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        if stats.buckets <= REEXPAND_KEYS or scratch is None:
            made = _expanded(pool, job, rows, edges, branching, buffers, stats)
        else:
            made = _spilled(pool, job, rows, edges, branching, buffers, stats, scratch)
        for bucket in made:
            _resolve(pool, job, rows, sink, bucket, children if two else None, buffers, stats)
    return stats


def _resolve(
    pool: ThreadPoolExecutor,
    job: LevelJob,
    rows: Rows,
    sink: Sink,
    bucket: Bucket,
    children: States | None,
    buffers: Pool,
    stats: StepStats,
) -> None:
    """One bucket's runs sorted, then resolved in two halves of its range (split at
    the middle of the sample's ``children`` in it; None: in one piece), each into
    the buffer one run's sort left free."""
    lo, hi, runs, taken, tables = bucket
    clock = time.perf_counter()
    runs, free = _sorted(pool, rows, runs, buffers, taken)
    sorted_at = time.perf_counter()
    stats.expand += sorted_at - clock
    assert stats.pairs is not None  # the level step counts its moves (from 0)
    stats.pairs += len(runs[0]) + len(runs[1])
    splits = [lo, hi]
    if children is not None:
        inside = children[(children >= np.uint64(lo)) & (children <= np.uint64(hi - 1))]
        if len(inside) > 1:
            splits = [lo, int(inside[len(inside) // 2]), hi]
    spans = [
        (_key_range(runs, a, b, rows), tuple(e.between(a, b) for e in job.excluded), room)
        for (a, b), room in zip(itertools.pairwise(splits), free, strict=False)
    ]
    resolver = _span_resolver(rows, runs, buffers, tables)
    for states, parents, counts, out in pool.map(resolver, spans):
        copied = sink(states, parents, counts)
        del states, parents, counts
        if copied:
            buffers.give(*out)
        else:
            free = []  # the sink keeps the rows: their buffers stay out of the pool
    del runs, spans
    buffers.give(*taken, *(f for f in free if f is not None))
    stats.dedup += time.perf_counter() - sorted_at


def _expanded(
    pool: ThreadPoolExecutor,
    job: LevelJob,
    rows: Rows,
    edges: list[int],
    branching: float,
    buffers: Pool,
    stats: StepStats,
) -> Iterator[Bucket]:
    """Each bucket from the whole frontier again, its keys filtered by the kernel."""
    current = job.frontier
    share = branching / (len(edges) - 1)  # keys a state gives one bucket, about
    chunk = max(1, (len(current) + 1) // 2) if isinstance(current, InMemory) else INDEX_CHUNK
    estimate = int(len(current) * share * 0.55) + 1024
    counts = current.path_counts() if rows.low else None
    for lo, hi in itertools.pairwise(edges):
        clock = time.perf_counter()

        def keys(part: Chunk, lo: int = lo, hi: int = hi) -> tuple[States, States, int]:
            return (*_chunk_keys(rows, buffers, part, lo, hi, share), len(part[0]))

        parts = _bounded_map(pool, keys, current.chunks(chunk, *rows.want))
        runs, taken, cut = _two_runs(parts, len(current), estimate, buffers, rows)
        tables = None if counts is None else (counts[:cut], counts[cut:])
        stats.expand += time.perf_counter() - clock
        yield lo, hi, runs, taken, tables


def _spilled(
    pool: ThreadPoolExecutor,
    job: LevelJob,
    rows: Rows,
    edges: list[int],
    branching: float,
    buffers: Pool,
    stats: StepStats,
    scratch: Path,
) -> Iterator[Bucket]:
    """The buckets through slot files, in passes over runs of buckets when their moves
    would pass ``spill.SPILL_BYTES`` on disk (each pass expands the frontier again)."""
    k = len(edges) - 1
    counts = job.frontier.path_counts() if rows.low else None
    bits = rows.spare_bits()
    word: float = 8 if bits else 8 * rows.width  # bytes a spilled move
    narrow = None if bits else _narrow(rows, edges)
    if narrow is not None:
        word = float(np.where(narrow[0], 5, 8).mean())  # buckets: about equal in moves
    on_disk = len(job.frontier) * max(1.0, branching) * word
    passes = min(k, max(1, math.ceil(on_disk / spill.SPILL_BYTES)))
    for run in np.array_split(np.arange(k), passes):
        first, last = int(run[0]), int(run[-1]) + 1
        slots, index = _spill_pass(
            pool, job, rows, edges, (first, last), branching, buffers, stats, scratch, narrow
        )
        for b in range(first, last):
            clock = time.perf_counter()
            base = int(narrow[1][b]) if narrow is not None and narrow[0][b] else None
            got = _read_slot(pool, slots, b - first, rows, buffers, index, counts, base)
            stats.expand += time.perf_counter() - clock
            yield edges[b], edges[b + 1], *got


def _spill_pass(
    pool: ThreadPoolExecutor,
    job: LevelJob,
    rows: Rows,
    edges: list[int],
    run: tuple[int, int],
    branching: float,
    buffers: Pool,
    stats: StepStats,
    scratch: Path,
    narrow: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[Slots, indexed.Index | None]:
    """The moves into buckets ``run[0] <= b < run[1]``, each written to its slot
    (bucket ``b`` to slot ``b - run[0]``): the threads expand and group chunks, this
    one writes them in order (``narrow``, :func:`_narrow`: which buckets' keys go
    in 5 bytes). Returns the slots written, and how their keys find their path
    counts when they are indexed (indexed.py)."""
    from pipeline.engine import indexed, radix  # numba: kept off the solve path's imports

    clock = time.perf_counter()
    first, last = run
    cut_keys = np.array([rows.key_bound(e) for e in edges[first + 1 : last]], np.uint64)
    cut_keys <<= np.uint64(rows.low)  # indexed moves are grouped as they are
    share = branching * (last - first) / (len(edges) - 1)
    span = (edges[first], edges[last])
    bits = rows.spare_bits()

    pack = 0 if rows.low else bits  # rows (key, parent's row) to pack into one word
    flags = narrow[0][first:last] if narrow is not None else np.zeros(last - first, bool)
    narrowing = (flags, narrow[1][first:last]) if narrow is not None else None

    def group(part: Chunk) -> tuple[States, list[int], States | None]:
        beside = indexed.rows_of_chunk(part) if pack else None
        moves, buffer = _chunk_keys(rows, buffers, part, *span, share, beside)
        out = buffers.take(len(moves) if bits else moves.size)
        out = out if bits else out.reshape(moves.shape)
        bounds = radix.partition(moves, cut_keys, out, pack, narrowing)
        buffers.give(buffer)
        return out, bounds, part[2]

    per = _chunk_states(job, rows, share)
    parts = job.frontier.chunks(per, *rows.want)
    index = indexed.Index(bits) if bits else None
    # Indexed runs find their counts in the frontier's (rows.py): no counts file.
    with Slots(scratch, flags, counts=bool(pack)) as slots:
        for out, bounds, counts in _bounded_map(
            pool, group, indexed.cut(parts, 1 << bits) if index else parts
        ):
            _write_chunk(slots, flags, out, bounds)
            if index:
                assert counts is not None  # indexed moves: the frontier has path counts
                if pack:
                    slots.write_counts(counts)
                index.add(len(counts), bounds)
            buffers.give(out)
    stats.expand += time.perf_counter() - clock
    return slots, index


def _write_chunk(slots: Slots, narrow: np.ndarray, out: States, bounds: list[int]) -> None:
    """A chunk's keys grouped by bucket (``bounds``) to their slots, 5-byte ones where
    ``narrow`` says."""
    from pipeline.engine import radix

    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        if b > a and narrow[i]:
            slots.write_narrow(i, *radix.narrowed(out, a, b))
        elif b > a:
            slots.write(i, out[a:b])


def _read_slot(
    pool: ThreadPoolExecutor,
    slots: Slots,
    i: int,
    rows: Rows,
    buffers: Pool,
    index: indexed.Index | None,
    counts: States | None = None,
    base: int | None = None,
) -> tuple[tuple[States, States], list, tuple[States, States] | None]:
    """Slot ``i``'s moves as two runs in pooled buffers (listed second, to give back).
    Indexed moves (``counts``, the frontier's: rows.py) come with the runs' tables,
    cut where :meth:`indexed.Index.split` says; other keys with an index are joined
    to their path counts on the two threads; 5-byte keys (``base``, the bucket's
    first key: :func:`_read_narrow`) are widened; the rest are cut in halves."""
    if base is not None:
        runs, taken = _read_narrow(pool, slots, i, base, buffers)
        return runs, taken, None
    n = slots.sizes[i] // (8 if index else 8 * rows.width)
    cut = index.split(i) if index and counts is not None else None
    first = n // 2 if cut is None else cut[1]
    join = index is not None and cut is None  # keys to rows (key, count): two words each
    taken = [buffers.take(count * rows.width) for count in (first, n - first)]
    slots.read(i, [t[len(t) // 2 :] if join else t for t in taken])
    if cut is not None:
        assert index is not None and counts is not None
        return (taken[0], taken[1]), taken, index.rebase(taken, i, cut[0], counts)
    if index:
        a, b = pool.map(lambda t, at: index.attach(t, i, at, slots.counts), taken, (0, first))
        return (a, b), taken, None
    a, b = (t if rows.width == 1 else t.reshape(-1, rows.width) for t in taken)
    return (a, b), taken, None


def _narrow(rows: Rows, edges: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
    """For each bucket, whether its keys go to disk in 5 bytes (their offsets from its
    smallest key lie below radix.NARROW_SPAN), and that key; None for rows."""
    from pipeline.engine import radix

    if rows.width != 1 or rows.kernels is None:
        return None
    top = 1 << rows.kernels.key_bits  # above every key
    bases = [min(rows.key_bound(e), top) for e in edges[:-1]]
    ends = [min(rows.key_bound(e), top) for e in edges[1:]]
    flags = np.array([e - b <= radix.NARROW_SPAN for b, e in zip(bases, ends, strict=True)])
    return flags, np.array([min(b, top - 1) for b in bases], np.uint64)


def _read_narrow(
    pool: ThreadPoolExecutor, slots: Slots, i: int, base: int, buffers: Pool
) -> tuple[tuple[States, States], list]:
    """Slot ``i``'s 5-byte keys (``base`` their smallest key) as two runs of keys in
    pooled buffers (listed second, to give back); each buffer holds its run's
    4-byte parts in its second half and fifth bytes after its end while they are
    widened in place."""
    from pipeline.engine import radix

    n = slots.sizes[i] // 4
    parts = []
    for count in (n // 2, n - n // 2):
        flat = buffers.take(count + (count + 7) // 8)
        keys = flat[:count]
        high = flat[count:].view(np.uint8)[:count]
        parts.append((flat, keys, high))
    slots.read_narrow(i, [(keys.view(np.uint32)[len(keys) :], high) for _, keys, high in parts])
    a, b = pool.map(lambda p: radix.widen(p[1], p[2], base), parts)
    return (a, b), [p[0] for p in parts]


def _chunk_states(job: LevelJob, rows: Rows, share: float) -> int:
    """Frontier states a pass expands at a time: up to four chunks are in flight,
    each with its moves twice (as made, and grouped), within an eighth of the work."""
    room = max(job.work - job.held, job.work // 4) // 8
    return int(min(INDEX_CHUNK, max(1024, room / (8 * max(1.0, share) * 8 * rows.width))))


def _key_range(runs: tuple[States, States], lo: int, hi: int, rows: Rows) -> list[tuple[int, int]]:
    """Where the keys of children in ``[lo, hi)`` sit in each sorted run."""
    top = (1 << 64) - 1
    first, last = rows.key_bound(lo), rows.key_bound(hi)
    out = []
    for r in runs:
        a = rows.search(r, first) if lo else 0
        b = rows.search(r, last) if last <= top else len(r)
        out.append((a, b))
    return out


def _sorted(
    pool: ThreadPoolExecutor, rows: Rows, runs: tuple[States, States], buffers: Pool, taken: list
) -> tuple[tuple[States, States], list[States | None]]:
    """Both runs sorted on the two threads, each into its own buffer or a pooled scratch
    of its size. Returns the sorted runs and, for each, the pooled buffer it is not
    in (None if that was not pooled), flat: free for the resolve's output. ``taken``
    is left listing the buffers the sorted runs are in."""
    spares = [buffers.take(r.size).reshape(r.shape) for r in runs]
    done = list(pool.map(rows.order, runs, spares))
    free: list[States | None] = []
    for run, spare, result in zip(runs, spares, done, strict=True):
        in_spare = owner(result) is owner(spare)
        other = run if in_spare else spare
        pooled = not in_spare or any(owner(t) is owner(run) for t in taken)
        taken[:] = [t for t in taken if owner(t) is not owner(other)]
        free.append(owner(other) if pooled else None)
        if in_spare:
            taken.append(spare)
    return (done[0], done[1]), free


def _chunk_keys(
    rows: Rows,
    buffers: Pool,
    part: Chunk,
    lo: int,
    hi: int,
    expect: float,
    beside: States | None = None,
) -> tuple[States, States]:
    """The moves of one chunk of the frontier, and the pooled buffer they were written to
    (``beside``: set beside each key instead of its parent's path count; indexed
    moves carry their parent's row in the chunk instead)."""
    states, parents, counts = part
    counts = counts if beside is None else beside
    moves = rows.kernels
    assert moves is not None
    buffer = buffers.take(int(len(states) * expect * 1.1) + 1024)
    keys = moves.keys(states, parents, lo, hi, expect, buffer)
    if not rows.counted:
        return keys, buffer
    if rows.low:
        return moves.index(keys, states, rows.low), buffer
    assert counts is not None  # counted moves: the chunk has its path counts
    flat = buffers.take(2 * len(keys))
    counted = moves.weigh(keys, states, counts, flat.reshape(-1, 2))
    del keys
    buffers.give(buffer)
    return counted, flat


def _span_resolver(
    rows: Rows,
    runs: tuple[States, States],
    buffers: Pool,
    tables: tuple[States, States] | None = None,
) -> Callable:
    """Resolves one child range of both runs into ``room`` (a free buffer cut into
    equal columns), or into pooled buffers with room for every key when the
    children do not fit there. Returns the rows and the pooled buffers to give back.
    ``tables``: the counts of indexed runs."""

    def resolve(span: tuple[list[tuple[int, int]], tuple[States, ...], States | None]) -> tuple:
        ((a0, b0), (a1, b1)), exclude, room = span
        width = 2 + rows.counted
        if room is not None and len(room) >= width:
            cap = len(room) // width
            out = tuple(room[i * cap : (i + 1) * cap] for i in range(width))
            got = rows.resolve_keys(runs[0][a0:b0], exclude, runs[1][a1:b1], out, tables)
            if got is not None:
                return *got, ()
        n = (b0 - a0) + (b1 - a1)
        out = tuple(buffers.take(n) for _ in range(width))
        got = rows.resolve_keys(runs[0][a0:b0], exclude, runs[1][a1:b1], out, tables)
        assert got is not None  # room for every key
        return *got, out

    return resolve


def _two_runs(
    parts: Iterator[tuple[States, States, int]],
    states: int,
    estimate: int,
    buffers: Pool,
    rows: Rows,
) -> tuple[tuple[States, States], list[States], int]:
    """The moves of a frontier's chunks ``(moves, pooled buffer, rows)``, in order, as two runs:
    the chunks of the first half of its ``states`` rows, and the rest. Returns the
    runs, the pooled buffers they sit in (to give back once the runs are
    resolved), and the row where the second run's chunks begin.

    Two chunks (a frontier in memory, in halves) are the runs themselves; more
    (a frontier read from files) are copied in as they come, so only the runs
    and the chunks in flight are in memory at once. An indexed move's row (in
    its chunk) is counted on by its chunk's first row in its run's half.
    """
    width = rows.width

    def take(n: int) -> States:
        flat = buffers.take(n * width)
        return flat if width == 1 else flat.reshape(-1, width)

    one, two = next(parts, None), next(parts, None)
    rest = next(parts, None)
    if rest is None:
        empty: tuple[States, States | None, int]
        empty = (np.empty((0, width) if width > 1 else 0, np.uint64), None, 0)
        (a, buf_a, n), (b, buf_b, _) = (g if g is not None else empty for g in (one, two))
        return (a, b), [x for x in (buf_a, buf_b) if x is not None], n
    assert one is not None and two is not None  # a third chunk came after them
    got = [one, two]
    runs = [take(max(estimate, 1024)) for _ in range(2)]
    taken = list(runs)
    fill = [0, 0]
    first = [0, states]  # the first row of each run
    row = 0  # the first row of the chunk
    for part, buffer, n in itertools.chain(got, [rest], parts):
        r = int(2 * row + n > states)  # the chunk's middle past the level's
        first[r] = min(first[r], row)
        if fill[r] + len(part) > len(runs[r]):
            bigger = take(max(2 * len(runs[r]), fill[r] + len(part)))
            bigger[: fill[r]] = runs[r][: fill[r]]
            buffers.give(runs[r])
            taken = [t for t in taken if t is not runs[r]]
            runs[r] = bigger
            taken.append(bigger)
        into = runs[r][fill[r] : fill[r] + len(part)]
        if rows.low:
            if row + n - first[r] > 1 << rows.low:  # would carry into the keys
                raise AssertionError("a run of indexed moves has more rows than its bits")
            np.add(part, np.uint64(row - first[r]), out=into)
        else:
            into[:] = part
        fill[r] += len(part)
        row += n
        buffers.give(buffer)
    return (runs[0][: fill[0]], runs[1][: fill[1]]), taken, first[1]


def _bounded_map(pool: ThreadPoolExecutor, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
    """``pool.map`` that reads at most two items ahead (chunks read from files)."""
    pending: list[Future[R]] = []
    for item in items:
        pending.append(pool.submit(fn, item))
        if len(pending) > 2:
            yield pending.pop(0).result()
    for f in pending:
        yield f.result()
