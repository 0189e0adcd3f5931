"""The dense engine: a dense space searched level by level, by marks or by bitmaps.

A puzzle whose states number densely (ranks ``0 .. N-1`` in the order of the
states: space.DenseSpace) needs no sort of its moves: a level's new states
are found at their ranks, in arrays indexed by rank, and read back in rank
order, so the rows come out sorted, each child with its smallest parent: the
rows of reference.search. :class:`DenseSearch` is one build's search. It
takes one of two strategies, each holding what it needs from level to level:

- the marks (marks.py): each move a 4-byte key ``rank << 2 | tag``, grouped
  by cache-sized ranges of ranks on two threads, marked (a bit a tag) and
  scanned in order. 0.625 bytes a rank, and about 6 bytes a move a step.
- the bitmaps (bitmaps.py): a bit a rank seen, frontier and next, a byte a
  rank the move that first reached it; each frontier state's children looked
  up in place (forward), or, once the ranks left unseen are fewer than the
  frontier's, each unseen rank's parents (backward). 1.375 bytes a rank, and
  nothing a move, on one thread.

**The rule** (:func:`strategy`): the marks when a state's moves fit the four
tags a rank's marks hold (``DenseSpace.moves <= marks.TAGS``), else the
bitmaps; each only where the space has its kernels. Why by branching: the
marks cost bytes and passes per move, which their cache-sized ranges and two
threads repay when a state has few moves (the sliding tiles' at most four:
on 3x4 the marks take a fraction of the bitmaps' CPU, docs/BENCHMARKS.md),
and their tags cannot name more than four moves at all. The bitmaps cost
the same bytes whatever the moves and touch each child's bit once: with
many moves a state (the cube's 18) a level's keys would take 72 bytes a
frontier state.

**What the search holds.** After a step the strategy holds the level it made,
the next step's frontier, so the caller need not keep it. A step whose
frontier is another (the first step, a resumed build, a level some other
step made) starts afresh: the frontier and the levels the graph checks it
against are marked seen. That suffices for every graph kind: a level's
moves land in no other finished level (core.excluded_depths), so the levels
made since are all a step needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pipeline.engine.bitmaps import NO_MOVE, Bitmaps
from pipeline.engine.buffers import Pool
from pipeline.engine.core import Sink
from pipeline.engine.level import LevelSource
from pipeline.engine.marks import NO_KEY, TAGS, Marks
from pipeline.engine.space import DenseSpace, DenseStep


def strategy(space: DenseSpace) -> type[Marks] | type[Bitmaps] | None:
    """The strategy the rule picks for ``space`` (module docstring); None when the
    space has the kernels of neither that its moves allow."""
    if space.marks is not None and space.moves <= TAGS and space.size << 2 < int(NO_KEY):
        return Marks
    if space.bitmaps is not None and space.moves < NO_MOVE:
        return Bitmaps
    return None


def memory(space: DenseSpace) -> tuple[int, int] | None:
    """What a search of ``space`` keeps for the whole build: its bytes, and the most of
    the work they may take (1 / share); None when no strategy searches it."""
    kind = strategy(space)
    return None if kind is None else (kind.kept(space), kind.SHARE)


def fits(space: DenseSpace, states: int, held: int, work: int) -> bool:
    """Whether a step from a frontier of ``states`` states fits ``work`` bytes beside
    ``held`` bytes held (what the search keeps came off the work before)."""
    kind = strategy(space)
    return kind is not None and kind.fits(space, states, held, work)


class DenseSearch:
    """One build's search of ``space`` by the strategy the rule picks (module docstring).

    Lent by the executor: ``threads`` (two, for the marks), ``pool`` and ``chunk``
    (the bitmaps' runs of rows: pooled buffers of ``chunk`` rows).
    """

    def __init__(
        self, space: DenseSpace, threads: ThreadPoolExecutor, pool: Pool, chunk: int
    ) -> None:
        kind = strategy(space)
        if kind is None:
            raise ValueError("no strategy of the dense engine searches this space")
        self.space = space
        self.strategy = Marks(space, threads) if kind is Marks else Bitmaps(space, pool, chunk)
        #: The depth of the level the strategy holds, the frontier of its next step
        #: (None: none, or a step cut short).
        self.through: int | None = None

    def step(
        self,
        frontier: LevelSource,
        excluded: Sequence[LevelSource],
        skip_back: bool,
        sink: Sink,
    ) -> DenseStep:
        """The level after ``frontier`` (``excluded``: the levels the graph checks it
        against; ``skip_back``: a move back to a parent is no new state, as every graph
        kind but a layered one says), handed to ``sink`` in sorted runs, each child
        with its smallest parent; the search then holds it."""
        held = self.through == frontier.depth
        if not held:
            self.strategy.restart(frontier, excluded)
        self.through = None
        made = self.strategy.step(frontier, held, skip_back, sink)
        self.through = frontier.depth + 1
        return made
