"""The build loop: levels from an executor, written to Parquet, safely.

:class:`Builder` owns what every build shares, whatever computes its levels:
the staging folder and its lock, resume after a kill, the memory plan of
each level, the writers, progress reports and the manifest (storage/). The
level step itself is an executor's (executors/base.py): the local one by
default. Every level takes the same path: a :class:`LevelJob` to the executor
(entered for the whole build: ``with``), whose rows go to the writers or
whose files (an executor that writes them itself: Spark) are recorded as
they are. Levels stay in memory while they fit (resident.py decides which, and
lends the buffers), else the next step reads them back from their files.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import logging
import platform
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from pipeline import hints
from pipeline.build.resident import Output, Pending, Resident
from pipeline.engine import rows
from pipeline.engine.budget import Budget, LevelPlan, memory_for_large_builds, rss, size_of
from pipeline.engine.core import Graph, Level, excluded_depths
from pipeline.engine.reference import roots_level
from pipeline.engine.rows import MoveRules
from pipeline.errors import CannotWrite, DiskFull, PuzzleDBError, TooBig
from pipeline.executors.base import Destination, Executor, LevelJob, Place, StepStats
from pipeline.puzzles.base import Puzzle
from pipeline.storage import files, integrity, manifest, scratch
from pipeline.storage.format import COLUMNS, FILE_ROWS, MANIFEST, ORBITS, PATHS_COLUMN, metadata
from pipeline.storage.manifest import LevelEntry, Manifest
from pipeline.storage.reader import LevelFiles
from pipeline.storage.staging import Progress, build_lock, check_disk, publish
from pipeline.storage.writer import LevelWriter, write_json_atomic

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels
    from pipeline.engine.space import DenseSpace

#: Warnings for whoever runs the build (the CLI prints them as `puzzledb: warning: ...`).
log = logging.getLogger(__name__)

#: Levels whose files may still be being written while the next one is computed.
WRITE_LAG = 2
#: Memory of one part in flight to a writer: the runs it is cut from, the Arrow
#: copy of the parents with their null mask, the compressed output (measured:
#: 24 bytes a row let a 1GB build of 3x4 peak at 1.19 GiB).
PART_BYTES = FILE_ROWS * 40
#: A build of a known size is measured once it has written this many positions...
MEASURE_AFTER = 1_000_000
#: ...and one that would take longer than this at that rate asks for ``yes``.
LONG_BUILD = 2 * 3600


@dataclass(frozen=True)
class LevelDone:
    """Reported after each level is on disk."""

    depth: int
    positions: int
    total: int
    seconds: float
    #: Child ranges the level was made in (0 when not reported).
    buckets: int = 0
    #: Wall seconds since the level before was on disk (its share of ``seconds``).
    level_seconds: float = 0.0
    #: The executor that made the level and wrote its files ("spark"); "" when the
    #: build's own writers did (the local executor, or Spark's small levels).
    made_by: str = ""
    #: Positions already built when this run began (a resumed build): not made in ``seconds``.
    resumed: int = 0
    #: Positions of the level this one was made from (0 for the roots).
    expanded: int = 0
    #: The table's positions when known (``Puzzle.expected_total``), else an estimate
    #: (``estimated``; None when there is none either).
    total_expected: int | None = None
    estimated: bool = False
    #: Whether the table's graph is layered (a peg board): its levels' pace follows
    #: what they make, not what they expand (the time-left estimate).
    layered: bool = False


def expected_total(p: Puzzle) -> tuple[int | None, bool]:
    """A table's positions when known (``expected_total``, False), else its estimate
    (``estimated_total``, True), else (None, False): what a build's progress counts to."""
    if p.expected_total is not None:
        return p.expected_total, False
    return p.estimated_total, p.estimated_total is not None


