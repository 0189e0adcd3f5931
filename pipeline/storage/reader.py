"""Reading levels back: the one reader of level files.

:class:`LevelFiles` is a finished level read from its files (the engine's
``LevelSource``): in chunks, or only the states of a range, reading just the
row groups whose statistics overlap it. :class:`LevelFile` is one file opened for
a table's point look-ups. :func:`row_group_mins` is where the row groups'
statistics are read, for range reads, point look-ups and verify.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import hints
from pipeline.engine.core import NO_PARENT, Level, States
from pipeline.engine.level import Chunk
from pipeline.errors import CorruptTable
from pipeline.storage import scratch
from pipeline.storage.integrity import check_footer, row_group_bounds
from pipeline.storage.manifest import FileEntry


def open_file(path: Path, entry: FileEntry | None = None, table: str = "") -> pq.ParquetFile:
    """A level file, opened to read with its page checksums checked; with its manifest
    ``entry``, its size and footer are checked first. CorruptTable when it cannot be."""
    if entry is not None:
        check_footer(path, entry, table or path.parent.name)
    try:
        return pq.ParquetFile(path, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as e:
        raise _unreadable(path, e) from None


def _unreadable(path: Path, e: BaseException, what: str = "") -> CorruptTable:
    rebuild = hints.build(path.parent.name, path.parent.parent, force=True)
    why = f"has no readable {what}" if what else "cannot be read"
    return CorruptTable(f"{path} {why} ({first_line(e)}): rebuild with {rebuild}")


class LevelFile:
    """One level file opened to read (:func:`open_file`), for a table's point look-ups:
    its footer's figures, one column of one row group, or columns of the whole
    file. Every read checks the pages' checksums; CorruptTable names the file."""

    def __init__(self, path: Path, entry: FileEntry | None = None, table: str = "") -> None:
        self.path = path
        self._file = open_file(path, entry, table)

    @property
    def metadata(self) -> pq.FileMetaData:
        """The footer: rows, row groups and their statistics."""
        return self._file.metadata

    @property
    def schema(self) -> pa.Schema:
        return self._file.schema_arrow

    def group(self, i: int, column: str) -> States:
        """``column`` of row group ``i`` as uint64 (nulls as NO_PARENT)."""
        return u64(_read(self.path, self._file, [i], [column]).column(0))

    def columns(self, names: list[str]) -> pa.Table:
        """``names`` of every row."""
        try:
            return self._file.read(columns=names)
        except (OSError, KeyError, IndexError, pa.ArrowException) as e:
            raise _unreadable(self.path, e, ", ".join(names)) from None


def row_group_mins(pf: pq.ParquetFile) -> list[int]:
    return [lo for lo, _ in row_group_bounds(pf.metadata)]


