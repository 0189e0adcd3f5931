"""Reading levels back: the one reader of level files.

:class:`LevelFiles` is a finished level read from its files (the engine's
``LevelSource``): in chunks, or only the states of a range, reading just the
row groups whose statistics overlap it. :class:`LevelFile` is one file opened for
a table's point look-ups. :func:`row_group_mins` is where the row groups'
statistics are read, for range reads, point look-ups and verify.

Every file opened with its manifest entry (:func:`open_file`) is read as the
manifest describes it. A look-up reads one column of one row group, a column
chunk, whose pages carry a CRC32 that whoever changes a page can recompute; so
the manifest (format version 2) holds the sha256 of every column chunk, and the
file is read through :class:`HashedFile`, which hands pyarrow a byte only inside
a chunk whose bytes, read in that same call, have the manifest's sha256. Where
the chunks lie comes from the footer, whose own sha256 is checked first.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import io
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline import hints
from pipeline.engine.core import NO_PARENT, Level, States
from pipeline.engine.level import Chunk
from pipeline.errors import CorruptTable
from pipeline.storage import integrity, scratch
from pipeline.storage.integrity import row_group_bounds
from pipeline.storage.manifest import FileEntry


def open_file(path: Path, entry: FileEntry | None = None, table: str = "") -> pq.ParquetFile:
    """A level file, opened to read with its page checksums checked. With its manifest
    ``entry``, what is read is first held against the manifest: its size and footer at
    once, then each column chunk as it is read, against its sha256 (format version 2).
    A file of version 1 is hashed whole first (remembered by its stamp); a file known
    whole (:class:`integrity.Known`) is read as it is. Without ``entry``, the caller
    has hashed the file. CorruptTable names the file."""
    if entry is None:
        return _native(path)
    table = table or path.parent.name
    fd = integrity.open_regular(path, table)
    try:
        tail = integrity.read_footer(fd, path, entry, table)
        if entry.chunk_sha256 is None:
            integrity.check_file(path, entry, table)  # format version 1: hashed whole
            known = None
        else:
            known = integrity.Known(path, os.fstat(fd), entry)
        if known is None or known.whole:
            os.close(fd)
            return _native(path)
        md = _metadata(path, tail)
        listed = _listed(path, table, md, entry)
        source = HashedFile(fd, entry.bytes, listed, _blame(path, table), known)
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    try:
        native = pa.PythonFile(source, mode="r")
        return pq.ParquetFile(native, metadata=md, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as e:
        raise _unreadable(path, e) from None


def _native(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as e:
        raise _unreadable(path, e) from None


def _metadata(path: Path, tail: bytes) -> pq.FileMetaData:
    """The file's metadata from its footer's bytes ``tail`` (held against the manifest)."""
    try:
        return pq.read_metadata(pa.BufferReader(b"PAR1" + tail))
    except (OSError, pa.ArrowException) as e:
        raise _unreadable(path, e, "footer") from None


def _listed(path: Path, table: str, md: pq.FileMetaData, entry: FileEntry) -> list[Hashed]:
    """Each column chunk's place (from the footer) with its sha256 (from the manifest)."""
    try:
        places = integrity.chunk_spans(md)
        columns = [md.schema.column(c).name for c in range(md.num_columns)]
    except (OSError, pa.ArrowException, ValueError, TypeError, IndexError) as e:
        raise _unreadable(path, e, "footer") from None
    digests = entry.chunk_sha256 or ()
    if [len(row) for row in places] != [len(row) for row in digests] or any(
        len(row) != len(columns) for row in places
    ):
        why = "has other row groups or columns than its manifest's chunk_sha256 lists"
        raise integrity.damaged(path, table, why)
    out: list[Hashed] = []
    for group, (row, sums) in enumerate(zip(places, digests, strict=True)):
        for c, ((a, b), digest) in enumerate(zip(row, sums, strict=True)):
            out.append(Hashed(a, b, digest, group, columns[c], len(out)))
    return out


def _blame(path: Path, table: str) -> Callable[[str], Exception]:
    return lambda why: integrity.damaged(path, table, why)


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


