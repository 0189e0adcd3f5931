"""A pattern table's depths as the array the twisty search reads, derived from its Parquet
files and kept beside them.

The array is indexed by the table's state (its coordinate: twisty_patterns.py)
and holds each state's depth in one of three ways (twisty_c's formats): a
byte; 4 bits (two states a byte, the first in the low half; 15 where no
state is); or the depth mod 3 in 2 bits (four a byte, the first lowest; 3
where no state is), which the search turns back into depths because a move
changes a pattern's depth by at most one. It is kept as
``<table>/_depths-<format>.npy`` on storage/derived.py's terms (used only
while this machine's record says it wrote it from the files the manifest
lists now) and memory-mapped: processes share its pages, none copies it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from pipeline.errors import CorruptTable
from pipeline.solvers import twisty_c
from pipeline.solvers.twisty_patterns import PatternCode
from pipeline.storage import derived, integrity
from pipeline.storage.table import Table

FORMATS = {"byte": twisty_c.BYTE, "nibble": twisty_c.NIBBLE, "mod3": twisty_c.MOD3}
#: States a value byte holds in each format.
PER_BYTE = {twisty_c.BYTE: 1, twisty_c.NIBBLE: 2, twisty_c.MOD3: 4}
#: Rows read at a time from a level's files.
CHUNK_ROWS = 1 << 22
UNSEEN = 255


def packed_size(code: PatternCode, fmt: int) -> int:
    return -(-code.size // PER_BYTE[fmt])


def file_name(fmt: int) -> str:
    """The array's name in its table's folder (one of storage/derived.py's TABLE_ARRAYS,
    which verify takes for the table's own)."""
    return f"_depths-{next(k for k, v in FORMATS.items() if v == fmt)}.npy"


def fits(fmt: int, max_depth: int) -> bool:
    """Whether a table this deep can be held in the format (4 bits: up to 14)."""
    return fmt != twisty_c.NIBBLE or max_depth <= 14


def depths(levels: Iterable[tuple[int, np.ndarray]], size: int) -> np.ndarray:
    """A byte a state (UNSEEN where no row is) from ``(depth, states)`` chunks."""
    out = np.full(size, UNSEEN, np.uint8)
    for depth, states in levels:
        states = np.asarray(states, np.uint64)
        if len(states) and int(states.max()) >= size:
            raise CorruptTable(f"a state of depth {depth} is past the pattern's {size:,}")
        out[states.astype(np.intp)] = depth
    return out


def pack(values: np.ndarray, fmt: int) -> np.ndarray:
    """The byte-a-state depths in ``fmt``."""
    if fmt == twisty_c.BYTE:
        return values
    per = PER_BYTE[fmt]
    padded = np.full(-(-len(values) // per) * per, UNSEEN, np.uint8)
    padded[: len(values)] = values
    if fmt == twisty_c.NIBBLE:
        v = np.where(padded == UNSEEN, 15, np.minimum(padded, 14)).astype(np.uint8)
        return (v[0::2] | (v[1::2] << 4)).astype(np.uint8)
    v = np.where(padded == UNSEEN, 3, padded % 3).astype(np.uint8)
    return (v[0::4] | (v[1::4] << 2) | (v[2::4] << 4) | (v[3::4] << 6)).astype(np.uint8)


def table_levels(table: Table) -> Iterator[tuple[int, np.ndarray]]:
    """``(depth, states)`` chunks of a built table, level by level."""
    for lv in table.manifest.levels:
        for chunk in table.level(lv.depth).chunks(CHUNK_ROWS):
            yield lv.depth, chunk[0]


def load(table: Table, code: PatternCode, fmt: int) -> np.ndarray:
    """The table's array in ``fmt``, mapped: the one kept beside it when this machine
    derived it from the files its manifest lists now, else derived again and kept
    (mapped too when the folder can keep it)."""
    directory = Path(table.directory)
    if not fits(fmt, table.manifest.max_depth):
        raise ValueError(f"{table.name}: {table.manifest.max_depth} moves deep, past 4 bits")
    states = table.manifest.puzzle.get("states")
    if states != code.size:
        raise CorruptTable(
            f"{table.name}: {states} states, where its pattern has {code.size:,} coordinates"
        )
    size = packed_size(code, fmt)
    name = file_name(fmt)
    sources = integrity.source_key(f"twisty-depths-1 {fmt} {code!r}", [table.manifest])
    arr = derived.load(directory, name, sources, size, mmap=True)
    if arr is not None:
        return arr
    integrity.check_table(directory, table.manifest)  # derived only from checked files
    arr = pack(depths(table_levels(table), code.size), fmt)
    derived.keep(directory, name, arr, sources)
    kept = derived.load(directory, name, sources, size, mmap=True)
    return arr if kept is None else kept
