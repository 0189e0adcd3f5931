"""A level file's Parquet bytes, written here rather than by Arrow's writer: for zstd.

Arrow passes zstd a level only: level 2 is its double-fast match finder, with
a context made anew for each page of 20,000 rows. Sorted states and their
parents compress in less CPU with the fast finder, 4-byte matches, a 64 KiB
window and a small hash table, one context a thread: 3x4's columns in about
18% less, to the same bytes. Some parents (the peg boards') come out 6%
larger so, and keep the double-fast finder: each part's column tries both on
the start of its first page (docs/BENCHMARKS.md, "Our own Parquet pages").

The files are the format's as before: the same schema and key-value metadata
(with Arrow's serialized schema), PLAIN data pages (v1) compressed by zstd,
row groups of ``ROW_GROUP_ROWS``, min/max statistics on every page and column
chunk, a CRC32 on every page. Any Parquet reader reads them; only the zstd
frames inside differ. The bytes depend only on the rows.
"""

from __future__ import annotations

import base64
import itertools
import struct
import threading
import zlib
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import pyarrow as pa
import zstandard

from pipeline.storage import thrift as t
from pipeline.storage.format import ROW_GROUP_ROWS

#: Rows of a data page: 1 MiB of uint64, which stays in a core's cache while its
#: statistics, its zstd frame and its CRC are made.
PAGE_ROWS = 1 << 17
#: zstd's two ways (measured on 3x4 and english33: docs/BENCHMARKS.md).
FAST = dict(strategy=zstandard.STRATEGY_FAST, window_log=16, hash_log=11, min_match=4)
DOUBLE = dict(
    strategy=zstandard.STRATEGY_DFAST, window_log=16, hash_log=11, chain_log=10, min_match=4
)
#: A column of a part is compressed FAST unless the first PROBE bytes of its first
#: page come out larger so by more than MARGIN.
MARGIN = 0.03
PROBE = 1 << 17
CREATED_BY = "puzzledb version 1 (Parquet pages of its own, zstd)"

# Parquet's enums (parquet.thrift).
_INT32, _INT64 = 1, 2
_REQUIRED, _OPTIONAL = 0, 1
_UINT_8, _UINT_64 = 11, 14
_PLAIN, _RLE, _ZSTD, _DATA_PAGE = 0, 3, 6, 0


class Column:
    """One column to write: its name, its values (uint64, or uint8 stored as INT32),
    whether it may hold nulls, and which rows are null (their values not written).
    Anything else (another type, nulls on a required column) is refused: the file
    would say otherwise than its bytes."""

    def __init__(
        self, name: str, values: np.ndarray, optional: bool = False, nulls: np.ndarray | None = None
    ) -> None:
        if values.dtype not in (np.uint64, np.uint8):
            raise ValueError(f"column {name}: uint64 or uint8 values, not {values.dtype}")
        if nulls is not None and (not optional or nulls.shape != values.shape):
            raise ValueError(f"column {name}: nulls go with optional=True, one a value")
        self.name = name
        self.values = values
        self.optional = optional
        self.nulls = nulls
        self.bits = values.dtype.itemsize * 8
        self.physical = _INT64 if self.bits == 64 else _INT32
        #: The zstd context of this column's pages (chosen on the first page).
        self.zstd: zstandard.ZstdCompressor | None = None

    def schema_element(self) -> t.Struct:
        return {
            1: t.i32(self.physical),
            3: t.i32(_OPTIONAL if self.optional else _REQUIRED),
            4: t.binary(self.name),
            6: t.i32(_UINT_64 if self.bits == 64 else _UINT_8),
            10: {10: {1: t.i8(self.bits), 2: t.boolean(False)}},
        }

    def frame(self, body: np.ndarray) -> bytes:
        """``body`` compressed; the first page's first :data:`PROBE` bytes choose the
        way for the column."""
        if self.zstd is None:
            probe = body[:PROBE]
            data = probe.data
            fast, double = _contexts.fast.compress(data), _contexts.double.compress(data)
            slow = len(fast) > len(double) * (1 + MARGIN)
            self.zstd = _contexts.double if slow else _contexts.fast
            if len(probe) == len(body):
                return double if slow else fast
        return self.zstd.compress(body.data)