class Hashed(NamedTuple):
    """A column chunk's bytes in its file, the sha256 they must have, what it is (its
    row group and column, for the error that names it) and its place in the
    manifest's list."""

    start: int
    end: int
    sha256: str
    group: int
    column: str
    place: int


class Sound(Protocol):
    """The chunks (by place) known to have their sha256: found so before, or now."""

    def __contains__(self, place: int) -> bool: ...

    def add(self, place: int) -> None: ...


class HashedFile(io.RawIOBase):
    """A level file open at ``fd``, read as pyarrow reads it (seek, then read), that
    hands over only bytes inside its column chunks: each read is widened to whole
    chunks, and every chunk it touches is hashed and compared with the manifest's
    before anything is returned, unless ``sound`` knows it (found sound before in
    this version of the file). ``damaged(why)`` is the error to raise (it names the
    file and the command that rebuilds its table)."""

    def __init__(
        self,
        fd: int,
        size: int,
        chunks: Sequence[Hashed],
        damaged: Callable[[str], Exception],
        sound: Sound,
    ) -> None:
        super().__init__()
        self._sound = sound
        self._fd = fd
        self._size = size
        self._chunks = sorted(chunks)
        self._starts = [c.start for c in self._chunks]
        self._damaged = damaged
        self._at = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: self._size}[whence]
        self._at = base + offset
        return self._at

    def tell(self) -> int:
        return self._at

    def read(self, n: int | None = -1) -> bytes:
        lo = self._at
        hi = self._size if n is None or n < 0 else min(self._size, lo + n)
        if hi <= lo:
            return b""
        touched = self._touched(lo, hi)
        a, b = min(lo, touched[0].start), max(hi, touched[-1].end)
        data = os.pread(self._fd, b - a, a)
        if len(data) != b - a:
            raise self._damaged("is shorter than its footer says")
        view = memoryview(data)
        for c in touched:
            if c.place in self._sound:
                continue
            if hashlib.sha256(view[c.start - a : c.end - a]).hexdigest() != c.sha256:
                what = f"row group {c.group}'s column {c.column}"
                raise self._damaged(f"has {what} unlike the manifest's: its sha256 differs")
            self._sound.add(c.place)
        self._at = hi
        return data if (a, b) == (lo, hi) else data[lo - a : hi - a]

    def _touched(self, lo: int, hi: int) -> list[Hashed]:
        """The chunks that hold ``[lo, hi)``, which must lie wholly inside them."""
        i = bisect.bisect_right(self._starts, lo) - 1
        out: list[Hashed] = []
        reach = lo
        while reach < hi:
            if i < 0 or i >= len(self._chunks) or not self._starts[i] <= reach:
                raise self._damaged(f"is read outside its column chunks (at byte {reach:,})")
            c = self._chunks[i]
            if c.end > reach:
                out.append(c)
                reach = c.end
            i += 1
        return out

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


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
        #: by the build that made them (build/resident.py, storage/scratch.py): read from there, not
        #: decoded from DECIMAL(38,0) (english33 --paths, depth 17's 29M rows: read
        #: in 1.34 s with the column, in 0.59 s without).
        self.raw_counts = raw_counts

    def __len__(self) -> int:
        return sum(e.rows for e in self.entries)

    def path_counts(self) -> np.ndarray:
        """Every path count in row order: the raw file mapped (its pages are shared
        with the page cache, where the build just wrote them), else decoded."""
        if self.raw_counts is None:
            parts = [c[2] for c in self.chunks(1 << 22, counts=True) if c[2] is not None]
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
        counted = [p.counts for p in parts if p.counts is not None]
        counts = np.concatenate(counted) if len(counted) == len(parts) else None
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
        assert data is not None, "a uint64 array has a data buffer"
        values = np.frombuffer(data, dtype=np.uint64, count=n, offset=8 * off)
        if chunk.null_count:
            assert validity is not None, "an array with nulls has a validity buffer"
            bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
            values = np.where(bits[off : off + n].astype(bool), values, NO_PARENT)
        parts.append(values)
    if not parts:
        return np.empty(0, np.uint64)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
