"""The format of a table on disk (format version 2): names, schema, file layout.

A table lives in ``<data>/<name>/``: Parquet files ``dDDD-PPP.parquet`` (depth,
part), each sorted by state with columns ``state`` uint64, ``depth`` uint8,
``parent`` uint64 (null at the roots), zstd, plain encoding, row groups of
``ROW_GROUP_ROWS``, key-value metadata naming the table, puzzle, encoding and
format version; and ``_manifest.json``, written last. Changing any of this
raises ``FORMAT_VERSION``.
"""

from __future__ import annotations

import re

import pyarrow as pa

#: Raised whenever the layout, the columns or an encoding changes meaning. Version 2:
#: a twisty set's ``?`` pieces keep no orientation digit, and the manifest holds the
#: sha256 of every file's footer and column chunks (docs/DATA.md).
FORMAT_VERSION = 2
#: The versions this puzzledb reads (a puzzle told the version reads its states as
#: they were written: ``Puzzle.for_format``).
READ_VERSIONS = (1, 2)
#: The first version whose manifests hold the sha256 of every file's footer and column
#: chunks (checked as they are read: storage/reader.py); a file of an older one is hashed
#: whole before it is read.
CHUNKS_VERSION = 2
#: A point look-up reads one row group: small enough to be quick, large
#: enough to compress well (measured on 3x4: 262,144 rows, 2.6 ms a look-up).
ROW_GROUP_ROWS = 262_144
#: A level larger than this is split into several files (parts).
FILE_ROWS = 16 * ROW_GROUP_ROWS
#: zstd's level in the files Arrow's writer makes (tables with more columns than the
#: three: storage/writer.py); the three are compressed by storage/pages.py.
ZSTD_LEVEL = 2
MANIFEST = "_manifest.json"
#: A table or registry name: what may name a folder under the data folder.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9@._+~-]{0,99}")
FILE_NAME = re.compile(r"d(\d{3})-(\d{3})\.parquet")

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

#: What each column means, as the manifest records it.
COLUMNS = {
    "state": "uint64: the position, in the encoding above",
    "depth": "uint8: fewest moves from the roots",
    "parent": "uint64: the smallest state one move nearer the roots (null at the roots)",
}
PATHS_COLUMN = {"paths": "decimal(38,0): move sequences from the roots along shortest paths"}
#: The column of a table of symmetry classes: the positions each class stands for.
CLASS_SIZE = "class_size"
#: A level's key (optional, additive) in such a table's manifest: the sum of its
#: class sizes, the positions of the whole board at that depth (docs/DATA.md).
ORBITS = "orbit_positions"


def wrong_columns(schema: pa.Schema, paths: bool = False) -> list[str]:
    """How a file's columns depart from the format's (none when they do not): a file
    rewritten by another tool can keep its manifest entry's checksums in step."""
    out = []
    for f in [*SCHEMA, *([PATHS] if paths else [])]:
        if f.name not in schema.names:
            out.append(f"{f.name} is missing")
        elif schema.field(f.name).type != f.type:
            out.append(f"{f.name} is {schema.field(f.name).type}, the format has {f.type}")
    return out


def level_file_name(depth: int, part: int) -> str:
    return f"d{depth:03d}-{part:03d}.parquet"


def metadata(table: str, encoding: str) -> dict[str, str]:
    """The key-value metadata of every file of a table (plus ``puzzledb.depth``)."""
    return {
        "puzzledb.format_version": str(FORMAT_VERSION),
        "puzzledb.table": table,
        "puzzledb.puzzle": table,
        "puzzledb.encoding": encoding,
    }