class _Contexts(threading.local):
    """A thread's zstd contexts, and its buffer for a page with definition levels."""

    def __init__(self) -> None:
        self.fast = zstandard.ZstdCompressor(
            compression_params=zstandard.ZstdCompressionParameters(**FAST)
        )
        self.double = zstandard.ZstdCompressor(
            compression_params=zstandard.ZstdCompressionParameters(**DOUBLE)
        )
        self.page = np.empty(0, np.uint8)

    def joined(self, levels: bytes, values: np.ndarray) -> np.ndarray:
        """``levels`` then ``values``, in one buffer (zstd takes one)."""
        k, n = len(levels), len(levels) + len(values)
        if len(self.page) < n:
            self.page = np.empty(n + 4096, np.uint8)
        self.page[:k] = np.frombuffer(levels, np.uint8)
        self.page[k:n] = values
        return self.page[:n]


_contexts = _Contexts()


def write(columns: list[Column], schema: pa.Schema, out: Callable[[bytes], None]) -> int:
    """Write a Parquet file of ``columns`` (equal lengths, at least one row) through
    ``out``; return its size. ``schema`` is the Arrow schema Arrow's readers restore;
    its metadata is also the file's key-value metadata."""
    n = len(columns[0].values)
    out(b"PAR1")
    pos = 4
    groups = []
    for lo in range(0, n, ROW_GROUP_ROWS):
        hi = min(n, lo + ROW_GROUP_ROWS)
        chunks = []
        for c in columns:
            chunk, pieces = _column_chunk(c, lo, hi, pos)
            for piece in pieces:
                out(piece)
                pos += len(piece)
            chunks.append(chunk)
        groups.append(_row_group(chunks, hi - lo))
    footer = t.encode(_file_metadata(columns, groups, n, schema))
    out(footer)
    out(struct.pack("<I", len(footer)) + b"PAR1")
    return pos + len(footer) + 8


