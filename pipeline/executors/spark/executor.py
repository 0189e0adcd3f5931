"""The Spark executor: a level step as one Spark job, the parts written by the workers.

Map: one task per frontier file, expanded with the puzzle's compiled moves,
split into child-state ranges (cut from a sample of the level).
Shuffle: ``partitionBy(R, identity)``, numpy arrays of at most 64 MB as
records. Reduce: per range, sort, keep the smallest parent of each child,
drop the children found in the same range of the excluded levels (read from
their files by row-group statistics: old levels are never shuffled), write
the range's parts with our writer. The driver collects the file entries and
a sample of the new level (the next level's cuts); the build loop records
the level only when every part exists, so a killed build resumes at it.

A puzzle with zero-cost moves has each level closed in rounds (0-1 BFS, through
the round loop of executors/closing.py): each round one such job, from the round
before by the zero-cost moves, against the excluded levels and the earlier
rounds (all cut by the same child ranges); each range's parts of several
rounds are then merged by a task (a job without shuffle). A reduce reports
whether a zero-cost move leaves its rows, so no job is run for an empty round.

Levels smaller than ``threshold`` are quicker on the driver (a Spark job has a
fixed cost: docs/CLUSTER.md): this executor hands them to the local executor it
holds, as it does every level of a build with path counts and of a table with
columns of the puzzle's own.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Self

import numpy as np

from pipeline.engine.level import SAMPLE, sample
from pipeline.errors import PuzzleDBError
from pipeline.executors import closing
from pipeline.executors.base import (
    Destination,
    Entry,
    LevelJob,
    Lifecycle,
    Place,
    Sink,
    StepStats,
)
from pipeline.executors.local.executor import LocalExecutor
from pipeline.executors.spark import tasks
from pipeline.executors.spark.session import SparkUnavailable, check_shared, session
from pipeline.storage import scratch
from pipeline.storage.format import level_file_name
from pipeline.storage.manifest import FileEntry
from pipeline.storage.reader import LevelFiles

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

#: Levels below this many positions run on the driver (the local executor).
THRESHOLD = 100_000
#: Overrides the threshold (``--executor spark``).
THRESHOLD_ENV = "PUZZLEDB_SPARK_THRESHOLD"
#: Forces the number of child ranges of each Spark level (tests).
RANGES_ENV = "PUZZLEDB_SPARK_RANGES"
#: Moves (8 bytes each when packed) a reduce task aims at.
RANGE_MOVES = 16 << 20
#: Parts one level may have (file names hold three digits).
MAX_PARTS = 1000
#: One round of a level: each child range's result (in range order), and the
#: seconds the map tasks spent expanding and sorting.
Round = tuple[list[tasks.Reduced], float]


class SparkExecutor(Lifecycle):
    """Level steps on a Spark cluster (``master``), each level's parts written by the workers;
    the levels Spark should not make go to the local executor it holds (``local``).

    ``ranges`` forces the number of child ranges (tests: levels really
    shuffle); ``crash_once`` is a path for the fault test (tasks.Step).
    """

    name = "spark"

    def __init__(
        self,
        master: str = "local[*]",
        threshold: int = THRESHOLD,
        ranges: int | None = None,
        conf: dict[str, str] | None = None,
        crash_once: Path | None = None,
    ) -> None:
        self.master = master
        self.threshold = threshold
        self.ranges = ranges
        self.conf = conf
        self.crash_once = crash_once
        self.local = LocalExecutor()
        self._spark: SparkSession | None = None
        self._checked: set[Path] = set()
        #: Where each Spark level's time went (seconds; the benchmark prints them).
        self.timings: list[dict[str, float]] = []
        self._sample: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        self._staging: set[Path] = set()

    @classmethod
    def configured(cls, master: str, data: Path) -> Self:
        """On ``master``, threshold and ranges from the environment, Spark started and
        checked (Java, pyspark, the master, the workers seeing ``data``)."""
        ranges = _int_env(RANGES_ENV, 0) or None
        spark = cls(master, threshold=_int_env(THRESHOLD_ENV, THRESHOLD), ranges=ranges)
        spark.start(data)
        return spark

    def working_in(self, place: Place) -> Self:
        self.local.working_in(place)
        return super().working_in(place)

    def __enter__(self) -> Self:
        """Spark started, its workers seeing the data folder, before anything is built."""
        if self.place is not None:
            self.start(self.place.data)
        self.local.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        """The workers' unpublished parts and the local executor's scratch removed."""
        for staging in self._staging:
            shutil.rmtree(scratch.executor_folder(staging, self.name), ignore_errors=True)
        self._staging.clear()
        self.local.__exit__(*exc)
        super().__exit__(*exc)

    def start(self, data: Path) -> None:
        """Start Spark and check that its workers see ``data`` (one line if not)."""
        if self._spark is None:
            self._spark = session(self.master, self.conf)
        data = data.resolve()
        if data not in self._checked:
            check_shared(self._spark, data / ".staging")
            self._checked.add(data)

    def _context(self) -> SparkContext:
        """The context of the session :meth:`start` made (a level starts it first)."""
        assert self._spark is not None, "start() comes first"
        return self._spark.sparkContext

    def run_level(self, job: LevelJob, sink: Sink) -> StepStats:
        """The level as files written by the workers, handed to ``job.table``; a level
        Spark should not make (:meth:`takes`), by the local executor."""
        if job.table is None or not self.takes(job, job.table):
            return self.local.run_level(job, sink)
        frontier, excluded = job.table.on_disk()
        files, stats = self._write_level(job.table, frontier, excluded, job.rules.free is not None)
        job.table.parts(files)
        return stats

    def takes(self, job: LevelJob, table: Destination) -> bool:
        """Whether Spark makes the level: a frontier of ``threshold`` states or more,
        no path counts, and no columns of the puzzle's own (only the build's writer
        adds them)."""
        n = len(job.frontier)
        return table.writable and n >= self.threshold and n > 0 and not job.rules.weights

    def _write_level(
        self, table: Destination, frontier: LevelFiles, excluded: list[LevelFiles], free: bool
    ) -> tuple[list[Entry], StepStats]:
        """Make the level after ``frontier``; its files' entries.

        A level with zero-cost moves (``free``) is closed in rounds by closing.close,
        as the local executor's are: each round a Spark job from the round before,
        checked against the excluded levels and every earlier round; each child
        range's parts of the rounds are then merged (a job without shuffle).
        """
        clock = time.perf_counter()
        self.start(table.data)
        step = self._step(table, frontier, excluded, free)
        self._staging.add(Path(step.staging))
        shutil.rmtree(step.level_dir(), ignore_errors=True)  # a killed build's rounds
        planned = time.perf_counter()
        level = _Rounds(step, self._context(), self._run, self._publish)
        rounds = [r for r, _ in closing.close(level)]
        files, ran = level.files, level.ran
        got = [x["sample"] for rs in rounds for x in rs if len(x["sample"][0])]
        if got:
            states, parents = (np.concatenate(c) for c in zip(*got, strict=True))
            self._sample[step.staging, step.depth + 1] = (states, parents)
        every = [x for rs in rounds for x in rs]
        pairs = sum(x["pairs"] for x in every)
        r = len(step.cuts) - 1
        stats = StepStats(pairs=pairs, buckets=r, expand=level.mapped, dedup=ran - planned)
        self.timings.append(
            {
                "depth": step.depth + 1,
                "ranges": r,
                "rounds": len(rounds),
                "map_tasks": len(step.frontier),
                "pairs": pairs,
                "rows": sum(f["rows"] for f in files),
                "plan": planned - clock,
                "job": ran - planned,
                "publish": time.perf_counter() - ran,
                "map_cpu": level.mapped,
                **{k: sum(x["seconds"][k] for x in every) for k in tasks.REDUCE_PHASES},
            }
        )
        return files, stats

    def _run(self, step: tasks.Step) -> Round:
        """One Spark job: the step's map, shuffle and reduce; each range's result (in
        range order) and the seconds the map tasks spent expanding and sorting."""
        sc = self._context()
        entries = list(step.frontier)
        r = len(step.cuts) - 1
        if not entries:
            return [], 0.0
        mapped = sc.accumulator(0.0)
        results = (
            sc.parallelize(entries, len(entries))
            .flatMap(lambda e: tasks.expand_file(step, e, mapped))
            .partitionBy(r, lambda k: k)
            .mapPartitionsWithIndex(lambda i, it: [tasks.reduce_range(step, i, it)])
            .collect()
        )
        results.sort(key=lambda x: x["range"])
        if [x["range"] for x in results] != list(range(r)):
            raise SparkUnavailable(f"Spark lost a range of depth {step.depth + 1}: build again")
        return results, mapped.value

    def _step(
        self, table: Destination, frontier: LevelFiles, excluded: list[LevelFiles], free: bool
    ) -> tasks.Step:
        rows = tasks.rows_for(table.puzzle, str(table.data))
        depth = frontier.depth
        got = self._sample.pop((str(table.staging), depth), None)
        if got is None:
            states, parents, _ = sample(frontier, SAMPLE, parents=True)
        else:
            states, parents = got
        moves = rows.make(states, parents if rows.want[0] else None, None)
        n = len(frontier)
        want = self.ranges or max(
            self._context().defaultParallelism,
            -(-int(n * len(moves) / max(1, len(states))) // RANGE_MOVES),
        )
        return tasks.Step(
            puzzle=table.puzzle,
            data=str(table.data),
            staging=str(table.staging),
            depth=depth,
            frontier=tuple(frontier.entries),
            excluded=tuple((e.depth, tuple(e.entries)) for e in excluded),
            cuts=tuple(rows.cuts(moves, min(want, MAX_PARTS))),
            metadata=tuple(table.metadata.items()),
            crash_once=str(self.crash_once) if self.crash_once else None,
            closing=free,
        )

    def _publish(self, step: tasks.Step, results: list[tasks.Written]) -> list[Entry]:
        """Move every range's parts into the level, numbered in state order."""
        files: list[Entry] = []
        for x in results:
            for entry in x["files"]:
                if not entry["rows"]:
                    continue
                if len(files) >= MAX_PARTS:
                    raise SparkUnavailable(f"depth {step.depth + 1} needs over {MAX_PARTS} parts")
                name = level_file_name(step.depth + 1, len(files))
                if not (Path(x["dir"]) / entry["name"]).exists():
                    raise SparkUnavailable(
                        f"a Spark worker wrote a part of depth {step.depth + 1} that is not in "
                        f"{step.staging}: give --data a folder every node mounts the same"
                    )
                os.replace(Path(x["dir"]) / entry["name"], Path(step.staging) / name)
                files.append({**entry, "name": name})
        shutil.rmtree(scratch.executor_folder(Path(step.staging), self.name), ignore_errors=True)
        return files


