"""The levels a build holds between steps, and the levels still being written.

:class:`Resident` decides which finished levels stay in memory (the frontier and
the levels the graph checks against, while the budget allows) and which are
read back from their files; it lends the level step its pooled buffers and
takes them back when a level is let go. :class:`Pending` queues the levels
whose files are still being written while the next levels are computed; a
level is recorded as done (progress.json) only when all its files are.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from pipeline.engine.budget import STATE_BYTES, LevelPlan
from pipeline.engine.buffers import Columns, Pool, owner
from pipeline.engine.core import Graph, Level, States, excluded_depths
from pipeline.engine.level import Chunk, InMemory, LevelSource, read_all
from pipeline.storage import scratch
from pipeline.storage.format import FILE_ROWS
from pipeline.storage.manifest import FileEntry
from pipeline.storage.reader import LevelFiles
from pipeline.storage.staging import Progress
from pipeline.storage.writer import LevelWriter

if TYPE_CHECKING:
    from pipeline.engine.seen import Seen


class Output:
    """Where the level step's runs go: the writer, and a copy kept for the next step
    (or, from an executor that writes the level's files itself, their entries: :meth:`parts`).

    The packed step lends its rows (pooled buffers): a kept level is copied into
    pooled columns, handed to the writer a part at a time as views; a level not
    kept is copied into pooled part buffers that go back to the pool once
    written (``pool``), so the step's big buffers come back at once; a run in
    buffers of its own with room for a part (the dense engine's bitmaps) becomes
    the part itself, no copy, and goes back to the pool once written. Otherwise
    the writer, and a kept level, take the runs as they are.
    """

    def __init__(
        self,
        writer: LevelWriter,
        columns: Columns | None,
        collect: bool,
        pool: Pool | None = None,
        raw_counts: BinaryIO | None = None,
    ) -> None:
        self.writer = writer
        self.raw_counts = raw_counts
        self.columns = columns
        self.runs: list[tuple[States, ...]] | None = [] if collect else None
        self.handed = 0
        #: The states of the collected runs, when not joined (close).
        self.state_runs: list[States] = []
        self.pool = pool
        self._part: list[States] = []
        self._filled = 0
        #: The entries of the files an executor wrote itself (None: it handed rows).
        # Any: a file entry's JSON values, as the manifest records them.
        self.written: list[dict[str, Any]] | None = None
        if pool is not None:
            writer.recycle = pool.give

    def sink(self, states: States, parents: States, sums: States | None) -> bool:
        run: tuple[States, ...] = (states, parents) if sums is None else (states, parents, sums)
        if self.columns is not None:
            self.columns.add(*run)
            while self.columns.rows - self.handed >= FILE_ROWS:
                part = slice(self.handed, self.handed + FILE_ROWS)
                self.writer.add(*(c[part] for c in self.columns.arrays()))
                self.handed += FILE_ROWS
            return True
        if self.pool is not None and self._adopt(run):
            return False
        if self.pool is not None:
            self._copy(run)
            return True
        # Rows that are views of much larger buffers (the packed step resolves
        # into its sort buffers) are copied, so those buffers go back at once:
        # kept as views, english33-moves (a general graph, whose levels are all
        # collected) grew 0.45 GB a bucket, to 7.5 GB in a 3GB budget.
        views = any(owner(c).nbytes > 2 * c.nbytes for c in run)
        if views:
            run = tuple(c.copy() for c in run)
        self.writer.add(*run)
        if self.runs is not None:
            self.runs.append(run)
        return views  # True: copied, the caller's buffers are free again

    # Any: a file entry's JSON values, as the manifest records them.
    def parts(self, entries: list[dict[str, Any]]) -> None:
        """The level as files the executor wrote (in state order): the writer takes no rows."""
        self.written = entries

    def _adopt(self, run: tuple[States, ...]) -> bool:
        """Take a run as the part to fill, in its own buffers (no copy), when no part is
        being filled and each column starts a buffer of its own with room for a part
        (at most twice over: the dense engine's bitmaps hand their rows in pooled
        buffers of a part); they go back to the pool once written."""
        if self._part or self.raw_counts is not None:
            return False
        owners = [owner(c) for c in run]
        if len({id(o) for o in owners}) < len(owners):
            return False
        for o, c in zip(owners, run, strict=True):
            if not FILE_ROWS <= len(o) <= 2 * FILE_ROWS or c.ctypes.data != o.ctypes.data:
                return False
        self._part, self._filled = [o[:FILE_ROWS] for o in owners], len(run[0])
        if self._filled == FILE_ROWS:
            self._hand()
        return True

    def _copy(self, run: tuple[States, ...]) -> None:
        """The run into pooled part buffers, each handed to the writer when full."""
        if self.raw_counts is not None:
            self.raw_counts.write(run[2].data)
        at, m = 0, len(run[0])
        while at < m:
            if not self._part:
                self._part = [self.pool.take(FILE_ROWS) for _ in run]  # type: ignore[union-attr]
                self._filled = 0
            k = min(m - at, FILE_ROWS - self._filled)
            for column, r in zip(self._part, run, strict=True):
                column[self._filled : self._filled + k] = r[at : at + k]
            self._filled, at = self._filled + k, at + k
            if self._filled == FILE_ROWS:
                self._hand()

    def _hand(self) -> None:
        if self._part:
            self.writer.add(*(c[: self._filled] for c in self._part))
        self._part = []

    def close(self, whole: bool = True) -> list[States | None]:
        """Hand the writer the rest; the level's columns (None where not kept; collected
        runs are joined only when ``whole``, else their states stay in ``state_runs``)."""
        cols: list[States | None] = [None, None, None]
        self._hand()
        if self.raw_counts is not None:
            self.raw_counts.close()
        if self.columns is not None:
            arrays = self.columns.arrays()
            if self.columns.rows > self.handed:
                self.writer.add(*(c[self.handed :] for c in arrays))
            cols[: len(arrays)] = arrays
        elif self.runs and whole:
            for i, c in enumerate(zip(*self.runs, strict=True)):
                cols[i] = np.concatenate(c) if len(c) > 1 else c[0]
        elif self.runs:
            self.state_runs = [r[0] for r in self.runs]
        self.runs = None
        return cols


class Unwritten:
    """A level the executor holds itself (``StepStats.holds``), named for its next step:
    its files, perhaps still being written, are read only if the executor asks
    (``files`` waits for them)."""

    def __init__(self, depth: int, rows: int, files: Callable[[], LevelSource]) -> None:
        self.depth = depth
        self.rows = rows
        self._files = files

    def __len__(self) -> int:
        return self.rows

    def chunks(self, rows: int, parents: bool = False, counts: bool = False) -> Iterator[Chunk]:
        return self._files().chunks(rows, parents, counts)

    def between(self, lo: int, hi: int) -> States:
        return self._files().between(lo, hi)

    def path_counts(self) -> States:
        return self._files().path_counts()


class Pending:
    """Levels computed but not yet all written, oldest first."""

    # Any: the writers' pool's submit, whose futures its LevelWriters read.
    def __init__(self, submit: Callable[..., Any], record: Callable[..., None]) -> None:
        self.submit = submit
        self._record = record
        # Any: a level's stats, JSON values as the manifest records them.
        self._items: list[tuple[int, LevelWriter, float, float, dict[str, Any]]] = []

    # Any: a level's stats, JSON values as the manifest records them.
    def add(self, depth: int, writer: LevelWriter, started: float, stats: dict[str, Any]) -> None:
        writer.finish()
        self._items.append((depth, writer, started, time.perf_counter(), stats))

    def depths(self) -> set[int]:
        return {item[0] for item in self._items}

    def bytes(self, held: Resident) -> int:
        """Memory of the levels waiting for a writer that the build no longer holds."""
        return sum(w.rows * STATE_BYTES for d, w, *_ in self._items if d not in held.levels)

    def settle(self, lag: int = 0) -> None:
        """Record the written levels; wait while more than ``lag`` are in flight."""
        while self._items and (len(self._items) > lag or self._items[0][1].done()):
            depth, writer, started, computed, stats = self._items.pop(0)
            files = writer.close()
            stats["write_wait_seconds"] = round(writer.seconds, 4)
            stats["written_after_seconds"] = round(time.perf_counter() - computed, 4)
            self._record(depth, files, started, computed, stats)


class Resident:
    """The finished levels a build keeps at hand, in memory or as files."""

    def __init__(
        self,
        graph: Graph,
        staging: Path,
        progress: Progress,
        parents: bool,
        scratch: Path,
        reserve: int = 0,
    ) -> None:
        """``scratch``: the build's scratch folder (raw path counts go there);
        ``reserve``: bytes the states seen of a general graph may grow to in place."""
        self.graph = graph
        self.parents = parents
        self.staging = staging
        self.progress = progress
        self.levels: dict[int, LevelSource] = {}
        # Big buffers (keys, rows, the levels' columns) are reused from one step to
        # the next: writing fresh pages costs far more (engine/buffers.py).
        self.pool = Pool(0)
        self._owned: dict[int, list[np.ndarray]] = {}  # depth -> its columns' buffers
        # A general graph checks against every level seen: one merged array.
        self._seen: Seen | None = None
        self._seen_level: InMemory | None = None
        # The path counts of levels not kept, raw, for the next step to read
        # (LevelFiles.raw_counts); only those written by this process are used.
        self.scratch = scratch
        self._raw: dict[int, Path] = {}
        if graph is Graph.GENERAL:
            from pipeline.engine.seen import Seen  # numba: kept off the solve path's imports

            self._seen = Seen(reserve)
            for lv in progress.levels:
                self._add_seen([read_all(self.get(lv.depth))])

    def get(self, depth: int) -> LevelSource:
        if depth not in self.levels:
            files = self.progress.files_at(depth)
            self.levels[depth] = LevelFiles(self.staging, depth, files, self._raw.get(depth))
        return self.levels[depth]

    def excluded(self, depth: int) -> list[LevelSource]:
        """The levels a new level after ``depth`` is checked against."""
        if self._seen_level is not None:
            return [self._seen_level]
        return [self.get(d) for d in excluded_depths(self.graph, depth)]

    def bytes(self) -> int:
        """Memory of the levels held as arrays."""
        held = sum(len(lv) * STATE_BYTES for lv in self.levels.values() if isinstance(lv, InMemory))
        return held + (len(self._seen) * 8 if self._seen is not None else 0)

    def keep(self, level: Level) -> None:
        self.levels[level.depth] = InMemory(level.depth, level.states, level.parents, level.counts)
        self._add_seen([level.states])

    def output(
        self, writer: LevelWriter, plan: LevelPlan, packed: bool, counts: bool, elsewhere: bool
    ) -> Output:
        """Where the step's rows go: ``elsewhere``, the executor holds the level itself
        (the rows only copied into part buffers for the writer)."""
        columns = None
        if plan.keep and packed and not elsewhere:
            columns = Columns(self.pool, 3 if counts else 2, int(plan.guess * 1.15))
        collect = (plan.keep and not packed and not elsewhere) or self.graph is Graph.GENERAL
        parts = self.pool if packed and columns is None and not collect else None
        raw = None
        if parts is not None and counts:
            path, raw = scratch.new_counts(self.scratch, writer.depth)  # closed by Output.close
            self._raw[writer.depth] = path
        return Output(writer, columns, collect, parts, raw)

    def finish(
        self,
        depth: int,
        out: Output,
        cols: list[States | None],
        keep: bool,
        files: Callable[[], LevelSource] | None = None,
    ) -> None:
        """Hold a new level: its columns if kept (parents only to skip moves back), or
        (``files``: the executor holds it) a name that reads its files if asked."""
        if out.columns is not None:
            self._owned[depth] = out.columns.owned
        self._add_seen([cols[0]] if cols[0] is not None else out.state_runs)
        if files is not None:
            self.levels[depth] = Unwritten(depth, out.writer.rows, files)
        elif keep:
            if not self.parents:
                cols[1] = None  # parents serve only to skip the move back
            self.levels[depth] = InMemory(depth, *cols)  # type: ignore[arg-type]

    def _add_seen(self, runs: list[States]) -> None:
        """A new level's states (sorted runs, in order) into the states seen."""
        if self._seen is not None:
            self._seen.add(runs)
            self._seen_level = InMemory(-1, self._seen.states)

    def let_go(self, out: Output) -> None:
        """Give back the buffers of an output that took no rows (the executor wrote files)."""
        if out.columns is not None:
            self.pool.give(*out.columns.owned)

    def files_level(self, depth: int, files: list[FileEntry]) -> None:
        """A level an executor wrote as files: read back from them, and (a general
        graph) added to the states seen."""
        self.levels[depth] = LevelFiles(self.staging, depth, files)
        self._add_seen([read_all(self.levels[depth])])

    def release(self, depth: int, pending: Pending) -> None:
        """After level ``depth`` is made: let go of what the next step does not need.

        Levels kept for the check only keep their states, and only the last one
        stays in memory (older ones are read by range from their files once written).
        """
        needed = {depth, *excluded_depths(self.graph, depth)} if self._seen is None else {depth}
        for d in [d for d in self._raw if d != depth]:
            self._raw.pop(d).unlink(missing_ok=True)
        writing = pending.depths()
        for d in list(self.levels):
            lv = self.levels[d]
            if d not in needed:
                del self.levels[d]
            elif d != depth and isinstance(lv, InMemory):
                lv.parents = lv.counts = None
                if d != depth - 1 and d not in writing:
                    del self.levels[d]  # on disk: read back by range
        self._give_back(writing)

    def _give_back(self, writing: set[int]) -> None:
        """Give back the buffers of levels no longer held in memory nor being written."""
        for d in list(self._owned):
            if d in writing:
                continue
            level = self.levels.get(d)
            held = (
                []
                if not isinstance(level, InMemory)
                else [level.states, level.parents, level.counts]
            )
            bases = {id(owner(a)) for a in held if a is not None}
            self.pool.give(*(b for b in self._owned[d] if id(owner(b)) not in bases))
            self._owned[d] = [b for b in self._owned[d] if id(owner(b)) in bases]
            if not self._owned[d]:
                del self._owned[d]
