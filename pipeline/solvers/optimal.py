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

The region tables of ``4x4-pdb78`` (tiles/regions.py) index their arrays by
rank instead (n!/(n-k)! entries): :class:`RankedSolver` searches them with
the C kernel's ``ranked_ida``, and the API prefers them once built.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.errors import BadMethod, BadPosition
from pipeline.puzzles.tiles.board import grid_adjacency
from pipeline.puzzles.tiles.patterns import PARTITIONS, PatternPuzzle
from pipeline.puzzles.tiles.regions import REGION_GROUPS, region_puzzles
from pipeline.solvers import ida_c
from pipeline.solvers.ida_tables import RankedTables, Tables
from pipeline.storage import derived, integrity
from pipeline.storage.table import Table
from pipeline.words import size_of

COMPACT = "_pdb.npy"  # one of storage/derived.py's TABLE_ARRAYS
#: No sliding puzzle here needs more moves (4x4: 80; 2x6: 80).
MAX_MOVES = 255


#: Bytes on disk a position (the Parquet tables and the arrays the solver keeps
#: beside them), and positions built a second: from the first 4x4 solve on a
#: fresh clone (docs/BENCHMARKS.md#set-up-costs).
PDB_BYTES_PER_POSITION = 19.1
PDB_POSITIONS_PER_SECOND = 415_000


def build_cost(missing: Sequence[PatternPuzzle]) -> str:
    """What building these pattern databases costs, for a user about to wait for it."""
    positions = sum(p.expected_total or 0 for p in missing)
    minutes = round(positions / PDB_POSITIONS_PER_SECOND / 60)
    took = "under a minute" if minutes < 1 else f"about {minutes} minute{'s' * (minutes > 1)}"
    disk = size_of(positions * PDB_BYTES_PER_POSITION)
    return f"at most {positions:,} positions, about {disk} on disk and {took}"


def patterns(board: str) -> list[PatternPuzzle]:
    """The pattern puzzles of a board's partition, in a fixed order."""
    rows, cols = (int(x) for x in board.split("x"))
    return [PatternPuzzle(rows, cols, lab, t) for lab, t in PARTITIONS[board].items()]


#: Rows read at a time when deriving an array (a level of 4x4-pdb-8 has 10**8 and more).
CHUNK_ROWS = 1 << 24


def compact_from_table(p: PatternPuzzle, table: Table) -> np.ndarray:
    """The compact array of a built table, read level by level in chunks."""
    arr = np.full(p.array_size, 255, dtype=np.uint8)
    for lv in table.manifest.levels:
        for chunk in table.level(lv.depth).chunks(CHUNK_ROWS):
            _lower(arr, p.index(chunk[0]), lv.depth)
    return arr


def _lower(arr: np.ndarray, idx: np.ndarray, depth: int) -> None:
    arr[idx] = np.minimum(arr[idx], np.uint8(depth))


def load_compact(table: Table, p: PatternPuzzle) -> np.ndarray:
    """The compact array of a built table: the one kept beside it when this machine
    derived it from the files its manifest lists now, else derived again and kept."""
    directory = Path(table.directory)
    sources = integrity.source_key(f"pdb-compact-1 {p.name} {p.tiles}", [table.manifest])
    arr = derived.load(directory, COMPACT, sources, p.array_size, mmap=False)
    if arr is None:
        integrity.check_table(directory, table.manifest)  # derived only from checked files
        arr = compact_from_table(p, table)
        derived.keep(directory, COMPACT, arr, sources)
    return arr


