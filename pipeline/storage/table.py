"""A complete table opened for point look-ups: where a state sits, and its walk to a root."""

from __future__ import annotations

import bisect
import functools
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import hints
from pipeline.engine.core import NO_PARENT, Level
from pipeline.errors import CorruptTable, NotBuilt
from pipeline.storage import manifest as manifests
from pipeline.storage.format import CLASS_SIZE, FILE_ROWS, MANIFEST
from pipeline.storage.integrity import (
    check_columns,
    check_footers,
    check_range,
    check_table,
    orbit_sum,
    regular,
    row_group_bounds,
)
from pipeline.storage.manifest import FileEntry, Manifest
from pipeline.storage.reader import LevelFile, LevelFiles, first_line


@dataclass(frozen=True)
class Hit:
    """Where a state sits in a table."""

    state: int
    depth: int
    parent: int | None


class Table:
    """A complete table on disk, opened from its manifest, for point look-ups.

    Opening reads only the manifest; a file's footer is read the first time a
    look-up needs it (and its rows and state range held against the manifest's),
    and the row groups last read are kept (a walk to the root
    touches one row group a depth, often the same ones again).
    """

    def __init__(
        self, directory: Path, manifest: Manifest | None = None, cache_row_groups: int = 128
    ) -> None:
        """The table in ``directory``; ``manifest``: its manifest already read (and
        checked: the data folder's scan), else read here."""
        self.directory = directory
        self.name = directory.name
        self.data = directory.parent
        if directory.is_symlink():  # read where it is, never followed out of the folder
            raise CorruptTable(
                f"{directory} is a symbolic link, not a table's folder: remove it, or "
                f"rebuild with {hints.build(self.name, self.data, force=True)}"
            )
        if not (directory / MANIFEST).exists():
            raise NotBuilt(f"{self.name} is not built yet: run {hints.build(self.name, self.data)}")
        self.manifest: Manifest = manifest if manifest is not None else manifests.read(directory)
        self.files: list[FileEntry] = self.manifest.files
        self._footers: dict[str, tuple[LevelFile, list[int]]] = {}
        self._groups: OrderedDict[tuple[str, int, str], np.ndarray] = OrderedDict()
        self._cache = cache_row_groups
        self._figures_checked = False

    @property
    def max_depth(self) -> int:
        return self.manifest.max_depth

    @property
    def has_paths(self) -> bool:
        return self.manifest.has_paths

    def histogram(self) -> list[tuple[int, int]]:
        """Positions at each depth: the manifest's counts, once every file's footer has
        been held against them (:meth:`check_figures`): a count is the rows written."""
        self.check_figures()
        return self.manifest.histogram()

    def check_figures(self) -> None:
        """The manifest's figures are its files' (sizes, footers, rows, ranges, columns),
        or CorruptTable: checked once per table opened (remembered: storage/integrity.py)."""
        if not self._figures_checked:
            check_footers(self.directory, self.manifest)
            self._figures_checked = True

    def check_files(self) -> None:
        """Every file hashed against the manifest (remembered: storage/integrity.py), as
        the DuckDB views need before they read the table: one line naming this table."""
        self.check_figures()
        check_table(self.directory, self.manifest)

    def orbit_sums(self) -> list[int] | None:
        """The positions each level's classes stand for (None: not a table of classes).

        Summed from each file's class_size column (one column read, a few seconds
        for french37-sym's 374 million rows) and remembered by the file's stamp
        (storage/integrity.py), then held against the manifest's ``orbit_positions``:
        the manifest's word alone never is the answer.
        """
        if not self.manifest.classes:
            return None
        self.check_figures()
        sums = [0] * len(self.manifest.levels)
        for entry in self.files:
            sums[entry.depth] += orbit_sum(
                self.path(entry), entry, self.name, functools.partial(self._class_sizes, entry)
            )
        kept = self.manifest.orbit_sums()
        if kept is not None and kept != sums:
            depth = next(d for d, (a, b) in enumerate(zip(kept, sums, strict=True)) if a != b)
            raise CorruptTable(
                f"{self.directory / MANIFEST}: orbit_positions of depth {depth} is "
                f"{kept[depth]:,}, its files' class sizes sum to {sums[depth]:,}: rebuild with "
                f"{hints.build(self.name, self.data, force=True)}"
            )
        return sums

    def read_columns(self, entry: FileEntry, columns: list[str]) -> pa.Table:
        """Columns of one file, whole, through the one reader (verify's checks of a
        family's own columns); CorruptTable naming the file when they cannot be read."""
        return LevelFile(self.path(entry), entry, self.name).columns(columns)

    def _class_sizes(self, entry: FileEntry) -> int:
        sizes = self.read_columns(entry, [CLASS_SIZE]).column(0)
        return int(pc.sum(sizes).as_py() or 0)

    def path(self, entry: FileEntry) -> Path:
        return self.directory / entry.name

    def _damaged(self, entry: FileEntry, why: str) -> CorruptTable:
        rebuild = hints.build(self.name, self.data, force=True)
        return CorruptTable(f"{self.path(entry)} {why}: rebuild with {rebuild}")

    def check_sizes(self) -> None:
        """Cheap damage check: every file present with the size the manifest says."""
        for entry in self.files:
            size = regular(self.path(entry), self.name).st_size  # never a link
            if size != entry.bytes:
                raise self._damaged(entry, f"has {size} bytes, the manifest says {entry.bytes}")

    def level(self, depth: int) -> LevelFiles:
        """One level, to read in chunks or by range."""
        return LevelFiles(self.directory, depth, self.manifest.files_at(depth))

    def levels(self) -> Iterator[Level]:
        """Every level as arrays, depth 0 first, one at a time (verify, derived arrays)."""
        for lv in self.manifest.levels:
            yield self.level(lv.depth).read()

    def _footer(self, entry: FileEntry) -> tuple[LevelFile, list[int]]:
        if entry.name not in self._footers:
            pf = LevelFile(self.path(entry), entry, self.name)  # size and footer checked
            check_columns(self.path(entry), pf.schema, self.manifest)
            try:
                bounds = row_group_bounds(pf.metadata)
            except (OSError, pa.ArrowException, AttributeError, TypeError) as e:
                raise self._damaged(entry, f"cannot be read ({first_line(e)})") from None
            check_range(self.path(entry), entry, self.name, pf.metadata.num_rows, bounds)
            self._footers[entry.name] = (pf, [lo for lo, _ in bounds])
        return self._footers[entry.name]

    def _column(self, entry: FileEntry, i: int, column: str) -> np.ndarray:
        """One column of one row group (cached): probes read states, hits parents."""
        key = (entry.name, i, column)
        hit = self._groups.get(key)
        if hit is not None:
            self._groups.move_to_end(key)
            return hit
        pf, _ = self._footer(entry)
        values = pf.group(i, column)
        self._groups[key] = values
        if len(self._groups) > self._cache:
            self._groups.popitem(last=False)
        return values

    def find_at(self, state: int, depth: int) -> Hit | None:
        """The row of ``state`` at ``depth``, reading at most one row group a file."""
        for entry in self.manifest.files_at(depth):
            if entry.rows == 0 or not entry.min_state <= state <= entry.max_state:  # type: ignore[operator]
                continue
            _, mins = self._footer(entry)
            i = bisect.bisect_right(mins, state) - 1
            states = self._column(entry, i, "state")
            k = int(np.searchsorted(states, np.uint64(state)))
            if k < len(states) and int(states[k]) == state:
                parent = int(self._column(entry, i, "parent")[k])
                return Hit(state, depth, None if parent == int(NO_PARENT) else parent)
        return None

    def nth(self, depth: int, n: int) -> int:
        """The ``n``-th state (from 0) of level ``depth`` in state order: one row group read
        (a level's files hold consecutive ranges of states, each sorted)."""
        entries = sorted(self.manifest.files_at(depth), key=lambda e: e.min_state or 0)
        for entry in entries:
            if n >= entry.rows:
                n -= entry.rows
                continue
            pf, _ = self._footer(entry)  # its rows held against the manifest's
            for i in range(pf.metadata.num_row_groups):
                rows = pf.metadata.row_group(i).num_rows
                if n < rows:
                    return int(self._column(entry, i, "state")[n])
                n -= rows
        raise CorruptTable(f"{self.name}: level {depth} holds fewer rows than its manifest says")

    def find(self, state: int, parity: int | None = None, near: int | None = None) -> Hit | None:
        """The row of ``state`` at whatever depth it sits, or None.

        The largest levels are probed first, or those nearest ``near`` (a move
        from a position at that depth: its depth or one either side); a known
        depth ``parity`` (bipartite graphs: the puzzle's depth_parity) skips half.
        """
        levels = self.histogram()
        if near is None:
            levels = sorted(levels, key=lambda dn: -dn[1])
        else:
            levels = sorted(levels, key=lambda dn: (abs(dn[0] - near), -dn[1]))
        depths = [d for d, _ in levels if parity is None or d % 2 == parity]
        for depth in depths:
            hit = self.find_at(state, depth)
            if hit is not None:
                return hit
        # "Not in the table" trusts the manifest's state range of every file probed:
        # each is held against its footer first (a found state was read, not skipped).
        for depth in depths:
            for entry in self.manifest.files_at(depth):
                self._footer(entry)  # a file said to have no rows too
        return None

    def walk(self, state: int, parity: int | None = None) -> list[Hit]:
        """The rows from ``state`` to its root, following parents."""
        hit = self.find(state, parity)
        if hit is None:
            return []
        rows = [hit]
        while hit.parent is not None:
            parent = hit.parent
            nxt = self.find_at(parent, hit.depth - 1) or self.find_at(parent, hit.depth)
            if nxt is None:
                raise CorruptTable(
                    f"{self.name}: parent {parent} of a depth-{hit.depth} state is missing; "
                    f"run {hints.command(f'verify {self.name}', self.data)}"
                )
            hit = nxt
            rows.append(hit)
            if len(rows) > len(self.files) * FILE_ROWS + 1:
                raise CorruptTable(f"{self.name}: parents form a cycle")
        return rows
