"""How a level's moves are made, ordered and resolved into rows.

Packed keys (:class:`pipeline.engine.packed.Kernels`) are one uint64 a move,
sorted with np.sort; otherwise a move is a row ``(child, parent)`` of a 2-D
array, plus the parent's weight as a third column when path counts are built.
Either way column 0 (or the key) orders the moves by child, ``shift`` bits up,
so moves split into child ranges the way children do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pipeline.engine import budget
from pipeline.engine.core import Expander, States, resolve_sorted, unique

if TYPE_CHECKING:
    from pipeline.engine.packed import Kernels

#: Levels of at least this many states use the puzzle's compiled moves (when it
#: has them); smaller ones are quicker in numpy than compiling is.
PACKED_MIN = 1 << 18


@dataclass(frozen=True)
class MoveRules:
    """The moves of a puzzle as the engine sees them.

    ``packed``, the puzzle's compiled moves, are used when given (never with
    ``weights``); ``skip_back`` leaves out each move back to a parent (true of
    every graph kind but a layered one, where the move back would be a new
    state); ``free`` are the zero-cost moves a level is closed under.
    """

    expand: Expander
    packed: Kernels | None = None
    free: Expander | None = None
    weights: bool = False
    skip_back: bool = True


class Rows:
    """The moves of one level step: made from chunks of the frontier, ordered, resolved."""

    def __init__(self, rules: MoveRules) -> None:
        self.kernels = None if rules.weights else rules.packed
        self.expand = rules.expand
        self.weights = rules.weights
        #: The columns of the current level a step reads: parents (to skip the
        #: move back), path counts (the weights).
        self.want = (self.kernels is not None and rules.skip_back, rules.weights)
        self.shift = self.kernels.tag_bits if self.kernels else 0
        self.bytes = budget.move_bytes(self.kernels is not None, rules.weights)
        self.width = 1 if self.kernels else (3 if rules.weights else 2)

    def make(self, states: States, parents: States | None, counts: States | None) -> np.ndarray:
        """The moves out of a chunk of a level, unordered."""
        if self.kernels:
            return self.kernels.keys(states, parents)
        src, child = self.expand(states)
        rows = np.empty((len(child), self.width), np.uint64)
        rows[:, 0] = child
        rows[:, 1] = states[src]
        if self.weights:
            assert counts is not None
            rows[:, 2] = counts[src]
        return rows

    def empty(self) -> np.ndarray:
        return np.empty(0, np.uint64) if self.width == 1 else np.empty((0, self.width), np.uint64)

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
        self, rows: np.ndarray, exclude: Sequence[States]
    ) -> tuple[States, States, States | None]:
        """Ordered moves to (unique children, smallest parents, path sums), minus ``exclude``."""
        if self.kernels:
            children, parents = self.kernels.resolve(rows, tuple(exclude))
            return children, parents, None
        weights = rows[:, 2] if self.weights else None
        return resolve_sorted(rows[:, 0], rows[:, 1], weights, exclude)