def load_joined(
    board: str, tables: Sequence[Table], data: Path, group: str | None = None
) -> np.ndarray:
    """The compact arrays of a board's partition (or of a region ``group`` such as
    ``4x4-pdb78``) one after another, memory-mapped.

    Kept as ``<data>/.cache/<board>-pdb.npy`` (``<group>.npy``) on the same terms
    as the compact arrays (storage/derived.py): mapped, a solve reads only the
    pages its search touches instead of loading and joining 115 MB of arrays
    (4x4; 577 MB for 7-8), and the second load costs a stat, not a hash.
    """
    pats: Sequence[PatternPuzzle] = patterns(board) if group is None else region_puzzles(group)
    folder = data / ".cache"
    name = f"{board}-pdb.npy" if group is None else f"{group}.npy"
    kind = f"pdb-joined-1 {board} {[p.tiles for p in pats]}"
    if group is not None:
        kind = f"pdb-ranked-1 {group} {[p.tiles for p in pats]}"
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

    #: The arrays the kernel reads, and the kernel.
    tables: Tables | RankedTables
    kernel: ida_c.Kernel

    def __init__(
        self,
        board: str,
        arrays: Sequence[np.ndarray],
        *,
        reflect: bool = True,
        joined: np.ndarray | None = None,
        kernel: str | None = None,
        groups: Sequence[Sequence[int]] | None = None,
    ) -> None:
        """``joined``: the arrays already one after another (load_joined), used as is;
        ``kernel``: ``c`` or ``numba`` (default: C when it builds, see ida_c.py);
        ``groups``: the tiles of each array (default: the board's partition)."""
        self._setup(board, arrays, groups or [p.tiles for p in patterns(board)])
        grp, w = np.zeros(self.n, np.int64), np.zeros(self.n, np.int64)
        for g, tiles in enumerate(self.groups):
            for i, t in enumerate(tiles):
                grp[t], w[t] = g, self.n**i
        off = np.cumsum([0] + [a.size for a in arrays[:-1]]).astype(np.int64)
        self.tables = Tables(
            nbr=self.nbr,
            nnbr=self.nnbr,
            grp=grp,
            w=w,
            rgrp=grp[self.rt],
            rw=w[self.rt],
            refl=self.refl,
            off=off,
            pdb=_joined(arrays, joined),
            use_refl=self.square and reflect,
        )
        self.kernel = ida_c.kernel(self.tables, kernel)
        self.heuristic_name = "-".join(str(len(t)) for t in self.groups)

    def _setup(
        self, board: str, arrays: Sequence[np.ndarray], groups: Sequence[Sequence[int]]
    ) -> None:
        """The board's cells, neighbours and reflection; the groups checked."""
        rows, cols = (int(x) for x in board.split("x"))
        n = rows * cols
        self.board, self.rows, self.cols, self.n = board, rows, cols, n
        self.groups = [tuple(sorted(t)) for t in groups]
        if len(arrays) != len(self.groups):
            raise ValueError(f"{board}: {len(self.groups)} pattern databases expected")
        if sorted(t for g in self.groups for t in g) != list(range(1, n)):
            raise ValueError(f"the {board} partition must cover tiles 1..{n - 1} once each")
        adj = grid_adjacency(rows, cols)
        self.nbr = np.full((n, 4), -1, np.int64)
        for c, a in enumerate(adj):
            self.nbr[c, : len(a)] = a
        self.nnbr = np.array([len(a) for a in adj], np.int64)
        self.square = rows == cols
        self.refl = np.array(
            [(c % cols) * cols + c // cols if self.square else c for c in range(n)], np.int64
        )
        self.rt = np.array([0] + [int(self.refl[t - 1]) + 1 for t in range(1, n)], np.int64)

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


def _joined(arrays: Sequence[np.ndarray], joined: np.ndarray | None) -> np.ndarray:
    if joined is not None:
        return joined
    return np.concatenate([np.ascontiguousarray(a, np.uint8) for a in arrays])


class RankedSolver(Solver):
    """IDA* over databases indexed by rank (tiles/regions.py: 7-8 of 4x4), C kernel only."""

    def __init__(
        self,
        board: str,
        arrays: Sequence[np.ndarray],
        groups: Sequence[Sequence[int]],
        *,
        reflect: bool = True,
        joined: np.ndarray | None = None,
    ) -> None:
        """Raises BadMethod when the C kernel cannot be built (no numba twin)."""
        self._setup(board, arrays, groups)
        n, k = self.n, len(self.groups)
        grp = np.zeros(n, np.int64)
        gt = np.full((k, n), -1, np.int64)
        for g, tiles in enumerate(self.groups):
            grp[list(tiles)] = g
            gt[g, : len(tiles)] = tiles
        if [a.size for a in arrays] != [math.perm(n, len(t)) for t in self.groups]:
            raise ValueError(f"{board}: the arrays must hold n!/(n-k)! entries a group")
        self.tables = RankedTables(
            nbr=self.nbr,
            nnbr=self.nnbr,
            grp=grp,
            rgrp=grp[self.rt],
            gt=gt,
            gk=np.array([len(t) for t in self.groups], np.int64),
            rt=self.rt,
            refl=self.refl,
            off=np.cumsum([0] + [a.size for a in arrays[:-1]]).astype(np.int64),
            pdb=_joined(arrays, joined),
            use_refl=self.square and reflect,
        )
        kernel = ida_c.ranked_kernel(self.tables)
        if kernel is None:
            raise BadMethod("rank-indexed pattern databases need the C kernel (ida_c.py)")
        self.kernel = kernel
        self.heuristic_name = "-".join(str(len(t)) for t in self.groups)


def ranked_solver(
    group: str, tables: Sequence[Table], data: Path, reflect: bool = True
) -> RankedSolver:
    """The solver over a built region group (``4x4-pdb78``), its arrays memory-mapped."""
    board = REGION_GROUPS[group][0]
    pats = region_puzzles(group)
    joined = load_joined(board, tables, data, group)
    ends = np.cumsum([p.array_size for p in pats])
    arrays = [joined[e - p.array_size : e] for e, p in zip(ends, pats, strict=True)]
    groups = [p.tiles for p in pats]
    return RankedSolver(board, arrays, groups, reflect=reflect, joined=joined)


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
