"""What runs in Spark's Python workers: the map (expand one frontier file) and the
reduce (resolve one child range and write its part).

Spark only moves numpy arrays of moves between them: it never reads nor
writes a level file (it has no unsigned 64-bit type). Both sides read levels
with our reader (pyarrow, row-group statistics) and write with our writer,
so the files are ours, byte for byte, whatever ran them.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from pipeline.engine.core import Expander, Graph
from pipeline.engine.rows import MoveRules, Rows
from pipeline.executors.base import Entry
from pipeline.puzzles.base import Puzzle
from pipeline.puzzles.registry import Registry
from pipeline.storage import scratch
from pipeline.storage.format import FILE_ROWS
from pipeline.storage.manifest import FileEntry
from pipeline.storage.reader import LevelFiles
from pipeline.storage.writer import write_part

if TYPE_CHECKING:
    from pyspark import Accumulator

#: Frontier rows expanded at a time in a map task.
MAP_ROWS = 1 << 20
#: Largest record handed to the shuffle (a serialized record over 2 GB fails).
CHUNK_BYTES = 64 << 20
#: What a reduce task's time is spent on (its result reports each, in seconds).
REDUCE_PHASES = ("exclude_read", "resolve", "write")
#: Up to this many child ranges, a map task picks each range's moves by comparisons.
MASK_RANGES = 8
#: Rows of a range kept for the sample that cuts the next level's ranges.
SAMPLE_PER_RANGE = 4096


@dataclass(frozen=True)
class Step:
    """One level step as the workers see it (pickled into every task)."""

    puzzle: str
    data: str
    staging: str
    depth: int  # of the frontier
    frontier: tuple[FileEntry, ...]
    #: (depth, files) of each level the new one is checked against.
    excluded: tuple[tuple[int, tuple[FileEntry, ...]], ...]
    cuts: tuple[int, ...]  # child-state edges [0, c1, ..., 2**64]
    metadata: tuple[tuple[str, str], ...]
    #: Fault injection for tests: the first reduce of range 0 that sees no
    #: file at this path creates it and kills its worker before it returns.
    crash_once: str | None = None
    #: A level closed under zero-cost moves is made in rounds (closing.py): round 0
    #: by the paid moves, each later one by the zero-cost moves out of the round before.
    round: int = 0
    #: Whether the level has zero-cost moves (a reduce reports whether any leaves its rows).
    closing: bool = False

    def level_dir(self) -> Path:
        """Where the workers write the new level's parts before the driver publishes them."""
        return scratch.level_parts(Path(self.staging), "spark", self.depth + 1)


class Written(TypedDict):
    """A child range's parts, written: the range, the folder they are in, their entries."""

    range: int
    dir: str
    files: list[Entry]


class Reduced(Written):
    """A reduce's result: the range's parts, and what the driver plans the next step with."""

    #: Moves the range received.
    pairs: int
    #: Seconds of each of REDUCE_PHASES.
    seconds: dict[str, float]
    #: Every so many of the range's new states, with their parents (the next level's cuts).
    sample: tuple[np.ndarray, np.ndarray]
    #: Whether a zero-cost move leaves the range's new states.
    free_moves: bool


_PUZZLES: dict[tuple[str, str], Puzzle] = {}
_ROWS: dict[tuple[str, str, bool], Rows] = {}


def puzzle_for(puzzle: str, data: str) -> Puzzle:
    """The puzzle in this process (a worker resolves the name itself: it holds no
    Folder), bound to the data folder, made once."""
    key = (puzzle, data)
    if key not in _PUZZLES:
        _PUZZLES[key] = Registry(Path(data)).puzzle(puzzle).in_folder(Path(data))
    return _PUZZLES[key]


def rows_for(puzzle: str, data: str, free: bool = False) -> Rows:
    """The puzzle's moves in this process (compiled kernels when it has them), made once;
    ``free``: its zero-cost moves as plain moves (the rounds after the first)."""
    key = (puzzle, data, free)
    if key not in _ROWS:
        p = puzzle_for(puzzle, data)
        skip_back = p.graph is not Graph.LAYERED
        if free:
            _ROWS[key] = Rows(MoveRules(_zero_cost(p), None, None, False, skip_back))
        else:
            kernels = p.kernels if p.has_kernels else None
            _ROWS[key] = Rows(MoveRules(p.expand, kernels, None, False, skip_back))
    return _ROWS[key]


def _zero_cost(p: Puzzle) -> Expander:
    """The puzzle's zero-cost moves (only a level closed in rounds asks for them)."""
    assert p.expand_free is not None, f"{p.name} has no zero-cost moves"
    return p.expand_free


