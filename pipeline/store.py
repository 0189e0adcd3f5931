"""Parquet level files and manifests: the public data contract on disk.

A table lives in ``<data>/<name>/``: Parquet files ``dDDD-PPP.parquet`` (depth,
part), each sorted by state with columns ``state`` uint64, ``depth`` uint8,
``parent`` uint64 (null at the roots), zstd, plain encoding, row groups of
``ROW_GROUP_ROWS``, key-value metadata naming the table, puzzle, encoding and
format version; and ``_manifest.json``, written last. A file appears complete or
not at all (written aside, then renamed).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.bfs import NO_PARENT, Level
from pipeline.errors import CorruptTable, NotBuilt

#: Raised whenever the layout, the columns or an encoding changes meaning.
FORMAT_VERSION = 1
#: A point look-up reads one row group: small enough to be quick, large
#: enough to compress well (measured on 3x4: 262,144 rows, 2.6 ms a look-up).
ROW_GROUP_ROWS = 262_144
#: A level larger than this is split into several files (parts).
FILE_ROWS = 16 * ROW_GROUP_ROWS
ZSTD_LEVEL = 2
MANIFEST = "_manifest.json"

SCHEMA = pa.schema(
    [
        pa.field("state", pa.uint64(), nullable=False),
        pa.field("depth", pa.uint8(), nullable=False),
        pa.field("parent", pa.uint64(), nullable=True),
    ]
)
#: The optional path-count column: exact in every reader, and sums of it stay
#: exact in SQL (DuckDB sums DECIMAL(38,0) as a 128-bit integer).
PATHS = pa.field("paths", pa.decimal128(38, 0), nullable=False)
SCHEMA_WITH_PATHS = SCHEMA.append(PATHS)


def level_file_name(depth: int, part: int) -> str:
    return f"d{depth:03d}-{part:03d}.parquet"


def write_json_atomic(path: Path, doc: dict[str, Any], indent: int | None = 1) -> None:
    """Write JSON so that readers see the old file or the new one, never half.

    ``indent=None`` writes it on one line with the C encoder, several times
    quicker (Python's indenting encoder cost a 2x5 build 0.25 s in 57 writes
    of its progress file).
    """
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(json.dumps(doc, indent=indent))
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_level(directory: Path, level: Level, metadata: dict[str, str]) -> list[dict[str, Any]]:
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
            None if level.paths is None else level.paths[part * FILE_ROWS : (part + 1) * FILE_ROWS],
        )
        for part in range(parts)
    ]


def _write_table(table: pa.Table, sink: Any) -> None:
    pq.write_table(
        table,
        sink,
        row_group_size=ROW_GROUP_ROWS,
        compression="zstd",
        compression_level=ZSTD_LEVEL,
        use_dictionary=False,
        write_statistics=True,
        data_page_version="1.0",
    )


class _Scratch(threading.local):
    """Buffers a writer thread reuses from part to part (fresh pages cost: buffers.py)."""

    def __init__(self) -> None:
        self._out: pa.Buffer | None = None
        self._depths = np.empty(0, np.uint8)

    def output(self, size: int) -> pa.Buffer:
        if self._out is None or self._out.size < size:
            self._out = pa.allocate_buffer(size)
        return self._out

    def depths(self, n: int, depth: int) -> np.ndarray:
        if len(self._depths) < n:
            self._depths = np.empty(n, np.uint8)
        out = self._depths[:n]
        out.fill(depth)
        return out


_scratch = _Scratch()


def write_part(
    directory: Path,
    depth: int,
    part: int,
    states: np.ndarray,
    parents: np.ndarray,
    metadata: dict[str, str],
    paths: np.ndarray | None = None,
) -> dict[str, Any]:
    """Write part ``part`` of a level (sorted states, their parents); return its entry.

    The bytes depend only on the arguments, so a level cut into the same parts
    gives the same files however it was computed. ``paths`` adds the optional
    path-count column.
    """
    n = len(states)
    # Only roots have no parent (NO_PARENT is the largest uint64): no mask otherwise.
    roots = parents == NO_PARENT if n and parents.max() == NO_PARENT else None
    columns = {
        "state": pa.array(states, pa.uint64()),
        "depth": pa.array(_scratch.depths(n, depth), pa.uint8()),
        "parent": pa.array(parents, pa.uint64(), mask=roots),
    }
    schema = SCHEMA
    if paths is not None:
        columns["paths"] = pa.array(paths, pa.uint64()).cast(PATHS.type)
        schema = SCHEMA_WITH_PATHS
    table = pa.table(
        columns, schema=schema.with_metadata({**metadata, "puzzledb.depth": str(depth)})
    )
    # Into this thread's output buffer, large enough for the columns uncompressed
    # (should a file ever come out larger, into a buffer that grows).
    room = n * (8 + 1 + 8 + (16 if paths is not None else 0)) * 21 // 20 + (1 << 20)
    try:
        sink = pa.FixedSizeBufferWriter(_scratch.output(room))
        _write_table(table, sink)
        data = _scratch.output(room).slice(0, sink.tell())
    except OSError:
        stream = pa.BufferOutputStream()
        _write_table(table, stream)
        data = stream.getvalue()
    del table
    name = level_file_name(depth, part)
    path = directory / name
    tmp = path.with_name(name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return {
        "name": name,
        "depth": depth,
        "rows": n,
        "bytes": data.size,
        "sha256": hashlib.sha256(data).hexdigest(),
        "min_state": int(states[0]) if n else None,
        "max_state": int(states[-1]) if n else None,
    }


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
        submit: Any = None,
        pending: int | None = 2,
    ) -> None:
        self.directory = directory
        self.depth = depth
        self.metadata = metadata
        self._submit = submit
        self._pending = pending
        self._futures: list[Any] = []
        self._entries: list[dict[str, Any]] = []
        self._buf: list[tuple[np.ndarray, ...]] = []  # runs of (states, parents[, paths])
        self._buffered = 0
        self._part = 0
        self._finished = False
        self.rows = 0
        self.seconds = 0.0  # time spent waiting for the writer (what it cost the caller)

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
        clock = time.perf_counter()
        if self._submit is None:
            self._entries.append(write_part(*args, self.metadata, paths))
        else:
            while self._pending is not None and len(self._futures) >= self._pending:
                self._entries.append(self._futures.pop(0).result())
            self._futures.append(self._submit(write_part, *args, self.metadata, paths))
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

    def close(self) -> list[dict[str, Any]]:
        """Finish, wait for the writer and return the parts' manifest entries."""
        self.finish()
        clock = time.perf_counter()
        while self._futures:
            self._entries.append(self._futures.pop(0).result())
        self.seconds += time.perf_counter() - clock
        return self._entries


