"""Writing a table's level files: one level at a time, in parts, atomically.

Every file is written aside and renamed into place, so a file appears
complete or not at all, never through a link planted in the folder
(storage/files.replace). The bytes of a part depend only on its rows, so a
level cut into the same parts gives the same files however it was computed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.engine.core import NO_PARENT, Level, States
from pipeline.errors import TooBig
from pipeline.storage import files, pages
from pipeline.storage.format import (
    CLASS_SIZE,
    FILE_ROWS,
    ORBITS,
    PATHS,
    ROW_GROUP_ROWS,
    SCHEMA,
    SCHEMA_WITH_PATHS,
    ZSTD_LEVEL,
    level_file_name,
)
from pipeline.storage.integrity import chunk_sha256, footer_sha256
from pipeline.storage.manifest import EntryDoc

#: The deepest level the format's ``depth`` column (uint8) holds.
MAX_DEPTH = 255

#: A puzzle's own columns (``Puzzle.extra_fields``) and the function giving their
#: values from the states (``Puzzle.extra_columns``).
Extra = tuple[tuple[pa.Field, ...], Callable[[States], dict[str, np.ndarray]]]


def write_json_atomic(path: Path, doc: Mapping[str, object], indent: int | None = 1) -> None:
    """Write JSON so that readers see the old file or the new one, never half.

    ``indent=None`` writes it on one line with the C encoder, several times
    quicker (Python's indenting encoder cost a 2x5 build 0.25 s in 57 writes
    of its progress file).
    """
    files.replace(path, json.dumps(doc, indent=indent) + "\n")


def write_level(directory: Path, level: Level, metadata: dict[str, str]) -> list[EntryDoc]:
    """Write one level as one or more Parquet files; return their manifest entries."""
    n = len(level)
    parts = max(1, -(-n // FILE_ROWS))
    return [
        write_part(
            directory,
            level.depth,
            part,
            level.states[part * FILE_ROWS : min(n, (part + 1) * FILE_ROWS)],
            level.parents[part * FILE_ROWS : min(n, (part + 1) * FILE_ROWS)],
            metadata,
            None
            if level.counts is None
            else level.counts[part * FILE_ROWS : (part + 1) * FILE_ROWS],
        )
        for part in range(parts)
    ]


def _write_table(table: pa.Table, sink: pa.NativeFile) -> None:
    pq.write_table(
        table,
        sink,
        row_group_size=ROW_GROUP_ROWS,
        compression="zstd",
        compression_level=ZSTD_LEVEL,
        use_dictionary=False,
        write_statistics=True,
        write_page_checksum=True,
        data_page_version="1.0",
    )


class _Scratch(threading.local):
    """Buffers a writer thread reuses from part to part (fresh pages cost: buffers.py)."""

    def __init__(self) -> None:
        self._out: pa.Buffer | None = None
        self._depths = np.empty(0, np.uint8)
        self._words = np.zeros((0, 2), np.uint64)

    def output(self, size: int) -> pa.Buffer:
        """A buffer of at least ``size`` bytes starting on a page (files.replace's
        ``direct`` needs it so)."""
        if self._out is None or self._out.size < size:
            raw = np.empty(size + files.DIRECT_ALIGN, np.uint8)
            skip = -raw.ctypes.data % files.DIRECT_ALIGN
            self._out = pa.py_buffer(raw[skip : skip + size])
        return self._out

    def depths(self, n: int, depth: int) -> np.ndarray:
        """The depth column of ``n`` rows; TooBig past the format's last depth (uint8)."""
        if n and depth > MAX_DEPTH:
            raise TooBig(f"positions at depth {depth}: the depth column holds 0..{MAX_DEPTH}")
        if len(self._depths) < n:
            self._depths = np.empty(n, np.uint8)
        out = self._depths[:n]
        out.fill(min(depth, MAX_DEPTH))  # an empty level past the last depth: no rows
        return out

    def decimals(self, counts: np.ndarray) -> pa.Array:
        """Path counts (uint64) as the DECIMAL(38,0) column, its 16-byte little-endian
        values written directly: a count's low word and a zero (Arrow's cast from
        uint64 took 46 to 51 ns a row, this about 1)."""
        n = len(counts)
        if len(self._words) < n:
            self._words = np.zeros((n, 2), np.uint64)  # the high words stay zero
        self._words[:n, 0] = counts
        return pa.Array.from_buffers(PATHS.type, n, [None, pa.py_buffer(self._words[:n])])


_scratch = _Scratch()


