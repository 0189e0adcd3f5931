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

A puzzle with zero-cost moves has each level closed in rounds (0-1 BFS, as
executors/closing.py does out of core): each round one such job, from the round
before by the zero-cost moves, against the excluded levels and the earlier
rounds (all cut by the same child ranges); each range's parts of several
rounds are then merged by a task (a job without shuffle). A reduce reports
whether a zero-cost move leaves its rows, so no job is run for an empty round.

Levels smaller than ``threshold`` are quicker on the driver (a Spark stage
costs about half a second): the build loop runs them with the local
executor, as it does every level of a build with path counts.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.engine.level import sample
from pipeline.executors.base import StepStats
from pipeline.executors.spark import tasks
from pipeline.executors.spark.session import SparkUnavailable, check_shared, session
from pipeline.storage.format import level_file_name
from pipeline.storage.manifest import FileEntry

#: Levels below this many positions run on the driver (the local executor).
THRESHOLD = 100_000
#: Moves (8 bytes each when packed) a reduce task aims at.
RANGE_MOVES = 16 << 20
#: States of the frontier sampled to cut the first level's ranges.
SAMPLE = 1 << 16
#: Parts one level may have (file names hold three digits).
MAX_PARTS = 1000


class SparkExecutor:
    """Level steps on a Spark cluster (``master``), each level's parts written by the workers.

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
        self._spark: Any = None
        self._checked: set[Path] = set()
        #: Where each Spark level's time went (seconds; the benchmark prints them).
        self.timings: list[dict[str, Any]] = []
        self._sample: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}

    def start(self, data: Path) -> None:
        """Start Spark and check that its workers see ``data`` (one line if not)."""
        if self._spark is None:
            self._spark = session(self.master, self.conf)
        data = data.resolve()
        if data not in self._checked:
            check_shared(self._spark, data / ".staging")
            self._checked.add(data)

    def writes_parts(self, size: int, free: bool, counts: bool) -> bool:
        """Whether the level after a frontier of ``size`` states is made on Spark."""
        return size >= self.threshold and size > 0 and not counts

    def write_level(self, job: Any) -> tuple[list[dict[str, Any]], StepStats]:
        """Make the level after ``job.frontier`` (build.PartsJob); its files' entries.

        A level with zero-cost moves (``job.free``) is closed in rounds, as the local
        executor does (executors/closing.py): each round a Spark job from the round
        before, checked against the excluded levels and every earlier round; each
        child range's parts of the rounds are then merged (a job without shuffle).
        """
        clock = time.perf_counter()
        self.start(job.data)
        step = self._step(job)
        shutil.rmtree(step.level_dir(), ignore_errors=True)  # a killed build's rounds
        planned = time.perf_counter()
        rounds = [self._run(step)]
        while any(x["free_moves"] for x in rounds[-1][0]):
            rounds.append(self._run(self._next_round(step, [r for r, _ in rounds])))
        ran = time.perf_counter()
        results = self._merged(step, [r for r, _ in rounds])
        files = self._publish(step, results)
        got = [x["sample"] for rs, _ in rounds for x in rs if len(x["sample"][0])]
        if got:
            self._sample[step.staging, step.depth + 1] = tuple(
                np.concatenate(c) for c in zip(*got, strict=True)
            )  # type: ignore[assignment]
        every = [x for rs, _ in rounds for x in rs]
        pairs = sum(x["pairs"] for x in every)
        mapped = sum(m for _, m in rounds)
        r = len(step.cuts) - 1
        stats = StepStats(pairs=pairs, buckets=r, expand=mapped, dedup=ran - planned)
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
                "map_cpu": mapped,
                **{k: sum(x["seconds"][k] for x in every) for k in tasks.REDUCE_PHASES},
            }
        )
        return files, stats

    def _run(self, step: tasks.Step) -> tuple[list[dict[str, Any]], float]:
        """One Spark job: the step's map, shuffle and reduce; each range's result (in
        range order) and the seconds the map tasks spent expanding and sorting."""
        sc = self._spark.sparkContext
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

    def _next_round(self, step: tasks.Step, rounds: list[list[dict[str, Any]]]) -> tasks.Step:
        """The step of the round after ``rounds``: from the last round's parts by the
        zero-cost moves, against the excluded levels and every round so far."""
        made = [_entries(step, rs) for rs in rounds]
        return replace(
            step,
            round=len(rounds),
            frontier=tuple(made[-1]),
            excluded=(*step.excluded, *((step.depth + 1, tuple(m)) for m in made)),
        )

    def _merged(self, step: tasks.Step, rounds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """Each range's parts of the level: its one round's as they are, those of several
        rounds merged by a task each."""
        merge = []
        out = []
        for r, per in enumerate(zip(*rounds, strict=True)):
            full = [x for x in per if any(f["rows"] for f in x["files"])]
            if len(full) > 1:
                merge.append((r, [_entries(step, [x]) for x in full]))
            out.append(full[0] if full else per[0])
        if merge:
            sc = self._spark.sparkContext
            merged = (
                sc.parallelize(merge, len(merge))
                .map(lambda m: tasks.union_range(step, m[0], m[1]))
                .collect()
            )
            for x in merged:
                out[x["range"]] = x
        return out

    def _step(self, job: Any) -> tasks.Step:
        rows = tasks.rows_for(job.puzzle, str(job.data))
        depth = job.frontier.depth
        got = self._sample.pop((str(job.staging), depth), None)
        if got is None:
            states, parents, _ = sample(job.frontier, SAMPLE, parents=True)
        else:
            states, parents = got
        moves = rows.make(states, parents if rows.want[0] else None, None)
        n = len(job.frontier)
        want = self.ranges or max(
            self._spark.sparkContext.defaultParallelism,
            -(-int(n * len(moves) / max(1, len(states))) // RANGE_MOVES),
        )
        return tasks.Step(
            puzzle=job.puzzle,
            data=str(job.data),
            staging=str(job.staging),
            depth=depth,
            frontier=tuple(job.frontier.entries),
            excluded=tuple((e.depth, tuple(e.entries)) for e in job.excluded),
            cuts=tuple(rows.cuts(moves, min(want, MAX_PARTS))),
            metadata=tuple(job.metadata.items()),
            crash_once=str(self.crash_once) if self.crash_once else None,
            closing=getattr(job, "free", False),
        )

    def _publish(self, step: tasks.Step, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Move every range's parts into the level, numbered in state order."""
        files = []
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
        shutil.rmtree(Path(step.staging) / ".spark", ignore_errors=True)
        return files


def _entries(step: tasks.Step, results: list[dict[str, Any]]) -> list[FileEntry]:
    """The parts the ``results`` wrote, named from the staging folder (a round's files
    are read as a level where they lie)."""
    staging = Path(step.staging)
    return [
        FileEntry(**{**f, "name": str(Path(x["dir"]).relative_to(staging) / f["name"])})
        for x in results
        for f in x["files"]
        if f["rows"]
    ]
