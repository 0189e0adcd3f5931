"""Spilled moves with path counts at 8 bytes a move instead of 16.

With path counts a move is a row ``(key, count of its parent)``, and spilling
one writes both words and reads them back (english33 --paths spilled 18 GB of
them). Where a puzzle's keys leave bits spare (a peg board's key is its holes
and 7 bits of jump: :meth:`Rows.spare_bits`), a spill pass writes ``key << bits
| i`` instead, ``i`` the parent's row in its chunk of the frontier. A slot's keys keep the order
they were written in, chunk after chunk. For a level in indexed runs
(rows.py) reading a slot back keeps the keys as they are, each ``i`` counted
on by the rows before its chunk, and each run's table is a slice of the
frontier's counts (:meth:`Index.rebase`); otherwise the pass writes each chunk's
counts once to a scratch file (storage/scratch.py), and reading joins each key
to its count again chunk by chunk (:meth:`Index.attach`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from pipeline.engine.core import States
from pipeline.engine.level import Chunk


def cut(parts: Iterator[Chunk], most: int) -> Iterator[Chunk]:
    """The chunks of a frontier, none longer than ``most`` rows."""
    for part in parts:
        for i in range(0, len(part[0]), most):
            yield tuple(c if c is None else c[i : i + most] for c in part)  # type: ignore[misc]


def rows_of_chunk(part: Chunk) -> States:
    """Each state's row in its chunk, for the weigh kernel to set beside its keys."""
    return np.arange(len(part[0]), dtype=np.uint64)


@dataclass
class Index:
    """How one spill pass's keys find their counts: the chunks of the frontier (first
    row, states) in order, and for each slot the keys each chunk wrote to it."""

    bits: int
    chunks: list[tuple[int, int]] = field(default_factory=list)
    moves: list[list[int]] = field(default_factory=list)

    def add(self, states: int, bounds: list[int]) -> None:
        """A chunk of ``states`` states, whose keys went to each slot as ``bounds`` say."""
        first = self.chunks[-1][0] + self.chunks[-1][1] if self.chunks else 0
        self.chunks.append((first, states))
        if not self.moves:
            self.moves = [[] for _ in bounds[1:]]
        for slot, (a, b) in enumerate(itertools.pairwise(bounds)):
            self.moves[slot].append(b - a)

    def segments(self, slot: int, start: int, stop: int) -> list[tuple[int, int, int]]:
        """(chunk, first key, keys) of the keys ``start`` to ``stop`` of a slot."""
        out = []
        at = 0
        for chunk, m in enumerate(self.moves[slot]):
            a, b = max(at, start), min(at + m, stop)
            if b > a:
                out.append((chunk, a - start, b - a))
            at += m
        return out

    def attach(
        self, flat: States, slot: int, start: int, counts_of: Callable[[int, int], States]
    ) -> np.ndarray:
        """Rows ``(key, count)`` in place of the indexed keys of a slot from key
        ``start`` on, read into the second half of ``flat`` (two words a key);
        ``counts_of(first, states)``: the counts of a chunk of the frontier (the
        pass wrote them to its scratch: storage/scratch.py)."""
        n = len(flat) // 2
        for chunk, at, m in self.segments(slot, start, start + n):
            counts = counts_of(*self.chunks[chunk])
            _attach(flat, n, at, m, counts, np.uint64(self.bits))
        return flat.reshape(-1, 2)

    def split(self, slot: int) -> tuple[int, int]:
        """Where a slot's keys are cut into two runs of indexed moves (rows.py): the
        chunk the second run begins with, and the keys before it. Nearest the
        middle of the keys, with neither run's table past ``2**bits`` rows."""
        moves = np.array(self.moves[slot], np.int64)
        first = np.array([c[0] for c in self.chunks] + [sum(self.chunks[-1])], np.int64)
        most = 1 << self.bits
        ok = (first <= most) & (first[-1] - first <= most)
        if not ok.any():
            raise AssertionError("a level too large for indexed runs was spilled as one")
        before = np.concatenate(([0], np.cumsum(moves)))
        far = np.where(ok, np.abs(2 * before - before[-1]), np.iinfo(np.int64).max)
        cut = int(np.argmin(far))
        return cut, int(before[cut])

    def rebase(
        self, runs: list[States], slot: int, cut: int, counts: States
    ) -> tuple[States, States]:
        """A slot's two runs of indexed moves, cut at chunk ``cut`` (:meth:`split`),
        made runs of their own: each move's row counted on, in place, by the rows
        of its run's chunks before its own. Returns the runs' tables, slices of
        the frontier's ``counts``."""
        starts = [*(c[0] for c in self.chunks), len(counts)]
        moves = self.moves[slot]
        for run, (a, b) in zip(runs, ((0, cut), (cut, len(moves))), strict=True):
            at = 0
            for chunk in range(a, b):
                run[at : at + moves[chunk]] += np.uint64(starts[chunk] - starts[a])
                at += moves[chunk]
        return counts[: starts[cut]], counts[starts[cut] :]


@njit(nogil=True, cache=True)
def _attach(flat, n, at, m, counts, bits):
    """Keys ``at`` to ``at + m`` of ``flat[n:]`` to rows ``(key, count)`` from ``flat[0]``
    on. In place: row ``r`` is written over words ``2r`` and ``2r + 1``, below the
    key ``n + r`` it came from and every key after it."""
    mask = (np.uint64(1) << bits) - np.uint64(1)
    for r in range(at, at + m):
        k = flat[n + r]
        flat[2 * r] = k >> bits
        flat[2 * r + 1] = counts[k & mask]