def read_states_between(
    directory: Path, entries: list[dict[str, Any]], lo: int, hi: int
) -> np.ndarray:
    """The states in ``[lo, hi)`` of one level's files (sorted), reading only the
    row groups whose statistics overlap the range."""
    out: list[np.ndarray] = []
    for entry in entries:
        if not entry["rows"] or entry["max_state"] < lo or entry["min_state"] >= hi:
            continue
        pf = pq.ParquetFile(directory / entry["name"])
        md = pf.metadata
        col = md.schema.names.index("state")
        groups = []
        for i in range(md.num_row_groups):
            st = md.row_group(i).column(col).statistics
            if int(st.max) >= lo and int(st.min) < hi:
                groups.append(i)
        if not groups:
            continue
        s = _u64(pf.read_row_groups(groups, columns=["state"]).column("state"))
        a = np.searchsorted(s, np.uint64(lo))
        b = np.searchsorted(s, np.uint64(hi)) if hi <= int(NO_PARENT) else len(s)
        out.append(s[a:b].copy() if b - a < len(s) else s)
    if not out:
        return np.empty(0, np.uint64)
    return out[0] if len(out) == 1 else np.concatenate(out)


def iter_columns(
    directory: Path, entries: list[dict[str, Any]], rows: int, columns: list[str]
) -> Iterator[dict[str, np.ndarray]]:
    """Some columns of one level's files in order, as uint64 arrays, in chunks of
    about ``rows`` (whole row groups). Null parents come back as NO_PARENT; path
    counts as uint64 (the build keeps each count within 64 bits)."""
    for entry in entries:
        if not entry["rows"]:
            continue
        pf = pq.ParquetFile(directory / entry["name"])
        per = max(1, rows // max(1, pf.metadata.row_group(0).num_rows))
        n = pf.metadata.num_row_groups
        for i in range(0, n, per):
            t = pf.read_row_groups(list(range(i, min(n, i + per))), columns=columns)
            yield {c: _u64(_as_u64(t.column(c))) for c in columns}


def _as_u64(column: pa.ChunkedArray) -> pa.ChunkedArray:
    return column.cast(pa.uint64()) if column.type != pa.uint64() else column


def read_level_file(path: Path) -> Level:
    """A whole level file as arrays (parents of roots become NO_PARENT)."""
    try:
        t = pq.read_table(path)
    except (OSError, pa.ArrowException) as e:
        raise CorruptTable(f"{path} cannot be read ({_first_line(e)})") from None
    depth = int(t.column("depth")[0].as_py()) if t.num_rows else -1
    paths = None
    if "paths" in t.column_names:
        paths = _u64(_as_u64(t.column("paths")))
    return Level(depth, _u64(t.column("state")), _u64(t.column("parent")), paths)


def _u64(column: pa.ChunkedArray) -> np.ndarray:
    """A uint64 column as numpy, nulls as NO_PARENT, straight from the Arrow buffers.

    (``fill_null`` would do it too, but importing pyarrow.compute costs a
    solve command 0.2 s.)
    """
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


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


@dataclass(frozen=True)
class Hit:
    """Where a state sits in a table."""

    state: int
    depth: int
    parent: int | None


class Table:
    """A complete table on disk, opened from its manifest, for point look-ups.

    Opening reads only the manifest; a file's footer is read the first time a
    look-up needs it, and the row groups last read are kept (a walk to the root
    touches one row group a depth, often the same ones again).
    """

    def __init__(self, directory: Path, cache_row_groups: int = 128) -> None:
        self.directory = directory
        self.name = directory.name
        path = directory / MANIFEST
        if not path.exists():
            raise NotBuilt(f"{self.name} is not built yet: run `puzzledb build {self.name}`")
        try:
            self.manifest: dict[str, Any] = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise CorruptTable(f"{path} cannot be read ({_first_line(e)})") from None
        if self.manifest.get("format_version") != FORMAT_VERSION:
            raise CorruptTable(
                f"{self.name} has format version {self.manifest.get('format_version')}, "
                f"this puzzledb reads {FORMAT_VERSION}: rebuild with "
                f"`puzzledb build {self.name} --force`"
            )
        self.files: list[dict[str, Any]] = self.manifest["files"]
        self._footers: dict[str, tuple[pq.ParquetFile, list[int]]] = {}
        self._groups: OrderedDict[tuple[str, int, str], np.ndarray] = OrderedDict()
        self._cache = cache_row_groups

    @property
    def max_depth(self) -> int:
        return int(self.manifest["max_depth"])

    def histogram(self) -> list[tuple[int, int]]:
        return [(lv["depth"], lv["positions"]) for lv in self.manifest["levels"]]

    def files_at(self, depth: int) -> list[dict[str, Any]]:
        return [f for f in self.files if f["depth"] == depth]

    def path(self, entry: dict[str, Any]) -> Path:
        return self.directory / entry["name"]

    def check_sizes(self) -> None:
        """Cheap damage check: every file present with the size the manifest says."""
        for entry in self.files:
            p = self.path(entry)
            try:
                size = p.stat().st_size
            except FileNotFoundError:
                raise CorruptTable(
                    f"{p} is missing: rebuild with `puzzledb build {self.name} --force`"
                ) from None
            if size != entry["bytes"]:
                raise CorruptTable(
                    f"{p} has {size} bytes, the manifest says {entry['bytes']}: "
                    f"rebuild with `puzzledb build {self.name} --force`"
                )

    def _footer(self, entry: dict[str, Any]) -> tuple[pq.ParquetFile, list[int]]:
        name = entry["name"]
        if name not in self._footers:
            p = self.path(entry)
            try:
                pf = pq.ParquetFile(p)
                md = pf.metadata
                col = md.schema.names.index("state")
                mins = [
                    int(md.row_group(i).column(col).statistics.min)
                    for i in range(md.num_row_groups)
                ]
            except (OSError, pa.ArrowException, AttributeError) as e:
                raise CorruptTable(
                    f"{p} cannot be read ({_first_line(e)}): "
                    f"rebuild with `puzzledb build {self.name} --force`"
                ) from None
            self._footers[name] = (pf, mins)
        return self._footers[name]

    def _column(self, entry: dict[str, Any], i: int, column: str) -> np.ndarray:
        """One column of one row group (cached): probes read states, hits parents."""
        key = (entry["name"], i, column)
        hit = self._groups.get(key)
        if hit is not None:
            self._groups.move_to_end(key)
            return hit
        pf, _ = self._footer(entry)
        try:
            t = pf.read_row_group(i, columns=[column])
        except (OSError, pa.ArrowException) as e:
            raise CorruptTable(
                f"{self.path(entry)} cannot be read ({_first_line(e)}): "
                f"rebuild with `puzzledb build {self.name} --force`"
            ) from None
        values = _u64(t.column(0))
        self._groups[key] = values
        if len(self._groups) > self._cache:
            self._groups.popitem(last=False)
        return values

    def find_at(self, state: int, depth: int) -> Hit | None:
        """The row of ``state`` at ``depth``, reading at most one row group a file."""
        for entry in self.files_at(depth):
            if entry["rows"] == 0 or not entry["min_state"] <= state <= entry["max_state"]:
                continue
            _, mins = self._footer(entry)
            i = bisect.bisect_right(mins, state) - 1
            states = self._column(entry, i, "state")
            k = int(np.searchsorted(states, np.uint64(state)))
            if k < len(states) and int(states[k]) == state:
                parent = int(self._column(entry, i, "parent")[k])
                return Hit(state, depth, None if parent == int(NO_PARENT) else parent)
        return None

    def find(self, state: int, parity: int | None = None) -> Hit | None:
        """The row of ``state`` at whatever depth it sits, or None.

        The largest levels are probed first; a known depth ``parity`` (bipartite
        graphs: the puzzle's depth_parity) skips half of them.
        """
        depths = [
            d
            for d, _ in sorted(self.histogram(), key=lambda dn: -dn[1])
            if parity is None or d % 2 == parity
        ]
        for depth in depths:
            hit = self.find_at(state, depth)
            if hit is not None:
                return hit
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
                    f"run `puzzledb verify {self.name}`"
                )
            hit = nxt
            rows.append(hit)
            if len(rows) > len(self.files) * FILE_ROWS + 1:
                raise CorruptTable(f"{self.name}: parents form a cycle")
        return rows

    def levels(self) -> Iterator[Level]:
        """Every level, depth 0 first, one at a time (for verification)."""
        for lv in self.manifest["levels"]:
            parts = [read_level_file(self.path(f)) for f in self.files_at(lv["depth"])]
            yield join_parts(lv["depth"], parts)

    @property
    def has_paths(self) -> bool:
        return "paths" in self.manifest.get("columns", {})


def join_parts(depth: int, parts: list[Level]) -> Level:
    """The parts of one level (files in state order) as one level."""
    if len(parts) == 1:
        return Level(depth, parts[0].states, parts[0].parents, parts[0].paths)
    paths = None
    if parts and parts[0].paths is not None:
        paths = np.concatenate([p.paths for p in parts])  # type: ignore[misc]
    return Level(
        depth,
        np.concatenate([p.states for p in parts]),
        np.concatenate([p.parents for p in parts]),
        paths,
    )


def checksum(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()