class LevelFiles:
    """A finished level read from its files (sorted by state, parts in order)."""

    def __init__(
        self,
        directory: Path,
        depth: int,
        entries: Sequence[FileEntry],
        raw_counts: Path | None = None,
    ) -> None:
        self.directory = directory
        self.depth = depth
        self.entries = [e for e in entries if e.rows]
        #: The level's path counts as raw uint64 in row order, written to its scratch
        #: by the build that made them (build/held.py, storage/scratch.py): read from there, not
        #: decoded from DECIMAL(38,0) (english33 --paths, depth 17's 29M rows: read
        #: in 1.34 s with the column, in 0.59 s without).
        self.raw_counts = raw_counts

    def __len__(self) -> int:
        return sum(e.rows for e in self.entries)

    def path_counts(self) -> np.ndarray:
        """Every path count in row order: the raw file mapped (its pages are shared
        with the page cache, where the build just wrote them), else decoded."""
        if self.raw_counts is None:
            parts = [c[2] for c in self.chunks(1 << 22, counts=True)]
            return np.concatenate(parts) if parts else np.empty(0, np.uint64)
        return scratch.mapped_counts(self.raw_counts, len(self))

    def chunks(self, rows: int, parents: bool = False, counts: bool = False) -> Iterator[Chunk]:
        """(states, parents, path counts) in whole row groups of about ``rows`` rows. Null
        parents come back as NO_PARENT; path counts as uint64 (the build keeps each
        count within 64 bits)."""
        raw_file = self.raw_counts if counts else None
        decode = counts and raw_file is None
        columns = ["state", *(["parent"] if parents else []), *(["paths"] if decode else [])]
        with contextlib.ExitStack() as stack:
            raw = stack.enter_context(scratch.counts_reader(raw_file)) if raw_file else None
            for states, ups, paths in self._chunks(rows, columns):
                yield states, ups, paths if raw is None else raw(len(states))

    def _chunks(self, rows: int, columns: list[str]) -> Iterator[Chunk]:
        for entry in self.entries:
            path = self.directory / entry.name
            pf = open_file(path, entry)
            per = max(1, rows // max(1, pf.metadata.row_group(0).num_rows))
            n = pf.metadata.num_row_groups
            for i in range(0, n, per):
                t = _read(path, pf, list(range(i, min(n, i + per))), columns)
                got = {c: u64(t.column(c)) for c in columns}
                yield got["state"], got.get("parent"), got.get("paths")

    def between(self, lo: int, hi: int) -> States:
        """The states in ``[lo, hi)`` (sorted), reading only the row groups that overlap."""
        out: list[np.ndarray] = []
        for entry in self.entries:
            if entry.max_state < lo or entry.min_state >= hi:  # type: ignore[operator]
                continue
            path = self.directory / entry.name
            pf = open_file(path, entry)
            groups = [
                i for i, (a, b) in enumerate(row_group_bounds(pf.metadata)) if b >= lo and a < hi
            ]
            if not groups:
                continue
            s = u64(_read(path, pf, groups, ["state"]).column("state"))
            a = np.searchsorted(s, np.uint64(lo))
            b = np.searchsorted(s, np.uint64(hi)) if hi <= int(NO_PARENT) else len(s)
            out.append(s[a:b].copy() if b - a < len(s) else s)
        if not out:
            return np.empty(0, np.uint64)
        return out[0] if len(out) == 1 else np.concatenate(out)

    def read(self) -> Level:
        """The whole level as arrays (parents of roots as NO_PARENT)."""
        parts = [read_level_file(self.directory / e.name, e) for e in self.entries]
        if not parts:
            e = np.empty(0, np.uint64)
            return Level(self.depth, e, e)
        counts = None
        if parts[0].counts is not None:
            counts = np.concatenate([p.counts for p in parts])  # type: ignore[misc]
        if len(parts) == 1:
            return Level(self.depth, parts[0].states, parts[0].parents, parts[0].counts)
        states = np.concatenate([p.states for p in parts])
        return Level(self.depth, states, np.concatenate([p.parents for p in parts]), counts)


def _read(path: Path, pf: pq.ParquetFile, groups: list[int], columns: list[str]) -> pa.Table:
    """Row groups of an open file (pages checked); CorruptTable when damaged."""
    try:
        return pf.read_row_groups(groups, columns=columns)
    except (OSError, pa.ArrowException) as e:
        raise _unreadable(path, e) from None


def read_column(path: Path, pf: pq.ParquetFile, column: str) -> pa.ChunkedArray:
    """One column of a whole level file opened by :func:`open_file` (pages checked)."""
    return _read(path, pf, list(range(pf.metadata.num_row_groups)), [column]).column(column)


def read_level_file(path: Path, entry: FileEntry | None = None) -> Level:
    """A whole level file as arrays (parents of roots become NO_PARENT)."""
    pf = open_file(path, entry)
    try:
        t = pf.read()
    except (OSError, pa.ArrowException) as e:
        raise _unreadable(path, e) from None
    depth = int(t.column("depth")[0].as_py()) if t.num_rows else -1
    counts = u64(t.column("paths")) if "paths" in t.column_names else None
    return Level(depth, u64(t.column("state")), u64(t.column("parent")), counts)


def u64(column: pa.ChunkedArray) -> np.ndarray:
    """A uint64 column (or path counts) as numpy, nulls as NO_PARENT, from the Arrow buffers.

    (``fill_null`` would do it too, but importing pyarrow.compute costs a
    solve command 0.2 s.)
    """
    if column.type != pa.uint64():
        column = column.cast(pa.uint64())
    parts = []
    for chunk in column.chunks:
        n, off = len(chunk), chunk.offset
        validity, data = chunk.buffers()[:2]
        values = np.frombuffer(data, dtype=np.uint64, count=n, offset=8 * off)
        if chunk.null_count:
            bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
            values = np.where(bits[off : off + n].astype(bool), values, NO_PARENT)
        parts.append(values)
    if not parts:
        return np.empty(0, np.uint64)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
