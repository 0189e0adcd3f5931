"""The executor interface: one level step, however it is computed.

The build loop (pipeline/build/loop.py) hands an executor a :class:`LevelJob`: the
frontier, the finished levels the graph checks new states against, the
puzzle's moves and the memory the step may use. The executor makes the next
level and hands it to the sink in runs sorted by state, each run above the
last, with the smallest parent of every child: the rows of
:func:`pipeline.engine.reference.search`, whatever the executor. How it cuts
the child states into ranges, where the work runs and what it spills is its
own affair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pipeline.engine.core import States
from pipeline.engine.level import LevelSource
from pipeline.engine.rows import MoveRules

#: Takes a run of rows (states, parents, path sums); returns whether it copied
#: them (True: the executor may reuse the arrays) or kept them.
Sink = Callable[[States, States, "States | None"], bool]


@dataclass(frozen=True)
class LevelJob:
    """Everything one level step needs."""

    frontier: LevelSource
    excluded: Sequence[LevelSource]
    rules: MoveRules
    #: Bytes the step may use, and bytes of levels the caller holds meanwhile.
    work: int
    held: int = 0
    #: A forced number of child ranges (tests), else the executor plans them.
    buckets: int | None = None


@dataclass
class StepStats:
    """What one level step did and where its time went (None: not reported)."""

    pairs: int | None = 0
    buckets: int | None = 1
    expand: float = 0.0
    dedup: float = 0.0


class Executor(Protocol):
    """Computes one level at a time."""

    def run_level(self, job: LevelJob, sink: Sink) -> StepStats:
        """Make the level after ``job.frontier`` and hand it to ``sink``."""
        ...