def _column_chunk(c: Column, lo: int, hi: int, pos: int) -> tuple[dict, list[bytes]]:
    """A column chunk's pages (each header and frame) and its metadata, from ``pos``."""
    pieces: list[bytes] = []
    raw = packed = nulls = 0
    lows, highs = [], []
    for a in range(lo, hi, PAGE_ROWS):
        header, frame, size, (low, high, k) = _page(c, a, min(hi, a + PAGE_ROWS))
        pieces += [header, frame]
        raw += len(header) + size
        packed += len(header) + len(frame)
        nulls += k
        if low is not None:
            lows.append(low)
            highs.append(high)
    meta = {
        1: t.i32(c.physical),
        2: t.lst([t.i32(_RLE), t.i32(_PLAIN)]),
        3: t.lst([t.binary(c.name)]),
        4: t.i32(_ZSTD),
        5: t.i64(hi - lo),
        6: t.i64(raw),
        7: t.i64(packed),
        9: t.i64(pos),
        12: _statistics(c, min(lows, default=None), max(highs, default=None), nulls),
        13: t.lst([{1: t.i32(_DATA_PAGE), 2: t.i32(_PLAIN), 3: t.i32(len(pieces) // 2)}]),
    }
    return {2: t.i64(0), 3: meta}, pieces


def _page(c: Column, a: int, b: int) -> tuple[bytes, bytes, int, tuple]:
    """Data page of rows ``a .. b - 1``: its header, its zstd frame, its size before
    compression and its (min, max, null count)."""
    values, levels, nulls = c.values[a:b], b"", 0
    if c.nulls is not None:
        mask = c.nulls[a:b]
        nulls = int(np.count_nonzero(mask))
        levels = _definition_levels(mask)
        values = values[~mask] if nulls else values
    elif c.optional:
        levels = _all_defined(b - a)
    if c.bits == 8:
        size, frame = _small_values(values, levels)
    else:
        body = np.ascontiguousarray(values).view(np.uint8)
        size = len(levels) + len(body)
        frame = c.frame(_contexts.joined(levels, body) if levels else body)
    low, high = (int(values.min()), int(values.max())) if len(values) else (None, None)
    header = {
        1: t.i32(_DATA_PAGE),
        2: t.i32(size),
        3: t.i32(len(frame)),
        4: t.i32(_signed32(zlib.crc32(frame))),
        5: {
            1: t.i32(b - a),
            2: t.i32(_PLAIN),
            3: t.i32(_RLE),
            4: t.i32(_RLE),
            5: _statistics(c, low, high, nulls),
        },
    }
    return t.encode(header), frame, size, (low, high, nulls)


def _small_values(values: np.ndarray, levels: bytes) -> tuple[int, bytes]:
    """uint8 values as PLAIN INT32 after the page's definition levels (an optional
    column's), compressed; a page of one value and no levels (a level's depth) is
    compressed once for each length."""
    if not levels and len(values) and values[0] == values[-1] and (values == values[0]).all():
        return _constant_frame(int(values[0]), len(values))
    body = levels + values.astype("<u4").tobytes()
    return len(body), _contexts.fast.compress(body)


@lru_cache(maxsize=64)
def _constant_frame(value: int, rows: int) -> tuple[int, bytes]:
    return 4 * rows, _contexts.fast.compress(np.full(rows, value, "<u4").tobytes())


def _definition_levels(mask: np.ndarray) -> bytes:
    """The page's definition levels (1 a value, 0 a null) in runs, as v1 pages hold
    them: a 4-byte length, then each run as its length and its one-byte level."""
    cuts = np.flatnonzero(np.diff(mask.view(np.int8))) + 1
    edges = [0, *cuts.tolist(), len(mask)]
    out = bytearray()
    for x, y in itertools.pairwise(edges):
        t.varint(out, (y - x) << 1)
        out.append(0 if mask[x] else 1)
    return struct.pack("<I", len(out)) + bytes(out)


@lru_cache(maxsize=8)
def _all_defined(rows: int) -> bytes:
    return _definition_levels(np.zeros(rows, bool))


def _statistics(c: Column, low: int | None, high: int | None, nulls: int) -> dict:
    width = c.bits // 8 if c.bits == 64 else 4
    stats: dict = {3: t.i64(nulls)}
    if low is not None and high is not None:
        stats |= {
            5: t.binary(high.to_bytes(width, "little")),
            6: t.binary(low.to_bytes(width, "little")),
            7: t.boolean(True),
            8: t.boolean(True),
        }
    return stats


def _row_group(chunks: list[dict], rows: int) -> dict:
    return {
        1: t.lst(chunks),
        2: t.i64(sum(ch[3][6].value for ch in chunks)),
        3: t.i64(rows),
        5: t.i64(chunks[0][3][9].value),
        6: t.i64(sum(ch[3][7].value for ch in chunks)),
    }


def _file_metadata(columns: list[Column], groups: list[dict], n: int, schema: pa.Schema) -> dict:
    root = {4: t.binary("schema"), 5: t.i32(len(columns))}
    kv = [{1: t.binary(k), 2: t.binary(v)} for k, v in (schema.metadata or {}).items()]
    kv.append({1: t.binary("ARROW:schema"), 2: t.binary(arrow_schema(schema))})
    return {
        1: t.i32(2),
        2: t.lst([root, *(c.schema_element() for c in columns)]),
        3: t.i64(n),
        4: t.lst(groups),
        5: t.lst(kv),
        6: t.binary(CREATED_BY),
        7: t.lst([{1: {}} for _ in columns]),
    }


def arrow_schema(schema: pa.Schema) -> bytes:
    """The schema as Arrow's writer stores it (``ARROW:schema``): Arrow's readers
    restore the column types and the schema's metadata from it."""
    return base64.b64encode(schema.serialize().to_pybytes())


def _signed32(v: int) -> int:
    return v - (1 << 32) if v >= 1 << 31 else v