def write_part(
    directory: Path,
    depth: int,
    part: int,
    states: np.ndarray,
    parents: np.ndarray,
    metadata: dict[str, str],
    paths: np.ndarray | None = None,
    extra: Extra | None = None,
) -> EntryDoc:
    """Write part ``part`` of a level (sorted states, their parents); return its entry.

    The bytes depend only on the arguments, so a level cut into the same parts
    gives the same files however it was computed. ``paths`` adds the optional
    path-count column. The format's three columns are written by storage/pages.py,
    a table with more columns (or an empty part) by Arrow's writer.
    """
    n = len(states)
    # Only roots have no parent (NO_PARENT is the largest uint64), and only at depth 0:
    # no mask otherwise (nor a pass over the parents to look for one).
    roots = parents == NO_PARENT if depth == 0 and n and parents.max() == NO_PARENT else None
    kv = {**metadata, "puzzledb.depth": str(depth)}
    orbits = None
    if n and paths is None and extra is None:
        data = _pages(states, _scratch.depths(n, depth), parents, roots, kv)
    else:
        data, orbits = _arrow(states, _scratch.depths(n, depth), parents, roots, kv, paths, extra)
    entry = _finish(directory, depth, part, states, data)
    return entry if orbits is None else {**entry, ORBITS: orbits}


