"""A level closed under zero-cost moves (0-1 breadth-first search), bucket by bucket.

The level is made in rounds, as :func:`pipeline.engine.reference.close` does:
round 0 is an ordinary level step from the frontier (paid moves), round r+1 an
ordinary level step from round r by the zero-cost moves, checked against the
excluded levels and every earlier round (so a state keeps its smallest parent
in the round before the one it first appears in). Each round is run by the
executor's own step, so it is cut into buckets and spilled as its budget
says; its rows are collected sorted, in memory or, past a share of the work,
in two raw files read back through memory maps. The rounds are disjoint
sorted runs: the level is their union, handed to the sink child range by
child range, in order. The rows are those of the reference at any budget.

The round loop itself (:func:`close`) serves any executor, over how it makes,
keeps and unites a round (:class:`Rounds`): the Spark executor's rounds are
jobs whose parts stay files, united by a task a child range (spark/executor.py).
"""

from __future__ import annotations

import itertools
import math
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np

from pipeline.engine.core import NO_PARENT, States, unique
from pipeline.engine.level import InMemory
from pipeline.engine.rows import MoveRules
from pipeline.executors.base import LevelJob, Sink, StepStats
from pipeline.storage.scratch import Round

#: A level step without zero-cost moves (an executor's own).
Step = Callable[[LevelJob, Sink], StepStats]
#: Bytes a row of a round costs kept in memory (its state and its parent).
ROW_BYTES = 16
#: Peak bytes a row costs while the union is cut, sorted and handed on.
MERGE_BYTES = 48

R = TypeVar("R")


class Rounds(Protocol[R]):
    """How an executor makes, keeps and unites the rounds of a closed level."""

    def make(self, made: list[R]) -> R | None:
        """The round after ``made`` (round 0 when none), or None: the level is closed."""
        ...

    def unite(self, made: list[R]) -> None:
        """Hand on the level: the union of the rounds (disjoint sets of states)."""
        ...


def close(rounds: Rounds[R]) -> list[R]:
    """The round loop of 0-1 breadth-first search: rounds until one adds nothing, united."""
    made: list[R] = []
    while (part := rounds.make(made)) is not None:
        made.append(part)
    rounds.unite(made)
    return made


def run(step: Step, job: LevelJob, sink: Sink, folder: Path | None) -> StepStats:
    """The level after ``job.frontier`` closed under ``job.rules.free``, through ``step``.

    ``folder`` takes the rounds that do not fit the work (None: all kept in memory).
    """
    assert job.rules.free is not None
    rounds = _Kept(step, job, sink, folder)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    try:
        close(rounds)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return rounds.stats


class _Kept:
    """Rounds made by an executor's own step, kept in memory or in files (:class:`_Collector`),
    united into child ranges for the sink; half the work holds the rounds."""

    def __init__(self, step: Step, job: LevelJob, sink: Sink, folder: Path | None) -> None:
        self.step, self.job, self.sink, self.folder = step, job, sink, folder
        self.room = max(job.work - job.held, job.work // 4) // 2
        self.stats = StepStats(pairs=0, buckets=0)

    def make(self, made: list[_Made]) -> _Made | None:
        job = self.job
        first = not made
        frontier = job.frontier if first else made[-1]
        rules = replace(job.rules, free=None) if first else _free_rules(job)
        kept = sum(len(r) * ROW_BYTES for r in made if not _mapped(r))
        out = _Collector(self.folder, len(made), max(0, self.room - kept))
        excluded = [*job.excluded, *made]
        held = job.held + kept
        self._add(
            self.step(LevelJob(frontier, excluded, rules, job.work, held, job.buckets), out.add)
        )
        part = out.finish(job.frontier.depth + 1)
        return part if len(part) else None

    def _add(self, done: StepStats) -> None:
        stats = self.stats
        stats.pairs = (stats.pairs or 0) + (done.pairs or 0)
        stats.buckets = max(stats.buckets or 0, done.buckets or 0)
        stats.expand += done.expand
        stats.dedup += done.dedup

    def unite(self, made: list[_Made]) -> None:
        _union(made, self.sink, max(1, self.room // MERGE_BYTES), self.job.buckets or 1)


class _Made(InMemory):
    """A round as a level: its states and, always, their parents."""

    parents: States

    def __init__(self, depth: int, states: States, parents: States) -> None:
        super().__init__(depth, states, parents)


def _free_rules(job: LevelJob) -> MoveRules:
    """The rules of a round after the first: the zero-cost moves as plain moves."""
    assert job.rules.free is not None
    return replace(job.rules, expand=job.rules.free, packed=None, free=None, weights=False)


def _mapped(part: InMemory) -> bool:
    return isinstance(part.states.base, np.memmap)


class _Collector:
    """A round's rows as the step hands them on (sorted runs): copied into memory
    until they pass ``limit`` bytes, then appended to the round's files in
    ``scratch`` (the rounds' scratch folder; None: kept in memory)."""

    def __init__(self, scratch: Path | None, number: int, limit: int) -> None:
        self.scratch, self.number, self.limit = scratch, number, limit
        self.runs: list[tuple[States, States]] = []
        self.bytes = 0
        self.files: Round | None = None

    def add(self, states: States, parents: States, _counts: States | None) -> bool:
        if self.files is not None:
            self.files.add(states, parents)
            return True
        self.runs.append((states.copy(), parents.copy()))
        self.bytes += len(states) * ROW_BYTES
        if self.scratch is not None and self.bytes > self.limit:
            self.files = Round(self.scratch, self.number)
            for s, p in self.runs:
                self.files.add(s, p)
            self.runs = []
        return True

    def finish(self, depth: int) -> _Made:
        """The round as a level (memory-mapped when it was spilled)."""
        mapped = self.files.mapped() if self.files is not None else None
        if mapped is not None:
            return _Made(depth, *mapped)
        if len(self.runs) == 1:
            return _Made(depth, *self.runs[0])
        empty = np.empty(0, np.uint64)
        states = np.concatenate([r[0] for r in self.runs]) if self.runs else empty
        parents = np.concatenate([r[1] for r in self.runs]) if self.runs else empty
        return _Made(depth, states, parents)


def _union(rounds: list[_Made], sink: Sink, rows: int, least: int) -> None:
    """The disjoint sorted rounds to the sink as one sorted level, in child ranges
    of about ``rows`` rows (at least ``least`` ranges)."""
    n = sum(len(r) for r in rounds)
    if n == 0:
        return
    if len(rounds) == 1 and least == 1:
        sink(rounds[0].states, rounds[0].parents, None)
        return
    k = max(least, math.ceil(n / rows))
    stride = max(1, n // (64 * k))
    sample = np.sort(np.concatenate([r.states[::stride] for r in rounds]))
    cuts = unique(sample[(np.arange(1, k) * len(sample)) // k]) if k > 1 else sample[:0]
    edges = [0, *(int(c) for c in cuts), 1 << 64]
    for lo, hi in itertools.pairwise(edges):
        states, parents = [], []
        for r in rounds:
            a = int(np.searchsorted(r.states, np.uint64(lo))) if lo else 0
            b = int(np.searchsorted(r.states, np.uint64(hi))) if hi <= int(NO_PARENT) else len(r)
            states.append(r.states[a:b])
            parents.append(r.parents[a:b])
        s, p = np.concatenate(states), np.concatenate(parents)
        if len(s):
            order = np.argsort(s)  # disjoint rounds: no ties
            sink(s[order], p[order], None)
