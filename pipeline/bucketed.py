"""The level step under a memory budget: buckets of child states, spilled to disk.

A level whose moves fit in the budget is expanded, sorted and resolved whole.
A larger one is split by child-state range into buckets (boundaries from the
children of a strided sample, so buckets come out about equal): the frontier is
read in chunks and each move is appended to its bucket's spill file (or, for a
few buckets, the frontier is expanded again for each); then each bucket in
turn is loaded, sorted, resolved (unique children, smallest parent, minus the
same range of the levels the graph needs) and handed to the writer. Every
child of a state lands in one bucket and the buckets cover increasing ranges,
so the rows are exactly those of the in-memory step, in the same order,
whatever the number of buckets.

A move is a packed key (packed.py: 8 bytes, np.sort) when the puzzle has
compiled moves, else a row (child, parent) as bfs.step makes it, with a third
column of weights when path counts are built.

Like bfs.py it knows no puzzle; unlike bfs.py it reads finished levels back
from their files (store.py) when they are not kept in memory.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline import bfs, store
from pipeline.bfs import States
from pipeline.buffers import Pool
from pipeline.errors import PuzzleDBError

if TYPE_CHECKING:
    from pipeline.packed import Moves

#: Peak bytes per (src, child) pair while a chunk is expanded, sorted and
#: deduplicated (measured on 3x4; numpy temporaries included).
PAIR_BYTES = 56
#: The same for a packed key (the key, sorted in place, and the rows it resolves to).
KEY_BYTES = 20
#: Bytes per state of a level kept in memory (its state and its parent).
STATE_BYTES = 16
#: Up to this many buckets, each re-expands the frontier instead of spilling.
REEXPAND = 4
#: Levels of at least this many states use the puzzle's compiled moves (when it
#: has them); smaller ones are quicker in numpy than compiling is.
PACKED_MIN = 1 << 18
#: A level of at least this many states is worked in two lanes (threads).
LANE_MIN = 1 << 14
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


def give_back_freed_memory() -> None:
    """Have glibc return every freed block of 1 MiB or more to the system at once.

    By default glibc raises its mmap threshold up to 32 MiB after the first large
    free, and blocks below it then stay in per-thread arenas once freed: with the
    level step on four threads that kept a 1GB build of 3x4 at 1.9 GiB.
    """
    import ctypes
    import ctypes.util

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD (fixed, so no longer raised)


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
    """A finished level: its files, and its rows in memory when small enough.

    ``parents`` (kept with ``states``) let packed moves skip the move back;
    ``paths`` are the path counts, when the table has them.
    """

    depth: int
    directory: Path
    files: list[dict[str, Any]]
    states: States | None = None
    parents: States | None = None
    paths: States | None = None

    def __len__(self) -> int:
        if self.states is not None:
            return len(self.states)
        return sum(f["rows"] for f in self.files)

    def all(self) -> States:
        if self.states is not None:
            return self.states
        parts = [c[0] for c in self.chunks(1 << 62)]
        return np.concatenate(parts) if parts else np.empty(0, np.uint64)

    def chunks(
        self, rows: int, parents: bool = False, paths: bool = False
    ) -> Iterator[tuple[States, States | None, States | None]]:
        """(states, parents, paths) in runs of about ``rows``; columns not asked for are None."""
        if self.states is not None:
            for i in range(0, len(self.states), rows):
                cut = slice(i, i + rows)
                yield (
                    self.states[cut],
                    self.parents[cut] if parents and self.parents is not None else None,
                    self.paths[cut] if paths and self.paths is not None else None,
                )
            return
        columns = ["state", *(["parent"] if parents else []), *(["paths"] if paths else [])]
        for got in store.iter_columns(self.directory, self.files, rows, columns):
            yield got["state"], got.get("parent"), got.get("paths")

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

    def sample(
        self, count: int, parents: bool = False, paths: bool = False
    ) -> tuple[States, States | None, States | None]:
        """About ``count`` rows spread evenly over the level (states, parents, paths)."""
        n = len(self)
        stride = max(1, n // count)
        cols: list[list[np.ndarray]] = [[], [], []]
        offset = 0
        for chunk in self.chunks(1 << 22, parents, paths):
            for out, col in zip(cols, chunk, strict=True):
                if col is not None:
                    out.append(col[(-offset) % stride :: stride])
            offset += len(chunk[0])
        return tuple(np.concatenate(c) if c else None for c in cols)  # type: ignore[return-value]


#: Takes a run of rows (states, parents, path sums); returns whether it copied
#: them (True: the arrays may be reused) or kept them.
Sink = Callable[[States, States, "States | None"], bool]


class Rows:
    """How a level's moves are made, ordered and resolved into rows.

    Packed keys (:class:`packed.Moves`) are one uint64 a move, sorted with
    np.sort; otherwise a move is a row ``(child, parent)`` of a 2-D array, plus
    the parent's weight as a third column when ``weights`` (path counts).
    Either way column 0 (or the key) orders the moves by child, ``shift`` bits
    up.
    """

    def __init__(
        self,
        expand: bfs.Expander,
        moves: Moves | None = None,
        weights: bool = False,
        skip_back: bool = True,
    ) -> None:
        self.moves = None if weights else moves
        self.expand_pairs = expand
        self.weights = weights
        #: The columns of the current level a step reads: parents (to skip the
        #: move back), paths (the weights).
        self.want = (self.moves is not None and skip_back, weights)
        self.shift = self.moves.tag_bits if self.moves else 0
        self.bytes = KEY_BYTES if self.moves else PAIR_BYTES + (24 if weights else 0)
        self.width = 1 if self.moves else (3 if weights else 2)

    def make(self, states: States, parents: States | None, paths: States | None) -> np.ndarray:
        """The moves out of a chunk of a level, unordered."""
        if self.moves:
            return self.moves.keys(states, parents)
        src, child = self.expand_pairs(states)
        rows = np.empty((len(child), self.width), np.uint64)
        rows[:, 0] = child
        rows[:, 1] = states[src]
        if self.weights:
            assert paths is not None
            rows[:, 2] = paths[src]
        return rows

    def lead(self, rows: np.ndarray) -> np.ndarray:
        """The column that orders moves by child (the keys themselves, or the children)."""
        return rows if rows.ndim == 1 else rows[:, 0]

    def order(self, rows: np.ndarray) -> np.ndarray:
        if rows.ndim == 1:
            rows.sort()
            return rows
        return rows[np.argsort(rows[:, 0])]  # ties in any order: parents are reduced

    def load(self, path: Path) -> np.ndarray:
        rows = np.fromfile(path, dtype=np.uint64)
        return rows if self.width == 1 else rows.reshape(-1, self.width)

    def resolve(
        self, rows: np.ndarray, exclude: Sequence[States]
    ) -> tuple[States, States, States | None]:
        """Ordered moves to (unique children, smallest parents, path sums), minus ``exclude``."""
        if self.moves:
            children, parents = self.moves.resolve(rows, tuple(exclude))
            return children, parents, None
        if not len(rows):
            e = np.empty(0, np.uint64)
            return e, e, (e if self.weights else None)
        child = rows[:, 0]
        starts = np.flatnonzero(np.concatenate(([True], child[1:] != child[:-1])))
        children = child[starts]
        best = np.minimum.reduceat(rows[:, 1], starts)
        keep = np.ones(len(children), dtype=bool)
        for done in exclude:
            keep &= bfs.absent(children, done)
        sums = None
        if self.weights:
            w = rows[:, 2]
            approx = np.add.reduceat(w.astype(np.float64), starts)[keep]
            if len(approx) and approx.max() >= 2.0**64 * 0.999:
                raise OverflowError("path counts pass 64 bits")
            sums = np.add.reduceat(w, starts)[keep]
        return children[keep], best[keep], sums


@dataclass
class StepStats:
    """What one level step did and where its time went."""

    pairs: int = 0
    buckets: int = 1
    expand: float = 0.0
    dedup: float = 0.0
    spill_bytes: int = 0
    extra: dict[str, float] = field(default_factory=dict)


def plan(n: int, branching: float, kept: int, work: int, move_bytes: int = PAIR_BYTES) -> int:
    """How many buckets a level of ``n`` states needs within ``work`` bytes."""
    moves = n * branching
    need = moves * move_bytes + kept
    if need <= work:
        return 1
    room = max(work - kept, work // 4)
    # Spilling, a bucket holds its moves plus the sort's temporaries.
    return max(2, math.ceil(moves * move_bytes * 1.25 / room))


def next_level(
    current: Stored,
    exclude: Sequence[Stored],
    expand: bfs.Expander,
    work: int,
    spill: Path,
    sink: Sink,
    kept: int = 0,
    buckets: int | None = None,
    weights: bool = False,
    moves: Moves | None = None,
    skip_back: bool = True,
    buffers: Pool | None = None,
) -> StepStats:
    """Hand the next level to ``sink`` in sorted runs, within ``work`` bytes.

    ``exclude`` are the finished levels the new one is checked against; ``kept``
    the bytes of levels the caller holds in memory meanwhile; ``buckets``
    forces a bucket count (tests); ``weights`` sums the path counts of the
    current level into the children's (sink's third argument); ``moves``, the
    puzzle's compiled moves, take the packed path (not with ``weights``) and
    with ``skip_back`` leave out each move back to a parent (true of every
    graph kind but a layered one, where the move back would be a new state);
    ``buffers`` lends the packed path its key and row buffers, kept from one
    call to the next; rows ``sink`` says it copied go back to it.
    """
    rows = Rows(expand, moves, weights, skip_back)
    want = rows.want
    stats = StepStats()
    n = len(current)
    if n == 0:
        return stats
    clock = time.perf_counter()
    sample = rows.make(*current.sample(SAMPLE, *want))
    branching = len(sample) / max(1, min(n, SAMPLE))
    k = buckets or plan(n, branching, kept, work, rows.bytes)
    stats.buckets = k
    stats.expand += time.perf_counter() - clock
    if rows.moves is not None and k <= REEXPAND:
        return _lanes(current, exclude, rows, sink, k, sample, branching, stats, buffers or Pool(0))
    if k == 1:
        clock = time.perf_counter()
        made = [rows.make(*c) for c in current.chunks(1 << 62, *want)]
        moves = made[0] if len(made) == 1 else np.concatenate(made)
        del made
        stats.pairs = len(moves)
        stats.expand += time.perf_counter() - clock
        clock = time.perf_counter()
        result = rows.resolve(rows.order(moves), [e.all() for e in exclude])
        del moves
        stats.dedup += time.perf_counter() - clock
        sink(*result)
        return stats
    return _bucketed(current, exclude, rows, work, spill, sink, kept, k, sample, stats)


def _cuts(sample: np.ndarray, rows: Rows, k: int) -> list[int]:
    """Child-state edges ``[0, c1, ..., 2**64]`` of ``k`` ranges about equal in moves."""
    uniq = bfs.unique(rows.lead(sample) >> np.uint64(rows.shift))
    cuts = bfs.unique(uniq[(np.arange(1, k) * len(uniq)) // k]) if len(uniq) else uniq
    return [0, *(int(c) for c in cuts), 1 << 64]


def _lanes(
    current: Stored,
    exclude: Sequence[Stored],
    rows: Rows,
    sink: Sink,
    k: int,
    sample: np.ndarray,
    branching: float,
    stats: StepStats,
    buffers: Pool,
) -> StepStats:
    """Packed keys, ``k`` child ranges (buckets) in turn, each on two threads.

    For a bucket, two threads expand the two halves of the frontier, keeping
    only the keys of the bucket's range (the kernel filters them), and sort
    their runs; then each resolves one half of the range from both runs.
    The kernels and np.sort release the GIL, and the rows reach ``sink`` in
    range order: the same rows as one thread would make.
    """
    assert rows.moves is not None
    moves = rows.moves
    two = len(current) >= LANE_MIN
    edges = _cuts(sample, rows, k)
    stats.buckets = len(edges) - 1
    children = bfs.unique(rows.lead(sample) >> np.uint64(rows.shift))
    share = branching / stats.buckets  # keys a state gives one bucket, about
    chunk = max(1, (len(current) + 1) // 2) if current.states is not None else 1 << 20

    with ThreadPoolExecutor(max_workers=2) as pool:
        for lo, hi in itertools.pairwise(edges):
            clock = time.perf_counter()
            parts = _bounded_map(
                pool,
                lambda part, lo=lo, hi=hi: _chunk_keys(moves, buffers, part, lo, hi, share),
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
                (_key_range(runs, a, b, rows.shift), tuple(e.between(a, b) for e in exclude))
                for a, b in itertools.pairwise(splits)
            ]
            for states, parents, out in pool.map(
                lambda span, runs=runs: _resolve_span(moves, runs, buffers, *span), spans
            ):
                copied = sink(states, parents, None)
                del states, parents
                if copied:
                    buffers.give(*out)
            del runs, spans
            buffers.give(*taken)
            stats.dedup += time.perf_counter() - made
    return stats


def _key_range(runs: tuple[States, States], lo: int, hi: int, shift: int) -> list[tuple[int, int]]:
    """Where the keys of children in ``[lo, hi)`` sit in each sorted run."""
    top = (1 << 64) - 1
    out = []
    for r in runs:
        a = int(np.searchsorted(r, np.uint64(lo << shift))) if lo else 0
        b = int(np.searchsorted(r, np.uint64(hi << shift))) if (hi << shift) <= top else len(r)
        out.append((a, b))
    return out


def _chunk_keys(
    moves: Moves,
    buffers: Pool,
    part: tuple[States, States | None, States | None],
    lo: int,
    hi: int,
    expect: float,
) -> tuple[States, States]:
    """The keys of one chunk of the frontier, and the pooled buffer they were written to."""
    states, parents, _ = part
    buffer = buffers.take(int(len(states) * expect * 1.1) + 1024)
    return moves.keys(states, parents, lo, hi, expect, buffer), buffer


def _resolve_span(
    moves: Moves,
    runs: tuple[States, States],
    buffers: Pool,
    where: list[tuple[int, int]],
    exclude: tuple[States, ...],
) -> tuple[States, States, tuple[States, States]]:
    """One child range of both runs resolved into pooled buffers (returned to give back)."""
    (a0, b0), (a1, b1) = where
    n = (b0 - a0) + (b1 - a1)
    out = (buffers.take(n), buffers.take(n))
    children, parents = moves.resolve(runs[0][a0:b0], exclude, runs[1][a1:b1], out)
    return children, parents, out


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


def _bucketed(
    current: Stored,
    exclude: Sequence[Stored],
    rows: Rows,
    work: int,
    spill: Path,
    sink: Sink,
    kept: int,
    k: int,
    sample: np.ndarray,
    stats: StepStats,
) -> StepStats:
    clock = time.perf_counter()
    edges = _cuts(sample, rows, k)
    k = len(edges) - 1
    stats.buckets = k
    cuts = np.array(edges[1:-1], np.uint64)
    cut_keys = cuts << np.uint64(rows.shift)  # children below a cut have keys below it
    branching = max(1.0, len(sample) / max(1, min(len(current), SAMPLE)))
    chunk_rows = max(1024, int(max(work - kept, work // 4) / (branching * rows.bytes)))
    stats.expand += time.perf_counter() - clock
    want = rows.want
    if k <= REEXPAND:
        # Few buckets: expanding the frontier again for each is cheaper than a spill.
        per = max(1024, min(chunk_rows // k, 1 << 21))
        for b in range(k):
            clock = time.perf_counter()
            kept_moves = []
            for chunk in current.chunks(per, *want):
                moves = rows.make(*chunk)
                lead = rows.lead(moves)
                inside = lead >= (cut_keys[b - 1] if b else np.uint64(0))
                if b < k - 1:
                    inside &= lead < cut_keys[b]
                kept_moves.append(moves[inside])
                stats.pairs += int(inside.sum())
                del moves, lead, inside
            moves = np.concatenate(kept_moves) if kept_moves else rows.make(*_empty())
            del kept_moves
            stats.expand += time.perf_counter() - clock
            _resolve_bucket(rows, moves, exclude, edges[b], edges[b + 1], sink, stats)
        return stats
    shutil.rmtree(spill, ignore_errors=True)
    spill.mkdir(parents=True)
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(spill / f"b{b:05d}.bin", "wb")) for b in range(k)]
        for chunk in current.chunks(chunk_rows, *want):
            moves, bounds = _by_bucket(rows.make(*chunk), rows, cut_keys)
            for b in range(k):
                if bounds[b + 1] > bounds[b]:
                    moves[bounds[b] : bounds[b + 1]].tofile(files[b])
            stats.pairs += len(moves)
            del moves
    stats.spill_bytes = stats.pairs * rows.width * 8
    stats.expand += time.perf_counter() - clock

    for b in range(k):
        clock = time.perf_counter()
        path = spill / f"b{b:05d}.bin"
        moves = rows.load(path)
        path.unlink()
        _resolve_bucket(rows, moves, exclude, edges[b], edges[b + 1], sink, stats, clock)
    shutil.rmtree(spill, ignore_errors=True)
    return stats


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


def _empty() -> tuple[States, States, States]:
    e = np.empty(0, np.uint64)
    return e, e, e


def _resolve_bucket(
    rows: Rows,
    moves: np.ndarray,
    exclude: Sequence[Stored],
    lo: int,
    hi: int,
    sink: Sink,
    stats: StepStats,
    clock: float | None = None,
) -> None:
    """One bucket's moves: sorted unique children, smallest parent, minus ``exclude``."""
    clock = time.perf_counter() if clock is None else clock
    if len(moves):
        result = rows.resolve(rows.order(moves), [done.between(lo, hi) for done in exclude])
        stats.dedup += time.perf_counter() - clock
        sink(*result)