def expand_file(
    step: Step, entry: FileEntry, seconds: Accumulator[float] | None = None
) -> Iterator[tuple[int, np.ndarray]]:
    """Map: every move out of one frontier file, split by child range, as (range, chunk)
    records (``seconds``, an accumulator, gets the time spent reading, expanding, splitting)."""
    clock = time.perf_counter()
    rows = rows_for(step.puzzle, step.data, step.round > 0)
    inner = np.array([rows.key_bound(c) for c in step.cuts[1:-1]], np.uint64)
    level = LevelFiles(Path(step.staging), step.depth, [entry])
    per = max(1, CHUNK_BYTES // (8 * rows.width))
    for states, parents, _ in level.chunks(MAP_ROWS, *rows.want):
        ranges = split(rows, rows.make(states, parents, None), inner)
        if seconds is not None:
            seconds.add(time.perf_counter() - clock)
        for r, moves in enumerate(ranges):
            if len(moves) <= per:
                yield r, moves
                continue
            for a in range(0, len(moves), per):
                yield r, moves[a : a + per].copy()
        clock = time.perf_counter()


def split(rows: Rows, moves: np.ndarray, inner: np.ndarray) -> list[np.ndarray]:
    """The moves of each child range (``inner``: the lead values that start ranges 1..).

    A few ranges are picked out by comparisons (unsorted: the reduce sorts, and
    numpy sorts random keys faster than the sorted runs of several maps:
    docs/CLUSTER.md);
    many ranges, by sorting the moves once and cutting them."""
    if len(inner) > MASK_RANGES:
        moves = rows.order(moves)
        edges = [0, *np.searchsorted(rows.lead(moves), inner).tolist(), len(moves)]
        return [moves[a:b].copy() for a, b in itertools.pairwise(edges)]
    lead = rows.lead(moves)
    out = []
    for r in range(len(inner) + 1):
        if r == 0:
            keep = lead < inner[0] if len(inner) else None
        elif r == len(inner):
            keep = lead >= inner[r - 1]
        else:
            keep = (lead >= inner[r - 1]) & (lead < inner[r])
        out.append(moves if keep is None else moves[keep])
    return out


def reduce_range(step: Step, r: int, records: Iterable[tuple[int, np.ndarray]]) -> Reduced:
    """Reduce: the range's new states with the smallest parent each, minus the excluded
    levels' states in the range (read by row-group statistics), written as parts."""
    rows = rows_for(step.puzzle, step.data, step.round > 0)
    chunks = [chunk for _, chunk in records]
    moves = np.concatenate(chunks) if chunks else rows.empty()
    del chunks
    pairs = len(moves)
    clock = time.perf_counter()
    lo, hi = step.cuts[r], step.cuts[r + 1]
    exclude = [
        LevelFiles(Path(step.staging), d, list(files)).between(lo, hi) for d, files in step.excluded
    ]
    read = time.perf_counter()
    states, parents, _ = rows.resolve(rows.order(moves), exclude)
    del moves, exclude
    resolved = time.perf_counter()
    written = _write_range(step, r, step.round, states, parents)
    _maybe_crash(step, r)
    stride = max(1, len(states) // SAMPLE_PER_RANGE)
    spent = (read - clock, resolved - read, time.perf_counter() - resolved)
    return {
        **written,
        "pairs": pairs,
        "seconds": dict(zip(REDUCE_PHASES, spent, strict=True)),
        "sample": (states[::stride].copy(), parents[::stride].copy()),
        "free_moves": _free_moves(step, states),
    }


def _free_moves(step: Step, states: np.ndarray) -> bool:
    """Whether a zero-cost move leaves any of ``states`` (else the next round is empty)."""
    if not step.closing or not len(states):
        return False
    _, children = _zero_cost(puzzle_for(step.puzzle, step.data))(states)
    return bool(len(children))


def union_range(step: Step, r: int, rounds: list[list[FileEntry]]) -> Written:
    """The parts of one child range in each round of a closed level, merged into the
    range's parts (the rounds hold disjoint states: one sort, no ties)."""
    got = [LevelFiles(Path(step.staging), step.depth + 1, files).read() for files in rounds]
    states = np.concatenate([g.states for g in got])
    order = np.argsort(states, kind="stable")
    states = states[order]
    parents = np.concatenate([g.parents for g in got])[order]
    return _write_range(step, r, None, states, parents)


def _write_range(
    step: Step, r: int, round: int | None, states: np.ndarray, parents: np.ndarray
) -> Written:
    """Child range ``r``'s rows written as parts of the new level, in a new folder of
    the round's (None: of the rounds united); the range, the folder and the entries."""
    out = scratch.range_parts(step.level_dir(), r, round)
    meta = dict(step.metadata)
    entries: list[Entry] = []
    for k, a in enumerate(range(0, len(states), FILE_ROWS)):
        cut = slice(a, a + FILE_ROWS)
        entries.append(write_part(out, step.depth + 1, k, states[cut], parents[cut], meta))
    return {"range": r, "dir": str(out), "files": entries}


def _maybe_crash(step: Step, r: int) -> None:
    """Kill this worker once, mid-reduce, its parts written (tests: Spark must retry
    the task, which writes them afresh)."""
    if step.crash_once and r == 0 and not os.path.exists(step.crash_once):
        Path(step.crash_once).write_text(str(os.getpid()))
        os._exit(1)


def probe(path: str, token: str) -> str | None:
    """Run on a worker: None when ``path`` holds ``token`` there, else what it saw."""
    try:
        got = Path(path).read_text()
    except OSError as e:
        return f"{os.uname().nodename}: {e.strerror or e}"
    return None if got == token else f"{os.uname().nodename}: another file"