def build(
    puzzle: Puzzle,
    data: Path,
    *,
    force: bool = False,
    paths: bool = False,
    on_level: Callable[[LevelDone], None] | None = None,
    memory: int | str | None = None,
    work: int | None = None,
    executor: Executor,
    yes: bool = False,
    max_depth: int | None = None,
) -> Manifest:
    """Build (or resume, or with ``force`` rebuild aside) one table; return its manifest.

    With ``paths`` the table gets the path-count column; a built table without
    it is rebuilt aside (all files of a table keep the same columns).
    ``memory`` is the budget for the whole process (default 3GB); ``work``
    sets the bytes of the level step directly instead (tests use it to force
    many buckets on small boards). The rows are the same whatever the budget
    and the executor (the caller's choice: build/ knows no executor's kind). A
    table of known size that would not fit the free disk or take over two hours
    stops early (TooBig) unless ``yes``.
    ``max_depth`` builds the first levels only (a partial table: see
    :func:`covers`); a table with fewer levels than asked is built again aside.
    """
    target = data / puzzle.name
    if (target / MANIFEST).exists() and not force:
        built = manifest.read(target)
        if (not paths or built.has_paths) and covers(built, max_depth):
            built.up_to_date = True
            _stopped_rebuild(data, puzzle.name)
            return built
    if paths and puzzle.expand_free is not None:
        raise PuzzleDBError(f"{puzzle.name}: path counts are not defined for zero-cost moves")
    puzzle = puzzle.in_folder(data)  # a derived table reads the tables it comes from
    with os_errors(data, puzzle.name), build_lock(data, puzzle.name):
        budget = Budget.parse(memory)
        if budget.asked is not None:
            log.warning(
                f"--memory {size_of(budget.asked)} is more than this "
                f"machine has; using {size_of(budget.total)}"
            )
        builder = Builder(puzzle, data, budget, paths, on_level, max_depth)
        builder.yes = yes
        made = builder.run(work, executor)
    note = puzzle.build_warning(made.max_depth) if made.partial_depth is None else None
    if note is not None:
        log.warning(note)
    return made


def _stopped_rebuild(data: Path, name: str) -> None:
    """Warn of a stopped ``--force`` rebuild left beside an up-to-date table: its levels
    take disk, and only the same ``--force`` build resumes (or a delete drops) them."""
    staging = data / ".staging" / name
    if not staging.is_dir() or staging.is_symlink():
        return
    size = sum(st.st_size for f in staging.rglob("*") if stat.S_ISREG((st := f.lstat()).st_mode))
    log.warning(
        f"a stopped rebuild of {name} left {size_of(size)} in {staging}: "
        f"{hints.build(name, data, force=True)} resumes it; the table built stays "
        "as it is, so deleting that folder loses nothing built"
    )


def covers(built: Manifest, max_depth: int | None) -> bool:
    """Whether a built table holds every level a build to ``max_depth`` asks for.

    A partial table built to depth N answers a build to N or less; a build to
    more (or to the end) rebuilds it aside from depth 0 (the old table stays
    readable until the new one replaces it): the levels grow about geometrically,
    so the levels already built cost little beside the new ones.
    """
    if built.partial_depth is None:
        return True
    return max_depth is not None and max_depth <= built.partial_depth


@contextlib.contextmanager
def os_errors(data: Path, name: str, what: str | None = None) -> Iterator[None]:
    """A write that fails becomes one line: a full disk (DiskFull: finished levels
    are kept, a rerun resumes) or a folder that cannot be written (CannotWrite)."""
    try:
        yield
    except OSError as e:
        where = e.filename or data
        what = what or f"build {name}"
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(
                f"the disk is full (writing {where}): free some space, then run "
                f"{hints.command(what, data)} again (finished levels are kept: it resumes)"
            ) from None
        raise CannotWrite(
            f"cannot {what.split()[0]} in {data}: {e.strerror or e} ({where}); "
            "give --data a folder you can write"
        ) from None