def _pages(
    states: np.ndarray,
    depths: np.ndarray,
    parents: np.ndarray,
    roots: np.ndarray | None,
    kv: dict[str, str],
) -> pa.Buffer:
    """The file's bytes, by storage/pages.py, in this thread's output buffer."""
    cols = [
        pages.Column("state", states),
        pages.Column("depth", depths),
        pages.Column("parent", parents, optional=True, nulls=roots),
    ]
    schema = SCHEMA.with_metadata(kv)
    buffer = _scratch.output(len(states) * (8 + 4 + 8) * 21 // 20 + (1 << 20))
    try:
        return buffer.slice(0, pages.write(cols, schema, _filler(buffer)))
    except OSError:  # a buffer too small (the one above never is): one that grows
        grown = bytearray()
        pages.write(cols, schema, grown.extend)
        return pa.py_buffer(grown)


def _arrow(
    states: np.ndarray,
    depths: np.ndarray,
    parents: np.ndarray,
    roots: np.ndarray | None,
    kv: dict[str, str],
    paths: np.ndarray | None,
    extra: Extra | None,
) -> tuple[pa.Buffer, int | None]:
    """The file's bytes by Arrow's writer, and its orbit sum (with ``class_size``)."""
    columns: dict[str, pa.Array] = {
        "state": pa.array(states, pa.uint64()),
        "depth": pa.array(depths, pa.uint8()),
        "parent": pa.array(parents, pa.uint64(), mask=roots),
    }
    schema = SCHEMA
    if paths is not None:
        columns["paths"] = _scratch.decimals(paths)
        schema = SCHEMA_WITH_PATHS
    orbits = None
    if extra is not None:  # a puzzle's own columns, computed from the states (class_size)
        schema, orbits = _extra_columns(extra, states, columns, schema)
    table = pa.table(columns, schema=schema.with_metadata(kv))
    # Into this thread's output buffer, large enough for the columns uncompressed
    # (should a file ever come out larger, into a buffer that grows).
    room = len(states) * (8 + 1 + 8 + (16 if paths is not None else 0) + 8 * bool(extra))
    room = room * 21 // 20 + (1 << 20)
    try:
        sink = pa.FixedSizeBufferWriter(_scratch.output(room))
        _write_table(table, sink)
        return _scratch.output(room).slice(0, sink.tell()), orbits
    except OSError:
        stream = pa.BufferOutputStream()
        _write_table(table, stream)
        return stream.getvalue(), orbits


def _finish(
    directory: Path, depth: int, part: int, states: np.ndarray, data: pa.Buffer
) -> EntryDoc:
    """Put a part's bytes in place; its manifest entry."""
    n = len(states)
    name = level_file_name(depth, part)
    path = directory / name
    files.replace(path, data, direct=True)
    return {
        "name": name,
        "depth": depth,
        "rows": n,
        "bytes": data.size,
        "sha256": hashlib.sha256(data).hexdigest(),
        "footer_sha256": footer_sha256(data),
        "chunk_sha256": chunk_sha256(data),
        "min_state": int(states[0]) if n else None,
        "max_state": int(states[-1]) if n else None,
    }


def _filler(buffer: pa.Buffer) -> Callable[[bytes], None]:
    """A function that appends bytes to ``buffer``; OSError when it is full."""
    array, at = np.frombuffer(buffer, np.uint8), 0

    def append(piece: bytes) -> None:
        nonlocal at
        if at + len(piece) > len(array):
            raise OSError("the output buffer is full")
        array[at : at + len(piece)] = np.frombuffer(piece, np.uint8)
        at += len(piece)

    return append


def _extra_columns(
    extra: Extra, states: np.ndarray, columns: dict[str, pa.Array], schema: pa.Schema
) -> tuple[pa.Schema, int | None]:
    """Add a puzzle's own columns to ``columns``; the schema with them, and the sum of
    the class sizes when they hold them (the level's orbit sum: the build loop
    adds up its parts' into the manifest)."""
    fields, of = extra
    orbits = None
    for f, (name, values) in zip(fields, of(states).items(), strict=True):
        columns[name] = pa.array(values, f.type)
        schema = schema.append(f)
        if name == CLASS_SIZE:
            orbits = int(values.sum(dtype=np.int64))
    return schema, orbits


class LevelWriter:
    """Writes one level handed over in sorted runs, cut into the parts write_level makes.

    Runs arrive in increasing state order (one per bucket); full parts of
    ``FILE_ROWS`` rows go to ``submit`` (a background thread) as soon as they
    fill, so the files are the same bytes whatever the runs were. At most
    ``pending`` parts wait for the writer at a time, which bounds the memory
    (None: no bound, for a caller that keeps the runs anyway; a part within
    one run is a view of it).
    """

    def __init__(
        self,
        directory: Path,
        depth: int,
        metadata: dict[str, str],
        submit: Callable[..., Future[EntryDoc]] | None = None,
        pending: int | None = 2,
        extra: Extra | None = None,
    ) -> None:
        self.directory = directory
        #: (fields, function of the states giving their columns), or None.
        self.extra = extra
        self.depth = depth
        self.metadata = metadata
        self._submit = submit
        self._pending = pending
        self._futures: list[Future[EntryDoc]] = []
        self._entries: list[EntryDoc] = []
        self._buf: list[tuple[np.ndarray, ...]] = []  # runs of (states, parents[, paths])
        self._buffered = 0
        self._part = 0
        self._finished = False
        self.rows = 0
        self.seconds = 0.0  # time spent waiting for the writer (what it cost the caller)
        #: Called with a part's columns once it is written, when the part was a whole
        #: run the writer held alone (the caller's pooled buffers: build/resident.py Output).
        self.recycle: Callable[..., None] | None = None

    def add(self, states: np.ndarray, parents: np.ndarray, paths: np.ndarray | None = None) -> None:
        """Append a sorted run (states above every state added before)."""
        if not len(states):
            return
        self._buf.append((states, parents) if paths is None else (states, parents, paths))
        self._buffered += len(states)
        self.rows += len(states)
        while self._buffered >= FILE_ROWS:
            self._flush(FILE_ROWS)

    def _flush(self, rows: int) -> None:
        # A part inside one run is a view of it; only a part across runs is a copy.
        first = self._buf[0]
        if len(first[0]) >= rows:
            cols = list(first)
            self._buf = [tuple(c[rows:] for c in first), *self._buf[1:]]
        else:
            runs = zip(*self._buf, strict=True)
            cols = [np.concatenate(c) for c in runs]
            self._buf = [tuple(c[rows:] for c in cols)]
        if not len(self._buf[0][0]):
            self._buf.pop(0)
        self._buffered -= rows
        paths = cols[2][:rows] if len(cols) > 2 else None
        args = (self.directory, self.depth, self._part, cols[0][:rows], cols[1][:rows])
        self._part += 1
        # Recycled only when no run left in the buffer may share the part's memory.
        done = self.recycle if self.recycle is not None and not self._buf else None
        clock = time.perf_counter()
        if self._submit is None:
            self._entries.append(write_part(*args, self.metadata, paths, self.extra))
            if done is not None:
                done(*cols)
        else:
            while self._pending is not None and len(self._futures) >= self._pending:
                self._entries.append(self._futures.pop(0).result())
            future = self._submit(write_part, *args, self.metadata, paths, self.extra)
            if done is not None:
                give = functools.partial(done, *cols)
                future.add_done_callback(lambda _: give())
            self._futures.append(future)
        self.seconds += time.perf_counter() - clock

    def finish(self) -> None:
        """Hand over what is left (an empty level still gets its one empty part)."""
        if self._finished:
            return
        self._finished = True
        if self._buffered or self._part == 0:
            if not self._buf:
                self._buf = [(np.empty(0, np.uint64), np.empty(0, np.uint64))]
            self._flush(self._buffered)

    def done(self) -> bool:
        """Whether every part handed over is written (never blocks)."""
        return all(f.done() for f in self._futures)

    def close(self) -> list[EntryDoc]:
        """Finish, wait for the writer and return the parts' manifest entries."""
        self.finish()
        clock = time.perf_counter()
        while self._futures:
            self._entries.append(self._futures.pop(0).result())
        self.seconds += time.perf_counter() - clock
        return self._entries
