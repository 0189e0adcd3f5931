"""Optimal solutions of rectangular sliding puzzles from additive pattern databases.

The pattern databases are ordinary tables (``<board>-pdb-<label>``, built by
the engine, see pipeline/puzzles/tiles/patterns.py). For the search each is also kept as
a compact array, ``<data>/<table>/_pdb.npy``: uint8, indexed by
``sum(cell of pattern tile i * cells**i)``, holding the minimum depth over the
blank's cells (255 where no position has those cells). It is derived from the
Parquet files on first use (a few seconds) and used again only while this
machine's record says it wrote it from the files the manifest lists now
(storage/derived.py: a data folder is untrusted); its name starts with ``_``
so that readers of the folder as a dataset skip it, as they skip the manifest.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.errors import BadPosition
from pipeline.puzzles.tiles.board import grid_adjacency
from pipeline.puzzles.tiles.patterns import PARTITIONS, PatternPuzzle
from pipeline.solvers import ida_c
from pipeline.solvers.ida_tables import Tables
from pipeline.storage import derived, integrity

COMPACT = "_pdb.npy"
#: No sliding puzzle here needs more moves (4x4: 80; 2x6: 80).
MAX_MOVES = 255


#: The first 4x4 solve on a fresh clone (issue #34, 2026-11-26, 2 cores): its
#: 115,358,880 pattern positions took 4 min 38 s and left 2.2 GB in the data
#: folder (the Parquet tables and the arrays the solver keeps beside them).
#: Bytes on disk a position, and positions built a second, from those figures.
PDB_BYTES_PER_POSITION = 19.1
PDB_POSITIONS_PER_SECOND = 415_000


def build_cost(missing: Sequence[PatternPuzzle]) -> str:
    """What building these pattern databases costs, for a user about to wait for it."""
    from pipeline.engine.budget import size_of

    positions = sum(p.expected_total or 0 for p in missing)
    minutes = round(positions / PDB_POSITIONS_PER_SECOND / 60)
    took = "under a minute" if minutes < 1 else f"about {minutes} minute{'s' * (minutes > 1)}"
    disk = size_of(positions * PDB_BYTES_PER_POSITION)
    return f"at most {positions:,} positions, about {disk} on disk and {took}"


def patterns(board: str) -> list[PatternPuzzle]:
    """The pattern puzzles of a board's partition, in a fixed order."""
    rows, cols = (int(x) for x in board.split("x"))
    return [PatternPuzzle(rows, cols, lab, t) for lab, t in PARTITIONS[board].items()]


def compact_from_levels(p: PatternPuzzle, levels: Any) -> np.ndarray:
    """The compact array of a pattern database from its levels (depth 0 first)."""
    arr = np.full(p.array_size, 255, dtype=np.uint8)
    for level in levels:
        idx = p.index(level.states)
        arr[idx] = np.minimum(arr[idx], np.uint8(level.depth))
    return arr


def load_compact(table: Any, p: PatternPuzzle) -> np.ndarray:
    """The compact array of a built table: the one kept beside it when this machine
    derived it from the files its manifest lists now, else derived again and kept."""
    directory = Path(table.directory)
    sources = integrity.source_key(f"pdb-compact-1 {p.name} {p.tiles}", [table.manifest])
    arr = derived.load(directory, COMPACT, sources, p.array_size, mmap=False)
    if arr is None:
        integrity.check_table(directory, table.manifest)  # derived only from checked files
        arr = compact_from_levels(p, table.levels())
        derived.keep(directory, COMPACT, arr, sources)
    return arr


def load_joined(board: str, tables: Sequence[Any], data: Path) -> np.ndarray:
    """The compact arrays of a board's partition one after another, memory-mapped.

    Kept as ``<data>/.cache/<board>-pdb.npy`` on the same terms as the compact
    arrays (storage/derived.py): mapped, a solve reads only the pages its search
    touches instead of loading and joining 115 MB of arrays (4x4), and the
    second load costs a stat, not a hash.
    """
    pats = patterns(board)
    folder = data / ".cache"
    name = f"{board}-pdb.npy"
    kind = f"pdb-joined-1 {board} {[p.tiles for p in pats]}"
    sources = integrity.source_key(kind, [t.manifest for t in tables])
    size = sum(p.array_size for p in pats)
    arr = derived.load(folder, name, sources, size, mmap=True)
    if arr is not None:
        return arr
    joined = np.concatenate([load_compact(t, p) for t, p in zip(tables, pats, strict=True)])
    derived.make_folder(folder)
    derived.keep(folder, name, joined, sources)
    kept = derived.load(folder, name, sources, size, mmap=True)
    return joined if kept is None else kept


