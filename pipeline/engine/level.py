"""How an executor reads a finished level: the frontier it expands and the levels
it checks new states against.

A level may be held in memory (:class:`InMemory`) or read back from its files
(``pipeline.storage.reader.LevelFiles``); both offer the same few reads, so the
engine never knows which, nor what a file is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import numpy as np

from pipeline.engine.core import NO_PARENT, States

#: A run of rows: (states, parents, path counts); columns not asked for are None.
Chunk = tuple[States, States | None, States | None]


class LevelSource(Protocol):
    """A finished level, sorted by state."""

    depth: int

    def __len__(self) -> int: ...

    def chunks(self, rows: int, parents: bool = False, counts: bool = False) -> Iterator[Chunk]:
        """The rows in order, in runs of about ``rows``."""
        ...

    def between(self, lo: int, hi: int) -> States:
        """The states in ``[lo, hi)``; ``hi`` beyond 2**64-1 means no upper end."""
        ...

    def path_counts(self) -> States:
        """Every path count, in row order (a level built with them): the tables of
        indexed runs (rows.py) are slices of it."""
        ...


class InMemory:
    """A level whose columns are arrays (``parents`` and ``counts`` may be dropped)."""

    def __init__(
        self,
        depth: int,
        states: States,
        parents: States | None = None,
        counts: States | None = None,
    ) -> None:
        self.depth = depth
        self.states = states
        self.parents = parents
        self.counts = counts

    def __len__(self) -> int:
        return len(self.states)

    def chunks(self, rows: int, parents: bool = False, counts: bool = False) -> Iterator[Chunk]:
        for i in range(0, len(self.states), rows):
            cut = slice(i, i + rows)
            yield (
                self.states[cut],
                self.parents[cut] if parents and self.parents is not None else None,
                self.counts[cut] if counts and self.counts is not None else None,
            )

    def path_counts(self) -> States:
        assert self.counts is not None
        return self.counts

    def between(self, lo: int, hi: int) -> States:
        a = np.searchsorted(self.states, np.uint64(lo))
        if hi > int(NO_PARENT):
            return self.states[a:]
        return self.states[a : np.searchsorted(self.states, np.uint64(hi))]


def read_all(level: LevelSource) -> States:
    """Every state of a level as one array."""
    if isinstance(level, InMemory):
        return level.states
    parts = [c[0] for c in level.chunks(1 << 62)]
    return np.concatenate(parts) if parts else np.empty(0, np.uint64)


#: Rows of a level an executor samples to plan a step (the moves out of them set
#: the bucket boundaries): the local and the Spark executors alike.
SAMPLE = 1 << 16


def sample(level: LevelSource, count: int, parents: bool = False, counts: bool = False) -> Chunk:
    """About ``count`` rows spread evenly over the level (states, parents, path counts).

    Each pick is copied out of its chunk: a strided view would keep the whole
    chunk alive (a chunk read from files is Arrow's buffer), and so the whole
    level, 2.7 GB for french37's depth 17, until the picks are joined.
    """
    stride = max(1, len(level) // count)
    cols: list[list[np.ndarray]] = [[], [], []]
    offset = 0
    for chunk in level.chunks(1 << 22, parents, counts):
        for out, col in zip(cols, chunk, strict=True):
            if col is not None:
                out.append(col[(-offset) % stride :: stride].copy())
        offset += len(chunk[0])
    return tuple(np.concatenate(c) if c else None for c in cols)  # type: ignore[return-value]