class Builder:
    """One table's build: the loop over levels, knowing nothing of how a level is made."""

    def __init__(
        self,
        puzzle: Puzzle,
        data: Path,
        budget: Budget,
        counts: bool,
        on_level: Callable[[LevelDone], None] | None,
        max_depth: int | None = None,
    ) -> None:
        self.puzzle = puzzle
        self.max_depth = max_depth
        self.target = data / puzzle.name
        self.staging = data / ".staging" / puzzle.name
        self.budget = budget
        self.counts = counts
        self.on_level = on_level
        self.metadata = metadata(puzzle.name, puzzle.encoding)
        self.progress = Progress(self.staging, puzzle.describe(), puzzle.name, counts)
        if max_depth is not None and len(self.progress.levels) > max_depth + 1:
            # A stopped build went past the depth asked: start again.
            files.remove(self.staging)
            self.progress = Progress(self.staging, puzzle.describe(), puzzle.name, counts)
        # Parents of a kept level serve to skip the move back with compiled moves.
        skip_back = puzzle.has_kernels and puzzle.graph is not Graph.LAYERED
        #: Scratch of the level steps (spill files, raw path counts), gone at the end.
        self.spill = scratch.folder(self.staging)
        self.resident = Resident(
            puzzle.graph, self.staging, self.progress, skip_back, self.spill, budget.total
        )
        self.clock = self.last = time.perf_counter()
        self.resumed = self.progress.total  # positions a stopped build had made
        #: Whether to go on with a build too large for the disk or the time (--yes).
        self.yes = False
        #: The level whose step loaded the compiled moves (numba's compile or its
        #: cache): too slow a level to measure the build's pace by.
        self.warm_up: int | None = None
        #: Whether the objects loaded with the compiled moves are out of the collector's
        #: passes (gc.freeze) until the build ends.
        self.frozen = False
        #: Whether the level steps may search the puzzle's dense space (None: not decided).
        self.dense: bool | None = None
        #: Whether the executor holds the last level it made (StepStats.holds).
        self.holds = False
        #: A puzzle's own columns (symmetric peg tables: class_size), or None.
        of = puzzle.extra_columns
        self.extra = (puzzle.extra_fields, of) if of is not None else None

    def run(self, work: int | None, executor: Executor) -> Manifest:
        self.budget.set_work(3 * PART_BYTES, work, part_rows=FILE_ROWS)
        self.executor_name = executor.name
        place = Place(self.spill, self.resident.pool, self.target.parent)
        # The writers stop first (every file written), then the executor (its scratch gone).
        try:
            with executor.working_in(place) as step, ThreadPoolExecutor(max_workers=2) as writers:
                self.pending = Pending(writers.submit, self._record)  # compressing: as long
                if not self.progress.levels:
                    self._roots()
                self._levels(step)
                self.pending.settle()
        finally:
            if self.frozen:  # the process may go on (the API, the tests): collect as before,
                gc.unfreeze()  # and now: garbage frozen with the kernels (a twisty
                gc.collect()  # puzzle's tables) would wait for a full collection
        made = self._manifest()
        write_json_atomic(self.staging / MANIFEST, made.to_dict())
        self.progress.finish()
        publish(self.staging, self.target)
        integrity.remember(self.target, made)  # hashed as written: no need to read again
        return made

    def _roots(self) -> None:
        started = time.perf_counter()
        roots = roots_level(self.puzzle.roots(), self.puzzle.expand_free)
        if self.counts:
            roots = Level(0, roots.states, roots.parents, np.ones(len(roots), np.uint64))
        writer = LevelWriter(self.staging, 0, self.metadata, extra=self.extra)
        writer.add(roots.states, roots.parents, roots.counts)
        stats = {} if self.puzzle.expand_free is not None else {"buckets": 1}
        self._record(0, writer.close(), started, time.perf_counter(), stats)
        self.resident.keep(roots)

    def _levels(self, executor: Executor) -> None:
        depth, size = self.progress.levels[-1].depth, self.progress.levels[-1].positions
        prev = self.progress.levels[-2].positions if len(self.progress.levels) > 1 else 0
        per_state = 4.0  # moves per state of the level before (a guess until one is made)
        while size and (self.max_depth is None or depth < self.max_depth):
            positions, stats = self._level(executor, depth, size, size / max(1, prev), per_state)
            if not positions:
                break
            if stats.pairs:
                per_state = max(1.0, stats.pairs / size)
            depth, prev, size = depth + 1, size, positions

    def _level(
        self, executor: Executor, depth: int, size: int, growth: float, per_state: float
    ) -> tuple[int, StepStats]:
        """Level ``depth + 1`` (after ``size`` states, ``growth`` times the level before)
        made by the executor and on its way to disk; its rows (0: the search is over)
        and the step's stats."""
        self._check_size(growth)
        rules = self._rules(size)
        held = self.resident.bytes() + self.pending.bytes(self.resident)
        packed = rules.packed is not None
        dense = packed and rules.packed.space is not None  # type: ignore[union-attr]
        plan = self.budget.plan(size, growth, per_state, held, packed, self.counts, dense)
        # The executor held the last level it made: it will hold this one too, likely.
        elsewhere = self.holds
        self.resident.pool.trim(plan.spare)
        frontier = self.resident.get(depth)
        last_bytes = sum(f.bytes for f in self.progress.files_at(depth)) or size * 6
        # The sort's spill of a level it cannot hold takes up to 48 bytes a state; the
        # dense engine spills nothing.
        check_disk(self.staging, last_bytes + (0 if dense else size * 48), growth)
        started = time.perf_counter()
        writer = LevelWriter(
            self.staging, depth + 1, self.metadata, self.pending.submit,
            pending=None if plan.keep and not elsewhere else 2, extra=self.extra,
        )  # fmt: skip
        out = self.resident.output(writer, plan, packed, self.counts, elsewhere)
        excluded = self.resident.excluded(depth)
        table = self._table(depth, out)
        job = LevelJob(frontier, excluded, rules, plan.work, plan.held, table=table)
        stats = executor.run_level(job, out.sink)
        del frontier, excluded, job
        self.holds = stats.holds
        return self._finish(depth + 1, out, plan, stats, started, elsewhere), stats

    def _table(self, depth: int, out: Output) -> Destination:
        """The table level ``depth + 1`` goes to, for an executor that writes its files."""
        return Destination(
            self.puzzle.name,
            self.target.parent,
            self.staging,
            self.metadata,
            writable=self.extra is None and not self.counts,
            on_disk=lambda: self._on_disk(depth),
            parts=out.parts,
        )

    def _on_disk(self, depth: int) -> tuple[LevelFiles, list[LevelFiles]]:
        """The frontier at ``depth`` and the levels it is checked against, as files
        (every level's files written first)."""
        self.pending.settle(0)
        return self._files(depth), [
            self._files(d) for d in excluded_depths(self.puzzle.graph, depth)
        ]

    def _files(self, depth: int) -> LevelFiles:
        return LevelFiles(self.staging, depth, self.progress.files_at(depth))

    def _finish(
        self,
        depth: int,
        out: Output,
        plan: LevelPlan,
        stats: StepStats,
        started: float,
        elsewhere: bool = False,
    ) -> int:
        """Hand a new level to the writers, or record the files an executor wrote;
        hold it for the next step (``elsewhere``: the executor holds it, the build
        names it). Its rows (0: the level is empty)."""
        if out.written is not None:
            return self._written(depth, out, stats, started)
        cols = out.close(whole=plan.keep)
        writer = out.writer
        if not writer.rows:
            for f in writer.close():
                (self.staging / f["name"]).unlink()
            return 0
        self.pending.add(depth, writer, started, self._stats(stats, plan.keep and not elsewhere))
        files = (lambda: self._written_files(depth)) if elsewhere else None
        self.resident.finish(depth, out, cols, plan.keep, files)
        self.pending.settle(WRITE_LAG if plan.keep or elsewhere else 0)
        self.resident.release(depth, self.pending)
        return writer.rows

    def _written_files(self, depth: int) -> LevelFiles:
        """Level ``depth`` as files, once every level's files are written."""
        self.pending.settle(0)
        return self._files(depth)

    def _written(self, depth: int, out: Output, stats: StepStats, started: float) -> int:
        """A level whose files the executor wrote: recorded at once (every part exists)."""
        written = out.written or []
        self.resident.let_go(out)
        if not written:
            return 0
        stats_doc = {**self._stats(stats, False), self.executor_name: True}
        self._record(depth, written, started, time.perf_counter(), stats_doc, self.executor_name)
        self.resident.files_level(depth, self.progress.files_at(depth))
        self.resident.release(depth, self.pending)
        return sum(f["rows"] for f in written)

    def _check_size(self, growth: float) -> None:
        """Stop (TooBig) a build of known size that, at the bytes and the rate of its
        first levels, would not fit the free disk or would take over two hours.
        The rate is the faster of the build's so far and its last level's, on a
        level made after the compiled moves loaded (4x4-pdb-8: numba's first
        level put it at 2.1 hours, for a build of 20 minutes).
        A build to ``max_depth`` expects the levels up to it to keep growing by
        ``growth`` (the last level's size over the one before)."""
        expected = _expected(self.puzzle.expected_total, self.progress, self.max_depth, growth)
        done = self.progress.total
        if self.yes or expected is None or expected <= MEASURE_AFTER or done < MEASURE_AFTER:
            return
        last = self.progress.levels[-1]
        if self.warm_up is not None and last.depth <= self.warm_up:
            return  # measured on a level made after the compiled moves loaded
        self.yes = True  # measured once
        written = sum(f.bytes for f in self.progress.files)
        rate = max(
            done / max(self.progress.doc["seconds"], 1e-3), last.positions / max(last.seconds, 1e-3)
        )
        need = int(expected * written / done) - written
        free = shutil.disk_usage(self.staging).free
        hours = (expected - done) / rate / 3600
        if need > free or hours * 3600 > LONG_BUILD:
            raise TooBig(
                f"{self.puzzle.name} has {expected:,} positions: about "
                f"{size_of(need)} more on disk ({size_of(free)} free) and "
                f"about {_duration(hours)} at the {rate / 1e6:.2g} M positions/s so far; "
                "build a smaller board, or run the build again with --yes to go on "
                "(finished levels are kept)"
            )

    def _rules(self, size: int) -> MoveRules:
        """The puzzle's moves for a level of ``size`` states: compiled ones when it has
        them and the level is large enough, or from the first level when it declares
        a dense space (``Puzzle.dense_states``) the build may search."""
        p = self.puzzle
        kernels = None
        first = p.dense_states is not None and not self.counts and self.dense is not False
        if p.has_kernels and (size >= rows.PACKED_MIN or first):
            kernels = self._kernels(size)
        skip_back = p.graph is not Graph.LAYERED
        return MoveRules(p.expand, kernels, p.expand_free, self.counts, skip_back)

    def _kernels(self, size: int) -> Kernels | None:
        """The compiled moves (numba loads them the first time) as a level of ``size``
        states may use them: none with path counts they cannot carry, nor below
        :data:`rows.PACKED_MIN` states but for the dense engine; the dense space
        only when the build affords it (:meth:`_dense`)."""
        before = rss()
        first = self.warm_up is None
        if first:  # numba and the kernels load, and the threaded step begins (small
            # builds keep glibc's and numpy's defaults, which fault less)
            memory_for_large_builds()
            self.warm_up = self.progress.levels[-1].depth + 1
        kernels = self.puzzle.kernels
        if first:
            # What is loaded by now (the modules, numba, the compiled moves) stays for
            # the build: out of the collector's passes, which would walk all of it at
            # every full collection (its cost: docs/BENCHMARKS.md).
            gc.freeze()
            self.frozen = True
        # At most a quarter of the work: compiled kernels take far less, and in a
        # long-lived process (the API's, a test worker's) other threads allocate too.
        self.budget.charge(min(rss() - before, self.budget.work // 4))
        if kernels is None or (self.counts and kernels.weigher is None):
            return None  # they cannot carry path counts
        if kernels.space is not None and not self._dense(kernels.space):
            kernels = replace(kernels, space=None)  # the moves sorted
        small = size < rows.PACKED_MIN and kernels.space is None
        return None if small else kernels

    def _dense(self, space: DenseSpace) -> bool:
        """Whether the level steps may search the puzzle's dense space (not with path
        counts; decided once a build): what the search keeps for the build
        (engine/dense.py) is taken from the work when the budget affords it."""
        if self.dense is None:
            from pipeline.engine import dense  # numba: loaded with the kernels

            kept = None if self.counts else dense.memory(space)
            self.dense = kept is not None and self.budget.affords(*kept)
            if kept is not None and self.dense:
                self.budget.charge(kept[0])
        return self.dense

    def _stats(self, stats: StepStats, kept: bool) -> dict[str, float | int | bool]:
        out: dict[str, float | int | bool] = {}
        if stats.buckets is not None:
            out["buckets"] = stats.buckets
        if stats.pairs is not None:
            out["pairs"] = stats.pairs
        out |= stats.flags
        out |= {
            "expand_seconds": round(stats.expand, 4),
            "dedup_seconds": round(stats.dedup, 4),
            "rss_mib": rss() >> 20,
            "kept": kept,
        }
        return out

    def _record(
        self,
        depth: int,
        files: list[dict],
        started: float,
        computed: float,
        stats: dict,
        made_by: str = "",
    ) -> None:
        """Note a level whose files are all written (``computed``: when its rows were;
        ``made_by``: the executor that wrote them, when not the build's writers).
        A symmetric table's parts each give their sum of class sizes: the level's
        is recorded with its stats (the positions of the whole board there)."""
        positions = sum(f["rows"] for f in files)
        orbits = [f.pop(ORBITS) for f in files if ORBITS in f]
        if orbits and len(orbits) == len(files):
            stats = {**stats, ORBITS: sum(orbits)}
        now = time.perf_counter()
        entry = LevelEntry(depth, positions, round(computed - started, 4), stats=stats)
        self.progress.record(entry, files, now - self.last)
        if self.on_level:
            expected, estimated = expected_total(self.puzzle)
            done = LevelDone(
                depth, positions, self.progress.total, now - self.clock,
                stats.get("buckets", 0), now - self.last, made_by, self.resumed,
                self.progress.levels[-2].positions if depth else 0,
                expected, estimated, self.puzzle.graph is Graph.LAYERED,
            )  # fmt: skip
            self.on_level(done)
        self.last = now

    def _partial(self) -> int | None:
        """The last depth built when the build stopped at ``max_depth`` (None: complete)."""
        last = self.progress.levels[-1].depth
        if self.progress.total == self.puzzle.expected_total:  # all there: complete
            return None
        return last if self.max_depth is not None and last >= self.max_depth else None

    def _manifest(self) -> Manifest:
        progress = self.progress
        for lv in progress.levels:
            lv.files = [f.name for f in progress.files_at(lv.depth)]
        doc = progress.doc
        return Manifest(
            format_version=doc["format_version"],
            table=self.puzzle.name,
            puzzle=self.puzzle.describe(),
            columns={
                **COLUMNS,
                **(PATHS_COLUMN if self.counts else {}),
                **self.puzzle.extra_docs,
            },
            total=progress.total,
            max_depth=progress.levels[-1].depth,
            max_depth_positions=progress.levels[-1].positions,
            levels=progress.levels,
            files=progress.files,
            partial_depth=self._partial(),
            build={
                "started": doc["started"],
                "finished": datetime.now(UTC).isoformat(timespec="seconds"),
                "seconds": doc["seconds"],
                "executor": self.executor_name,
            },
            versions=_versions(),
        )


def _expected(
    total: int | None, progress: Progress, max_depth: int | None, growth: float
) -> int | None:
    """Positions a build will have written: the table's, or up to ``max_depth``
    at the growth of the last levels (an estimate; never more than the table)."""
    if total is None or max_depth is None or not progress.levels:
        return total
    last = progress.levels[-1]
    more = sum(last.positions * growth**k for k in range(1, max_depth - last.depth + 1))
    return min(total, progress.total + int(min(more, 1e30)))


def _duration(hours: float) -> str:
    if hours >= 48:
        return f"{hours / 24:,.0f} days"
    return f"{hours:.1f} hours" if hours >= 1 else f"{hours * 60:.0f} minutes"


def _versions() -> dict[str, str]:
    # at first use: the package metadata reader costs every command's start
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("puzzledb")
    except PackageNotFoundError:
        ours = "dev"
    return {
        "puzzledb": ours,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
    }