def split(joined: np.ndarray, board: str) -> list[np.ndarray]:
    """The board's arrays as views of their joined array (no copy)."""
    ends = np.cumsum([p.array_size for p in patterns(board)])
    return [joined[e - p.array_size : e] for e, p in zip(ends, patterns(board), strict=True)]


@dataclass(frozen=True)
class Result:
    """An optimal solution: the tile slid at each move, the nodes generated, time."""

    tiles: list[int]
    nodes: int
    seconds: float

    @property
    def moves(self) -> int:
        return len(self.tiles)


class Solver:
    """IDA* with the additive pattern databases of one board (rows x cols)."""

    def __init__(
        self,
        board: str,
        arrays: Sequence[np.ndarray],
        *,
        reflect: bool = True,
        joined: np.ndarray | None = None,
        kernel: str | None = None,
    ) -> None:
        """``joined``: the arrays already one after another (load_joined), used as is;
        ``kernel``: ``c`` or ``numba`` (default: C when it builds, see ida_c.py)."""
        rows, cols = (int(x) for x in board.split("x"))
        n = rows * cols
        pats = patterns(board)
        if len(arrays) != len(pats):
            raise ValueError(f"{board} has {len(pats)} pattern databases")
        self.board, self.rows, self.cols, self.n = board, rows, cols, n
        adj = grid_adjacency(rows, cols)
        nbr = np.full((n, 4), -1, np.int64)
        for c, a in enumerate(adj):
            nbr[c, : len(a)] = a
        grp = np.zeros(n, np.int64)
        w = np.zeros(n, np.int64)
        for g, p in enumerate(pats):
            for i, t in enumerate(p.tiles):
                grp[t], w[t] = g, n**i
        covered = sorted(t for p in pats for t in p.tiles)
        if covered != list(range(1, n)):
            raise ValueError(f"the {board} partition must cover tiles 1..{n - 1} once each")
        square = rows == cols
        refl = np.array(
            [(c % cols) * cols + c // cols if square else c for c in range(n)], np.int64
        )
        rt = np.array([0] + [int(refl[t - 1]) + 1 for t in range(1, n)], np.int64)
        off = np.cumsum([0] + [a.size for a in arrays[:-1]]).astype(np.int64)
        self.tables = Tables(
            nbr=nbr,
            nnbr=np.array([len(a) for a in adj], np.int64),
            grp=grp,
            w=w,
            rgrp=grp[rt],
            rw=w[rt],
            refl=refl,
            off=off,
            pdb=joined
            if joined is not None
            else np.concatenate([np.ascontiguousarray(a, np.uint8) for a in arrays]),
            use_refl=square and reflect,
        )
        self.kernel = ida_c.kernel(self.tables, kernel)

    def heuristic(self, cells: Sequence[int]) -> int:
        """The lower bound the search starts from (max of the sum and its reflection)."""
        return int(self.kernel.heuristic(self._board(cells)))

    def solve(self, cells: Sequence[int]) -> Result:
        """An optimal solution of a solvable position (cells row-major, 0 = blank)."""
        board = self._board(cells)
        clock = time.perf_counter()
        length, nodes, blanks = self.kernel.ida(board, MAX_MOVES)
        seconds = time.perf_counter() - clock
        if length < 0:
            raise BadPosition(f"no solution within {MAX_MOVES} moves (wrong parity?)")
        tiles = _replay(board, blanks)
        return Result(tiles, int(nodes), seconds)

    def _board(self, cells: Sequence[int]) -> np.ndarray:
        """The cells as the kernels' array, checked (the C kernel trusts its input)."""
        if len(cells) != self.n:
            raise BadPosition(f"expected {self.n} cells, got {len(cells)}")
        if sorted(int(c) for c in cells) != list(range(self.n)):
            raise BadPosition(f"not a {self.board} position: each of 0..{self.n - 1} once")
        return np.asarray(cells, np.int64)


def _replay(board: np.ndarray, blanks: np.ndarray) -> list[int]:
    """The tile slid at each move, given the blank's cell after each move."""
    b = board.copy()
    z = int(np.flatnonzero(b == 0)[0])
    tiles = []
    for j in blanks:
        j = int(j)
        tiles.append(int(b[j]))
        b[z], b[j] = b[j], 0
        z = j
    return tiles
