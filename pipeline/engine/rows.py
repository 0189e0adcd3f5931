"""How a level's moves are made, ordered and resolved into rows.

Packed keys (:class:`pipeline.engine.packed.Kernels`) are one uint64 a move,
or with path counts a row ``(key, parent's count)``, sorted by a radix sort
(radix.py); without kernels a move is a row ``(child,
parent)`` of a 2-D array, plus the parent's count as a third column with path
counts. Either way the key (or column 0) orders the moves by child, ``shift``
bits up, so moves split into child ranges the way children do.

Indexed runs: with path counts, a key that leaves ``low`` bits spare (a peg
board's) carries its parent's row instead of its count, as one uint64 ``key <<
low | r``; the run of moves has a table beside it (the counts of the frontier
states it was made from, in order) and the resolve reads the count at ``r``.
A move then costs what a plain key costs: english33's sorts ran at 12.5 ns a
move against 18.2 for the rows ``(key, count)``, and reading the counts after
the sort at 0.9 (the parents of a run of children are near each other). The
lanes (lanes.py) use them when each run's table fits in ``low`` bits
(:data:`INDEX_CHUNK`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from pipeline.engine import budget
from pipeline.engine.core import Expander, States, resolve_sorted, unique

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels

#: Levels of at least this many states use the puzzle's compiled moves (when it
#: has them); smaller ones are quicker in numpy than compiling is.
PACKED_MIN = 1 << 18
#: The most frontier states in one chunk the lanes expand at a time (lanes.py):
#: a run of indexed moves holds half a level's states and up to half a chunk more.
INDEX_CHUNK = 1 << 20
#: The fewest spare bits worth indexing moves: chunks of the frontier are at most
#: ``2**bits`` rows.
MIN_BITS = 12


@dataclass(frozen=True)
class MoveRules:
    """The moves of a puzzle as the engine sees them.

    ``packed``, the puzzle's compiled moves, are used when given (with path
    counts, ``weights``, only if they can weigh their keys: set each beside its
    parent's count; the field keeps its name for the executors that set it);
    ``skip_back`` leaves out each move back to a parent (true of every graph
    kind but a layered one, where the move back would be a new state);
    ``free`` are the zero-cost moves a level is closed under.
    """

    expand: Expander
    packed: Kernels | None = None
    free: Expander | None = None
    weights: bool = False
    skip_back: bool = True


class Rows:
    """The moves of one level step: made from chunks of the frontier, ordered, resolved.

    ``states``, the frontier's size, decides whether the lanes may make indexed
    runs (``low`` > 0: see the module docstring); 0 (unknown) never does.
    """

    def __init__(self, rules: MoveRules, states: int = 0) -> None:
        packed = rules.packed
        if rules.weights and packed is not None and packed.weigher is None:
            packed = None
        self.kernels = packed
        self.expand = rules.expand
        #: Whether moves carry their parent's path count.
        self.counted = rules.weights
        #: The columns of the current level a step reads: parents (to skip the
        #: move back), path counts.
        self.want = (packed is not None and rules.skip_back, rules.weights)
        self.shift = packed.tag_bits if packed else 0
        #: Bits below the key of an indexed move (0: moves are keys or rows).
        self.low = self._index_bits(states)
        # An indexed move is 8 bytes where a row is 16, but with the tables, the counts
        # and the buffers of the pool the peak was as high: english33 --paths peaked
        # at 2.93 GB counting its moves at 32 bytes, at 3.17 and 3.24 at 24 and 28.
        self.bytes = budget.move_bytes(packed is not None, rules.weights)
        self.width = (1 if packed else 2) + (rules.weights and not self.low)

    def _index_bits(self, states: int) -> int:
        """The bits a move keeps for its parent's row when a level of ``states`` states
        goes in indexed runs (half of them and a chunk to a run), else 0."""
        if not (self.counted and self.kernels and states):
            return 0
        bits = self.spare_bits()
        return bits if bits and (states + 1) // 2 + INDEX_CHUNK <= 1 << bits else 0

    def spare_bits(self) -> int:
        """Bits a spilled key has to spare for its parent's row (0: spill whole rows):
        keys with path counts, whose kernels leave at least :data:`MIN_BITS` free."""
        if not self.counted or self.kernels is None:
            return 0
        bits = 64 - self.kernels.key_bits
        return bits if bits >= MIN_BITS else 0

    def make(self, states: States, parents: States | None, counts: States | None) -> np.ndarray:
        """The moves out of a chunk of a level, unordered."""
        if self.kernels:
            keys = self.kernels.keys(states, parents)
            if not self.counted:
                return keys
            assert counts is not None
            return self.kernels.weigh(keys, states, counts)
        src, child = self.expand(states)
        moves = np.empty((len(child), self.width), np.uint64)
        moves[:, 0] = child
        moves[:, 1] = states[src]
        if self.counted:
            assert counts is not None
            moves[:, 2] = counts[src]
        return moves

    def probe(self, states: States, parents: States | None) -> np.ndarray:
        """The moves out of a sample of a level without their path counts: enough to count
        them and to cut the level into child ranges (:meth:`lead` reads either)."""
        if self.kernels:
            return self.kernels.keys(states, parents)
        return self.expand(states)[1]

    def empty(self) -> np.ndarray:
        return np.empty(0, np.uint64) if self.width == 1 else np.empty((0, self.width), np.uint64)

    def lead(self, moves: np.ndarray) -> np.ndarray:
        """The column that orders moves by child (the keys themselves, or the children)."""
        return moves if moves.ndim == 1 else moves[:, 0]

    def order(self, moves: np.ndarray, spare: np.ndarray | None = None) -> np.ndarray:
        """The moves sorted by child: keys (with path counts or not) by a radix sort,
        into ``moves`` or ``spare`` (as large; returned is whichever holds them)."""
        if moves.ndim == 1 or self.kernels:
            from pipeline.engine import radix  # numba: not on the solve path

            return radix.sort_keys(moves, spare, self.low)
        return moves[np.argsort(moves[:, 0])]  # ties in any order: parents are reduced

    def search(self, run: np.ndarray, key: int) -> int:
        """Where ``key`` would go in a sorted run of moves (the first lead value not below it)."""
        if run.ndim == 1:
            if key << self.low >> 64:
                return len(run)
            return int(np.searchsorted(run, np.uint64(key << self.low)))
        from pipeline.engine import radix

        return int(radix.lower_bound(run, np.uint64(key)))

    def children(self, lead: np.ndarray) -> np.ndarray:
        """The child of each move's lead value (a key, or the child itself)."""
        return self.kernels.children(lead) if self.kernels else lead

    def key_bound(self, state: int) -> int:
        """The smallest lead value of a move into ``state`` or more."""
        return self.kernels.key_bound(state) if self.kernels else state

    def cuts(self, sample: np.ndarray, k: int) -> list[int]:
        """Child-state edges ``[0, c1, ..., 2**64]`` of ``k`` ranges about equal in moves,
        from a sample of the moves."""
        uniq = unique(self.children(self.lead(sample)))
        cuts = unique(uniq[(np.arange(1, k) * len(uniq)) // k]) if len(uniq) else uniq
        return [0, *(int(c) for c in cuts), 1 << 64]

    def resolve(
        self, moves: np.ndarray, exclude: Sequence[States]
    ) -> tuple[States, States, States | None]:
        """Ordered moves to (unique children, smallest parents, path counts), minus
        ``exclude``."""
        if self.kernels:
            got = self.resolve_keys(moves, exclude)
            assert got is not None  # made with room for every key
            return got
        counts = moves[:, 2] if self.counted else None
        return resolve_sorted(moves[:, 0], moves[:, 1], counts, exclude)

    def resolve_keys(
        self,
        moves: np.ndarray,
        exclude: Sequence[States],
        more: np.ndarray | None = None,
        out: tuple[States, ...] | None = None,
        tables: tuple[States, States] | None = None,
    ) -> tuple[States, States, States | None] | None:
        """:meth:`resolve` of sorted keys (or rows ``(key, count)``) merged with a second
        sorted run ``more``, into buffers ``out`` (two, three with path counts, as
        long as each other) when given: None if the children do not fit in them.
        ``tables``: the counts of indexed runs (``moves`` and ``more``)."""
        assert self.kernels is not None
        if self.counted:  # three columns (indexed runs are counted too), else two
            three = None if out is None else (out[0], out[1], out[2])
            if self.low:
                assert tables is not None
                more = _NO_KEYS if more is None else more
                ex = tuple(exclude)
                return self.kernels.resolve_indexed(moves, tables, self.low, ex, more, three)
            more = _NO_ROWS if more is None else more
            return self.kernels.resolve_counted(moves, tuple(exclude), more, three)
        args = {} if more is None else {"more": more}
        two = None if out is None else (out[0], out[1])
        got = self.kernels.resolve(moves, tuple(exclude), out=two, **args)
        return None if got is None else (*got, None)


_NO_ROWS = np.empty((0, 2), np.uint64)
_NO_KEYS = np.empty(0, np.uint64)