class _Rounds:
    """A level's rounds on Spark (closing.Rounds): each a job (``run``) whose parts stay
    where the workers wrote them, until the rounds are united a child range at a time
    and published (``publish``)."""

    def __init__(
        self,
        step: tasks.Step,
        sc: SparkContext,
        run: Callable[[tasks.Step], Round],
        publish: Callable[[tasks.Step, list[tasks.Written]], list[Entry]],
    ) -> None:
        self.step, self.sc, self.run, self.publish = step, sc, run, publish
        self.files: list[Entry] = []
        self.mapped = 0.0
        self.ran = 0.0

    def make(self, made: list[Round]) -> Round | None:
        """Round 0 from the frontier; a later one only when a zero-cost move leaves the
        last round's rows (a reduce reports it), so no job is run for an empty round."""
        if made and not any(x["free_moves"] for x in made[-1][0]):
            return None
        done = self.run(self._next([r for r, _ in made]) if made else self.step)
        self.mapped += done[1]
        return done

    def _next(self, rounds: list[list[tasks.Reduced]]) -> tasks.Step:
        """The step of the round after ``rounds``: from the last round's parts by the
        zero-cost moves, against the excluded levels and every round so far."""
        step = self.step
        made = [_entries(step, rs) for rs in rounds]
        return replace(
            step,
            round=len(rounds),
            frontier=tuple(made[-1]),
            excluded=(*step.excluded, *((step.depth + 1, tuple(m)) for m in made)),
        )

    def unite(self, made: list[Round]) -> None:
        self.ran = time.perf_counter()
        self.files = self.publish(self.step, self._merged([r for r, _ in made]))

    def _merged(self, rounds: list[list[tasks.Reduced]]) -> list[tasks.Written]:
        """Each range's parts of the level: its one round's as they are, those of several
        rounds merged by a task each."""
        step = self.step  # what the tasks take (never self: it holds the SparkContext)
        merge = []
        out = []
        for r, per in enumerate(zip(*rounds, strict=True)):
            full = [x for x in per if any(f["rows"] for f in x["files"])]
            if len(full) > 1:
                merge.append((r, [_entries(step, [x]) for x in full]))
            out.append(full[0] if full else per[0])
        if merge:
            merged = (
                self.sc.parallelize(merge, len(merge))
                .map(lambda m: tasks.union_range(step, m[0], m[1]))
                .collect()
            )
            for x in merged:
                out[x["range"]] = x
        return out


def _int_env(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise PuzzleDBError(f"{name}={text!r} is not a whole number")
    return int(text)


def _entries(step: tasks.Step, results: Sequence[tasks.Written]) -> list[FileEntry]:
    """The parts the ``results`` wrote, named from the staging folder (a round's files
    are read as a level where they lie)."""
    staging = Path(step.staging)
    return [
        FileEntry(**{**f, "name": str(Path(x["dir"]).relative_to(staging) / f["name"])})
        for x in results
        for f in x["files"]
        if f["rows"]
    ]
